"""The error tree is drawn true: every exception ``llmbridge`` exports sits under its real parent
in the tree of ``llmbridge/errors.py``'s docstring and in ``docs/errors.md`` (issue 42).

A tree line is ``├── Name`` / ``└── Name`` below ``LLMBridgeError``; its depth is where the name
starts. The parent drawn must be the class's first base that is an ``LLMBridgeError``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import llmbridge as lb
import llmbridge.errors

DOCS = Path(__file__).resolve().parent.parent / "docs" / "errors.md"
LINE = re.compile(r"^(?P<lead>[ │├└─]*)(?P<name>[A-Z]\w*)\b")


def drawn_parents(text: str) -> dict[str, str]:
    """Each name of the first tree in ``text`` with the name drawn above it (root: "")."""
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.lstrip().startswith("LLMBridgeError"))
    indent = len(lines[first]) - len(lines[first].lstrip())
    parents = {"LLMBridgeError": ""}
    stack: list[tuple[int, str]] = [(0, "LLMBridgeError")]
    for line in lines[first + 1 :]:
        match = LINE.match(line[indent:])
        if not match or not match.group("lead"):
            break
        depth = len(match.group("lead"))
        while stack[-1][0] >= depth:
            stack.pop()
        parents[match.group("name")] = stack[-1][1]
        stack.append((depth, match.group("name")))
    return parents


def exported_errors() -> dict[str, type[BaseException]]:
    names = sorted({*lb.__all__, "ConnectionError", "TimeoutError"})
    found = {n: getattr(lb, n) for n in names}
    return {
        n: obj
        for n, obj in found.items()
        if isinstance(obj, type) and issubclass(obj, BaseException) and not issubclass(obj, Warning)
    }


def real_parent(cls: type[BaseException]) -> str:
    if cls is lb.LLMBridgeError:
        return ""
    return next(b.__name__ for b in cls.__bases__ if issubclass(b, lb.LLMBridgeError))


@pytest.mark.parametrize(
    ("where", "text"),
    [("llmbridge/errors.py", llmbridge.errors.__doc__ or ""), ("docs/errors.md", DOCS.read_text())],
)
def test_every_exported_exception_is_drawn_under_its_parent(where: str, text: str) -> None:
    drawn = drawn_parents(text)
    errors = exported_errors()
    assert len(errors) >= 31
    missing = sorted(set(errors) - set(drawn))
    assert not missing, f"{where}: exported exceptions missing from the tree: {missing}"
    wrong = {n: (drawn[n], real_parent(c)) for n, c in errors.items() if drawn[n] != real_parent(c)}
    assert not wrong, f"{where}: drawn under the wrong parent (drawn, real): {wrong}"
    unknown = sorted(set(drawn) - set(errors))
    assert not unknown, f"{where}: the tree draws classes llmbridge does not export: {unknown}"


def test_the_tree_reader_sees_depth() -> None:
    tree = "LLMBridgeError   root\n├── A   x\n│   └── B\n└── C\n\nprose after\n"
    assert drawn_parents(tree) == {
        "LLMBridgeError": "",
        "A": "LLMBridgeError",
        "B": "A",
        "C": "LLMBridgeError",
    }


def test_an_unknown_tool_is_a_typed_error_and_still_a_key_error() -> None:
    registry = lb.ToolRegistry()
    with pytest.raises(lb.ToolNotFoundError) as raised:
        registry.call("nope")
    assert isinstance(raised.value, KeyError)
    assert str(raised.value) == "unknown tool 'nope' (registered: none)"
