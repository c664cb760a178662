"""Each provider declares its own error words; the IO layer knows none of them.

* every provider folder's ``errors.py`` has ``ERRORS`` and the same two functions,
  ``map_http_error`` and ``stream_error``, with the same keyword-only signatures;
* no provider folder imports ``llmbridge.stream``, and ``llmbridge.stream`` imports from
  ``llmbridge.providers`` only the provider-neutral modules (``base``, ``http_errors``).
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

import llmbridge as lb
from llmbridge.errors import APIError

PACKAGE = Path(lb.__file__).parent
PROVIDERS = ["anthropic", "gemini", "openai", "openai_responses"]


def _imported(path: Path) -> set[str]:
    """Absolute names of the modules ``path`` imports (relative imports resolved)."""
    module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    package = module.rsplit(".", 1)[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            target = ".".join(p for p in (base, node.module or "") if p)
            names.add(target)
            names.update(f"{target}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("name", PROVIDERS)
def test_every_provider_declares_its_vocabulary_and_the_same_functions(name: str) -> None:
    errors = importlib.import_module(f"llmbridge.providers.{name}.errors")
    assert errors.ERRORS and all(issubclass(c, APIError) for c in errors.ERRORS.values())
    http = inspect.signature(errors.map_http_error).parameters
    assert list(http) == ["provider", "status", "headers", "body"]
    stream = inspect.signature(errors.stream_error).parameters
    assert list(stream) == ["provider", "error", "fallback"]
    for params in (http, stream):
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params.values())


def test_no_provider_imports_the_io_layer() -> None:
    for path in (PACKAGE / "providers").rglob("*.py"):
        bad = {m for m in _imported(path) if m.startswith("llmbridge.stream")}
        assert not bad, f"{path.relative_to(PACKAGE)} imports {sorted(bad)}"


def test_the_io_layer_names_no_provider() -> None:
    neutral = (  # the protocol and its adapter; headers are llmbridge.http_headers
        "llmbridge.providers.base",
        "llmbridge.providers.prepared",
        "llmbridge.providers.adapter",
    )
    for path in (PACKAGE / "stream").rglob("*.py"):
        for module in _imported(path):
            if module.startswith("llmbridge.providers"):
                assert module.startswith(neutral), f"{path.relative_to(PACKAGE)}: {module}"


@pytest.mark.parametrize(
    ("name", "event", "cls"),
    [
        ("anthropic", {"type": "error", "error": {"type": "overloaded_error"}}, lb.OverloadedError),
        ("gemini", {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED"}}, lb.RateLimitError),
        ("openai", {"error": {"code": 502, "message": "upstream"}}, lb.ServerError),
        ("openai", {"error": {"type": "exceed_context_size_error"}}, lb.ContextLengthError),
        ("openai_responses", {"code": "rate_limit_exceeded"}, lb.RateLimitError),
    ],
)
def test_stream_errors_are_classed_by_the_providers_own_words(
    name: str, event: object, cls: type[APIError]
) -> None:
    errors = importlib.import_module(f"llmbridge.providers.{name}.errors")
    error = errors.stream_error(provider=name, error=event)
    assert type(error) is cls
