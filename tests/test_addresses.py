"""One home per public name (issue 42): a name is exported by the module that defines it (or
that module's package) and by ``llmbridge``, nowhere else.

``tests/addresses.py`` finds every name listed in more than one module's ``__all__``
(``python -m tests.addresses``). ``ALLOWED`` names the extra addresses that stay for now, each
with why: only the compatibility faces plug-ins and docs import ("compat") are left. Inside
``llmbridge`` every import names the defining module; facades such as ``llmbridge.types``,
``llmbridge.tools`` or ``llmbridge.providers.base`` keep the other names importable as
attributes (``import X as X``) without listing them. An entry that is no longer true fails
too, so the list only shrinks.
"""

from __future__ import annotations

import ast
import importlib
import pathlib

import pytest

import llmbridge
from tests.addresses import extra_addresses

ALLOWED: dict[str, tuple[str, tuple[str, ...]]] = {
    # Compatibility faces plug-ins and docs import (examples/llmbridge-echo, docs/hosted-tools.md):
    # llmbridge.events keeps the response data it always exported; http_errors its two helpers.
    "llmbridge.http_headers:parse_retry_after": ("compat", ("llmbridge.providers.http_errors",)),
    "llmbridge.http_headers:request_id_from": ("compat", ("llmbridge.providers.http_errors",)),
    "llmbridge.response_data:ApprovalRequest": ("compat", ("llmbridge.events",)),
    "llmbridge.response_data:Citation": ("compat", ("llmbridge.events",)),
    "llmbridge.response_data:CodeOutput": ("compat", ("llmbridge.events",)),
    "llmbridge.response_data:GeneratedImage": ("compat", ("llmbridge.events",)),
    "llmbridge.response_data:RateLimit": ("compat", ("llmbridge.events",)),
    "llmbridge.response_data:ToolSearchCall": ("compat", ("llmbridge.events",)),
    "llmbridge.response_data:Usage": ("compat", ("llmbridge.events",)),
}
"""``"home:name"`` -> (why it stays, the modules that export it beside its home)."""


def test_every_public_name_has_one_home() -> None:
    extra = extra_addresses()
    new = {k: v for k, v in extra.items() if tuple(v) != ALLOWED.get(k, ("", ()))[1]}
    assert not new, f"names exported beyond their home and llmbridge: {new}"


def test_the_allow_list_only_shrinks() -> None:
    extra = extra_addresses()
    stale = sorted(set(ALLOWED) - set(extra))
    assert not stale, f"fixed: take them off ALLOWED: {stale}"


def test_tool_spec_has_its_home_and_llmbridge_only_among_the_old_shims() -> None:
    import llmbridge as lb
    from llmbridge.tool_spec import ToolSpec

    assert lb.ToolSpec is ToolSpec and ToolSpec.__module__ == "llmbridge.tool_spec"
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("llmbridge.tools.spec")


@pytest.mark.parametrize(
    ("module", "names"),
    [
        ("llmbridge.providers", ("Capabilities", "HttpRequest", "ProviderConfig", "Decoder")),
        ("llmbridge.tool_calls", ("ToolCall", "ToolCallLedger")),
        ("llmbridge.providers.http_errors", ("api_error", "error_from_body", "request_id_from")),
        ("llmbridge.events", ("FinishReason", "StreamEvent", "Usage", "ApprovalRequest")),
        ("llmbridge.errors", ("APIError", "UnsupportedFeatureError", "LLMBridgeError")),
        # Facades that list nothing they do not define, yet keep the old names as attributes:
        ("llmbridge.types", ("ChatMessage", "TextPart", "ToolSpec", "ChatRequest", "ContentPart")),
        ("llmbridge.providers.base", ("ProviderConfig", "Secret", "is_secret_name")),
        ("llmbridge.tools", ("ToolSpec", "ToolContext", "ToolSchemaError", "ToolSchemaWarning")),
        ("llmbridge.testing", ("iter_sse", "iter_eventstream")),
        ("llmbridge.messages", ("TextPart", "ImagePart")),
        ("llmbridge.client.model_chain", ("is_chain", "first_model", "ModelOption")),
    ],
)
def test_what_plug_ins_import_stays_importable(module: str, names: tuple[str, ...]) -> None:
    """The addresses ``examples/llmbridge-echo`` and docs/writing-a-provider.md use."""
    loaded = importlib.import_module(module)
    for name in names:
        assert getattr(loaded, name) is not None, f"{module}.{name}"


def test_nothing_inside_llmbridge_imports_the_app_facade() -> None:
    """``llmbridge.types`` is for apps: the package's own modules import the defining ones."""
    root = pathlib.Path(llmbridge.__file__).parent
    users = []
    for path in sorted(root.rglob("*.py")):
        package = ["llmbridge", *path.relative_to(root).parent.parts]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = package[: len(package) - node.level + 1] if node.level else []
            if ".".join([*base, node.module or ""]) == "llmbridge.types":
                users.append(f"{path.relative_to(root)}:{node.lineno}")
    assert not users, users
