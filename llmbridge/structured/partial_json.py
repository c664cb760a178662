"""The best-effort value of a JSON text that is still arriving, at a cost linear in its size.

Rules:

* Parsing is pydantic-core's partial JSON (``from_json(..., allow_partial="trailing-strings")``):
  objects and arrays are closed where the text stops, a string still open is cut off where
  it stops (at a complete character: a half escape is left out), a key without its value yet
  is left out. A number or literal at the very end is left out until a delimiter proves it
  complete (``12`` could still become ``123``), so every value is a prefix-consistent shape
  of the final one: keys only appear, strings only grow, lists only get longer.
* The text may start with prose or a code fence (``Here it is: ```json``), as models without
  a JSON mode write it: the value starts at the first ``{`` or ``[`` (after the code fence
  when there is one; at once when the text starts with a JSON value). ``_Opening`` finds it
  with ``str.find`` and the fence regex, resuming where it stopped: prose costs no Python
  work per character (a megabyte of it before the ``{`` took 7 s of loop CPU).
* Linear cost: re-parsing the whole text on every delta would make a long stream quadratic.
  Each ``feed`` earns credit for ``PARSE_CREDIT_PER_CHAR`` characters per character fed plus
  ``PARSE_CREDIT_PER_FEED``; a parse spends the text's length. So the total parsing work is
  bounded by a constant times the text, small values are re-parsed on every delta, and a
  value of hundreds of kilobytes is re-parsed every few kilobytes. ``finish()`` always
  parses the whole text.
* ``value`` is a new object each time it changes (earlier values are never mutated);
  ``feed`` / ``finish`` return whether it changed.
"""

from __future__ import annotations

import re
from typing import Any

import orjson
from pydantic_core import from_json

__all__ = ["PARSE_CREDIT_PER_CHAR", "PARSE_CREDIT_PER_FEED", "PartialJson"]

PARSE_CREDIT_PER_CHAR = 16
"""Characters of re-parsing each character fed pays for (see module docstring)."""
PARSE_CREDIT_PER_FEED = 128
"""Characters of re-parsing each ``feed`` pays for: values this small re-parse every delta."""

_TRAILING_SCALAR = re.compile(r"[-+0-9.eE]*[0-9][-+0-9.eE]*$|-$|[a-z]+$")
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\r?\n")
_MISSING: Any = object()


def _partial_value(text: str) -> Any:
    """The partial value of ``text`` (JSON from its first character), or ``_MISSING``."""
    body = text.rstrip()
    tail = _TRAILING_SCALAR.search(body, max(0, len(body) - 64))
    if tail is not None and _scalar_is_bare(body, tail.start()):
        body = body[: tail.start()]
    if not body:
        return _MISSING
    try:
        return from_json(body, allow_partial="trailing-strings")
    except ValueError:
        return _MISSING


def _scalar_is_bare(body: str, start: int) -> bool:
    """Whether the run at ``start`` is a bare number or literal (not the end of a string)."""
    before = body[:start].rstrip()[-1:]
    return before in ("", ":", ",", "[")


def _opener(text: str, start: int) -> int:
    """Where the first ``{`` or ``[`` of ``text`` from ``start`` is (``-1``: none)."""
    brace = text.find("{", start)
    bracket = text.find("[", start, brace if brace >= 0 else len(text))
    return bracket if bracket >= 0 else brace


class _Opening:
    """Where the JSON value of a growing text starts (``find``: ``None`` while not yet known).

    The value starts at the first character when the text starts with one (after whitespace),
    else at the first ``{`` or ``[`` after the first code fence (or from the start when there
    is none). Found with C-speed scans (``str.find``, the fence regex) that resume where the
    last one stopped, so prose before the value costs no Python work per character and each
    character is scanned about once however often ``find`` is asked: no ``{`` or ``[`` lies
    in ``[after the fence, _scanned)``, and no fence can start before ``_fence_from``.
    """

    __slots__ = ("_fence_end", "_fence_from", "_lead_seen", "_scanned")

    def __init__(self) -> None:
        self._lead_seen = False
        self._fence_end: int | None = None
        self._fence_from = 0
        self._scanned = 0

    def find(self, text: str) -> int | None:
        if not self._lead_seen:
            stripped = text.lstrip()
            if not stripped:
                return None
            if stripped[0] in '{["-0123456789':
                return len(text) - len(stripped)
            self._lead_seen = True
        found = _opener(text, max(self._fence(text), self._scanned))
        if found < 0:
            self._scanned = len(text)
            return None
        return found

    def _fence(self, text: str) -> int:
        """The end of the text's first code fence (0 while there is none)."""
        if self._fence_end is not None:
            return self._fence_end
        fence = _FENCE.search(text, self._fence_from)
        if fence is not None:
            self._fence_end = fence.end()
            return self._fence_end
        # A fence still being written starts at the last backticks (the tag holds none).
        last = text.rfind("```", self._fence_from)
        self._fence_from = max(
            self._fence_from, min(last, len(text) - 2) if last >= 0 else len(text) - 2
        )
        return 0


class PartialJson:
    """Feed JSON text as it streams; read ``value`` (see module docstring)."""

    __slots__ = (
        "_credit",
        "_opening",
        "_parts",
        "_size",
        "_start",
        "changed_since_parse",
        "value",
    )

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._size = 0
        self._credit = 0
        self._start: int | None = None
        self._opening = _Opening()
        self.changed_since_parse = False
        """Text arrived that the current ``value`` does not reflect yet."""
        self.value: Any = None
        """The value so far (``None`` until there is one; JSON ``null`` is also ``None``)."""

    @property
    def text(self) -> str:
        """Everything fed so far."""
        if len(self._parts) > 1:
            self._parts[:] = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    def feed(self, text: str) -> bool:
        """Add streamed text; ``True`` when ``value`` changed."""
        if not text:
            return False
        self._parts.append(text)
        self._size += len(text)
        self._credit += PARSE_CREDIT_PER_CHAR * len(text) + PARSE_CREDIT_PER_FEED
        self.changed_since_parse = True
        if self._credit < self._size:
            return False
        self._credit -= self._size
        return self._parse(final=False)

    def finish(self) -> bool:
        """Parse the whole text once more; ``True`` when ``value`` changed."""
        return self._parse(final=True) if self.changed_since_parse else False

    def _parse(self, *, final: bool) -> bool:
        text = self.text
        if self._start is None:
            self._start = self._opening.find(text)
            if self._start is None:
                if not final:
                    return False
                self._start = 0  # a bare literal (true, false, null), or no JSON at all
        self.changed_since_parse = False
        body = text[self._start :] if self._start else text
        value = _complete_value(body) if final else _MISSING
        if value is _MISSING:
            value = _partial_value(body)
        if value is _MISSING or value == self.value:
            return False
        self.value = value
        return True


def _complete_value(body: str) -> Any:
    """The value of a text that has ended: the whole JSON, else ``_MISSING``."""
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        pass
    try:  # a JSON value followed by a closing fence or prose
        return from_json(body.rstrip(), allow_partial="trailing-strings")
    except ValueError:
        return _MISSING
