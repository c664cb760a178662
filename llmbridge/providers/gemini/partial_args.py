"""Vertex streamed function-call arguments (``FunctionCall.partialArgs``) → one arguments object.

Follows ``google.genai.types.PartialArg``: each piece names a JSON Path (RFC 9535, e.g.
``$.recipe.steps[0]``) and one value (``stringValue`` / ``numberValue`` / ``boolValue`` /
``nullValue``); a string may come in several pieces for the same path (``willContinue``).
Rules: string pieces for one path are concatenated; paths build nested objects and arrays
(missing array slots are ``null``); a path that cannot be parsed or that contradicts the shape
built so far (or indexes past ``MAX_INDEX``) is recorded in ``errors`` and skipped, never
raised. The arguments text is
produced once, when the call closes (the pieces are not JSON text, so there is nothing
faithful to stream before that).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["MAX_INDEX", "ArgumentsBuilder", "parse_json_path"]

MAX_INDEX = 100_000
"""Array indices above this are refused (a bogus path must not allocate a huge list)."""

_SEGMENT = re.compile(
    r"""\.(?P<name>[A-Za-z_$][\w$-]*)|\[(?P<index>\d+)\]|\['(?P<sq>(?:[^'\\]|\\.)*)'\]|\["(?P<dq>(?:[^"\\]|\\.)*)"\]"""
)


def parse_json_path(path: str) -> list[str | int] | None:
    """``$.a[0]['b c']`` → ``["a", 0, "b c"]``; ``None`` when the path is not of that form."""
    if not path.startswith("$"):
        return None
    out: list[str | int] = []
    pos = 1
    while pos < len(path):
        match = _SEGMENT.match(path, pos)
        if match is None:
            return None
        if match["index"] is not None:
            out.append(int(match["index"]))
        else:
            key = match["name"] or match["sq"] or match["dq"] or ""
            out.append(re.sub(r"\\(.)", r"\1", key) if "\\" in key else key)
        pos = match.end()
    return out


def _value(piece: dict[str, Any]) -> tuple[bool, Any]:
    for key in ("stringValue", "numberValue", "boolValue"):
        if key in piece:
            return True, piece[key]
    if "nullValue" in piece:
        return True, None
    return False, None


class ArgumentsBuilder:
    """Collects ``partialArgs`` pieces of one call."""

    __slots__ = ("errors", "root", "seen")

    def __init__(self) -> None:
        self.root: dict[str, Any] = {}
        self.seen = False
        self.errors: list[str] = []

    def add(self, pieces: Any) -> None:
        if not isinstance(pieces, list):
            return
        for piece in pieces:
            if isinstance(piece, dict):
                self._add(piece)

    def _add(self, piece: dict[str, Any]) -> None:
        path = piece.get("jsonPath")
        steps = parse_json_path(path) if isinstance(path, str) else None
        has_value, value = _value(piece)
        if steps and any(isinstance(s, int) and s > MAX_INDEX for s in steps):
            steps = None
        if not steps or not has_value:
            if path is not None or has_value:
                self.errors.append(f"unusable partial argument at {path!r}")
            return
        self.seen = True
        node: Any = self.root
        for step, following in zip(steps, [*steps[1:], None], strict=True):
            container: Any = {} if isinstance(following, str) else []
            if following is None:
                self._set(node, step, value, path)
                return
            node = self._child(node, step, container, path)
            if node is None:
                return

    def _child(self, node: Any, step: str | int, empty: Any, path: Any) -> Any:
        if isinstance(step, str) and isinstance(node, dict):
            child = node.setdefault(step, empty)
        elif isinstance(step, int) and isinstance(node, list):
            node.extend([None] * (step + 1 - len(node)))
            if node[step] is None:
                node[step] = empty
            child = node[step]
        else:
            child = None
        if not isinstance(child, (dict, list)) or type(child) is not type(empty):
            self.errors.append(f"partial argument {path!r} contradicts earlier ones")
            return None
        return child

    def _set(self, node: Any, step: str | int, value: Any, path: Any) -> None:
        if isinstance(step, str) and isinstance(node, dict):
            old = node.get(step)
            node[step] = old + value if isinstance(old, str) and isinstance(value, str) else value
        elif isinstance(step, int) and isinstance(node, list):
            node.extend([None] * (step + 1 - len(node)))
            old = node[step]
            node[step] = old + value if isinstance(old, str) and isinstance(value, str) else value
        else:
            self.errors.append(f"partial argument {path!r} contradicts earlier ones")
