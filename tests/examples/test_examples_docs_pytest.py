"""The docs' pytest examples (blocks after ``<!-- pytest -->``) run as written under pytest:
each is saved as a test file in a fresh folder that sees the repository's ``examples/`` (as
the repository root does) and run by pytest with the llmbridge plug-in, with no key set."""

from __future__ import annotations

import importlib.metadata
import re

import pytest
from plugin_install import REPO

pytest_plugins = ["pytester"]
BLOCK = re.compile(r"<!--\s*pytest\s*-->\s*\n```python\n(?P<code>.*?)```", re.S)
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def _blocks() -> list[object]:
    out = []
    for doc in DOCS:
        text = doc.read_text()
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start("code")) + 1
            out.append(pytest.param(match.group("code"), id=f"{doc.name}:{line}"))
    return out


def test_the_testing_guide_has_pytest_examples() -> None:
    assert len([b for b in _blocks() if "testing.md" in str(b.id)]) >= 2  # type: ignore[attr-defined]


@pytest.mark.parametrize("code", _blocks())
def test_doc_example_passes_under_pytest(
    code: str, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "CI"):
        monkeypatch.delenv(var, raising=False)
    (pytester.path / "examples").symlink_to(REPO / "examples")
    pytester.makepyfile(test_doc_example=code)
    installed = any(
        ep.value == "llmbridge.testing.pytest_plugin"
        for ep in importlib.metadata.entry_points(group="pytest11")
    )
    plugin = [] if installed else ["-p", "llmbridge.testing.pytest_plugin"]
    result = pytester.runpytest("-p", "no:randomly", *plugin, "test_doc_example.py")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) >= 1 and set(outcomes) <= {"passed", "seconds"}, (
        result.stdout.str()
    )
