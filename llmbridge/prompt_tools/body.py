"""Incremental scanner for the JSON body of one tagged tool call.

``CallBody.feed(s, i)`` consumes text from ``s[i:]`` and returns how far it got; it keeps all
state across chunks, so a body split anywhere scans the same. Rules:

* Linear: inside strings and nested values it jumps with compiled regexes to the next
  ``"``/``\\`` or bracket; only the outer object's punctuation (depth 1) is read char by char.
  Strings are tracked with their escape state, so braces, quotes and even ``</function_call>``
  inside strings never end the body. Any unicode passes through untouched.
* The outer object is tokenized: the value of the name key (a JSON string) is decoded when it
  ends, and ``feed`` returns right then (``name_ready``) so the caller can start the call early.
* The arguments value is kept as its exact text (``raw_arguments``):
  - an object (or array) streams: ``take_args_delta()`` returns the text added since the last
    call, and the joined deltas are exactly the value's text;
  - a JSON *string* (``"arguments": "{\\"a\\": 1}"``) is decoded at its end and its content is
    the raw arguments (given in one piece);
  - ``null`` means no arguments (``""``); other scalars are kept as text and flagged.
* ``CallBody.for_arguments(dialect, name)`` scans a bare arguments value (for dialects that
  write the name before it): done when that value ends.
* The body is done when the outer object closes. Outer syntax it cannot follow (``{name: x}``)
  sets ``error`` and it then only tracks depth and strings to find the object's end.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from ..tool_calls import parse_arguments
from .dialects import Dialect

__all__ = ["CallBody"]

_STR_STOP = re.compile(r'["\\]')
_NEST_STOP = re.compile(r'["{}\[\]]')
_SCALAR_END = re.compile(r"[,}\s]")
_WS = frozenset(" \t\r\n")

# sub-states
_KEY_OR_END, _COLON, _VALUE, _AFTER, _STRING, _NESTED, _SCALAR, _SKIM, _DONE = range(9)
# what a string / scalar being scanned is
_SKIP, _KEY, _NAME, _ARGS = range(4)


class CallBody:
    """State of one ``{...}`` call body being scanned (see module docstring)."""

    __slots__ = (
        "_args_from",
        "_args_kind",
        "_args_pieces",
        "_bare",
        "_depth",
        "_dialect",
        "_esc",
        "_in_args",
        "_key",
        "_nest_str",
        "_role",
        "_str",
        "_sub",
        "_taken",
        "error",
        "name",
        "name_ready",
    )

    def __init__(self, dialect: Dialect) -> None:
        self._dialect = dialect
        self._sub = -1  # expecting the opening '{'
        self._role = _SKIP
        self._key: str | None = None
        self._str: list[str] = []  # raw pieces of the string / scalar being collected
        self._esc = False
        self._nest_str = False
        self._depth = 0
        self._in_args = False
        self._args_from = 0
        self._args_kind: str | None = None  # "object" | "array" | "string" | "scalar"
        self._args_pieces: list[str] = []
        self._taken = 0
        self._bare = False
        self.name: str | None = None
        self.name_ready = False
        self.error: str | None = None

    @classmethod
    def for_arguments(cls, dialect: Dialect, name: str) -> CallBody:
        """A body that is only the arguments value: the name was written before it."""
        body = cls(dialect)
        body._sub = _VALUE
        body._key = dialect.arguments_keys[0]
        body._bare = True
        body.name = name
        body.name_ready = True
        return body

    @property
    def done(self) -> bool:
        return self._sub == _DONE

    # -- scanning ---------------------------------------------------------------------------
    def feed(self, s: str, i: int) -> int:
        """Consume ``s[i:]``; stop early right after the name is known or the object closes."""
        n = len(s)
        if self._in_args:
            self._args_from = i
        while i < n:
            sub = self._sub
            if sub == _STRING:
                j = self._scan_str(s, i)
                if j < 0:
                    if self._role != _SKIP:
                        self._str.append(s[i:])
                    i = n
                    break
                if self._role != _SKIP:
                    self._str.append(s[i:j])
                i = j
                if self._string_done(s, j):
                    break
            elif sub in (_NESTED, _SKIM):
                j = self._scan_nested(s, i)
                if j < 0:
                    i = n
                    break
                i = j
                if sub == _SKIM:
                    self._sub = _DONE
                    break
                self._end_args(s, j)
                self._sub = _DONE if self._bare else _AFTER
                if self._bare:
                    break
            elif sub == _SCALAR:
                m = _SCALAR_END.search(s, i)
                j = n if m is None else m.start()
                if self._role == _ARGS:
                    self._str.append(s[i:j])
                i = j
                if m is None:
                    break
                self._scalar_done()
                self._sub = _DONE if self._bare else _AFTER
                if self._bare:
                    break
            else:
                c = s[i]
                if c in _WS:
                    i += 1
                    continue
                i = self._punct(s, i, c)
                if self._sub == _DONE:
                    break
        if self._in_args:
            self._args_pieces.append(s[self._args_from : i])
        return i

    def _punct(self, s: str, i: int, c: str) -> int:
        """Outer-object punctuation at depth 1 (``c`` is ``s[i]``, not whitespace)."""
        sub = self._sub
        if sub == -1:
            if c == "{":
                self._sub = _KEY_OR_END
                return i + 1
        elif sub == _KEY_OR_END:
            if c == '"':
                self._open_string(_KEY)
                return i + 1
            if c == "}":
                self._sub = _DONE
                return i + 1
        elif sub == _COLON:
            if c == ":":
                self._sub = _VALUE
                return i + 1
        elif sub == _VALUE:
            return self._value_start(s, i, c)
        elif sub == _AFTER:
            if c == ",":
                self._sub = _KEY_OR_END
                return i + 1
            if c == "}":
                self._sub = _DONE
                return i + 1
        return self._malformed(i, c)

    def _malformed(self, i: int, c: str) -> int:
        if self._in_args:  # e.g. an unbalanced value: keep what was written
            self._in_args = False
        self.error = f"malformed tool call JSON: unexpected {c!r}"
        self._sub = _SKIM
        self._depth = 1
        return i  # re-read c while skimming (it may open a string or a bracket)

    def _value_start(self, s: str, i: int, c: str) -> int:
        key = self._key
        d = self._dialect
        if key == d.name_key and self.name is None:
            role = _NAME
        elif key in d.arguments_keys and self._args_kind is None:
            role = _ARGS
        else:
            role = _SKIP
        if c == '"':
            if role == _ARGS:
                self._args_kind = "string"
            self._open_string(role)
            return i + 1
        if c == "{" or c == "[":
            self._sub = _NESTED
            self._depth = 2
            if role == _ARGS:
                self._args_kind = "object" if c == "{" else "array"
                self._in_args = True
                self._args_from = i
            return i + 1
        if c in ",}:]":
            return self._malformed(i, c)
        self._sub = _SCALAR
        self._role = role
        self._str = []
        if role == _ARGS:
            self._args_kind = "scalar"
        return i

    def _open_string(self, role: int) -> None:
        self._sub = _STRING
        self._role = role
        self._str = ['"']

    def _scan_str(self, s: str, i: int) -> int:
        """Index just past the closing quote, or -1 if the string goes on past ``s``."""
        n = len(s)
        if self._esc:
            self._esc = False
            i += 1
        while True:
            m = _STR_STOP.search(s, i)
            if m is None:
                return -1
            j = m.start()
            if s[j] == '"':
                return j + 1
            if j + 1 >= n:
                self._esc = True
                return -1
            i = j + 2

    def _scan_nested(self, s: str, i: int) -> int:
        """Track strings and brackets; index just past the bracket closing the value, or -1."""
        n = len(s)
        while i < n:
            if self._nest_str:
                j = self._scan_str(s, i)
                if j < 0:
                    return -1
                self._nest_str = False
                i = j
                continue
            m = _NEST_STOP.search(s, i)
            if m is None:
                return -1
            j = m.start()
            c = s[j]
            i = j + 1
            if c == '"':
                self._nest_str = True
            elif c == "{" or c == "[":
                self._depth += 1
            else:
                self._depth -= 1
                if self._depth <= (0 if self._sub == _SKIM else 1):
                    return i
        return -1

    def _string_done(self, s: str, j: int) -> bool:
        """A depth-1 string ended at ``j``; returns True when the caller should stop (name)."""
        role = self._role
        self._sub = _COLON if role == _KEY else _DONE if self._bare else _AFTER
        if role == _SKIP:
            return False
        text = "".join(self._str)
        self._str = []
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            if role == _ARGS:
                self._args_pieces = [text]
                self.error = self.error or f"arguments string is not valid JSON: {exc}"
                return self._bare
            value = None
        if role == _KEY:
            self._key = value if isinstance(value, str) else None
            return False
        if role == _ARGS:
            self._args_pieces = [value]
            return self._bare
        if isinstance(value, str) and value:
            self.name = value
            self.name_ready = True
            return True
        return False

    def _scalar_done(self) -> None:
        if self._role == _ARGS:
            text = "".join(self._str)
            self._args_pieces = [] if text == "null" else [text]
        self._str = []

    def _end_args(self, s: str, j: int) -> None:
        if self._in_args:
            self._args_pieces.append(s[self._args_from : j])
            self._in_args = False

    # -- results ----------------------------------------------------------------------------
    def take_args_delta(self) -> str:
        """Arguments text written since the last call (streaming kinds only)."""
        if self._args_kind not in ("object", "array"):
            return ""
        pieces = self._args_pieces
        if len(pieces) == self._taken:
            return ""
        start, self._taken = self._taken, len(pieces)
        return "".join(pieces[start:]) if len(pieces) - start > 1 else pieces[start]

    def untaken_arguments(self) -> str:
        """What ``take_args_delta`` has not given yet: the rest of a streamed object or array,
        or the whole text of a kind given in one piece (string, scalar)."""
        if self._args_kind in ("object", "array"):
            return self.take_args_delta()
        return self.raw_arguments()

    def raw_arguments(self) -> str:
        """The arguments text so far (final once ``done``)."""
        return "".join(self._args_pieces)

    def result(self, *, truncated: bool = False) -> tuple[str, dict[str, Any], str | None]:
        """``(raw_arguments, arguments, error)`` per the module's rules."""
        raw = self.raw_arguments()
        if truncated:
            return raw, {}, "the stream ended inside the tool call"
        if self.error is not None:
            return raw, {}, self.error
        if self.name is None:
            return raw, {}, "tool call has no name"
        args, error = parse_arguments(raw)
        return raw, args, error
