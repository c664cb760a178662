"""What follows a call's JSON body in the prompt-tools parser: close markers, an array's ``,``
and ``]``, trailers, or text that ends a call left unclosed (the parser's rule 5).

Rules: ``AfterBody`` holds the POST and TRAIL state handlers of ``ToolCallParser``
(``parser.py``, whose docstring states every rule) and nothing else; it keeps no state of its
own, it reads and writes the parser's. The state numbers live here so both modules share them.
"""

from __future__ import annotations

from .body import CallBody
from .dialects import Dialect
from .markers import match_marker

__all__ = ["AfterBody"]

_TEXT, _OPEN, _PRE, _HEAD, _BODY, _POST, _TRAIL, _CLOSED = range(8)
_WS = frozenset(" \t\r\n")


class AfterBody:
    """The parser's handlers for what comes after a call body (see ``parser.py``)."""

    _state: int
    _prefix: str
    _dialect: Dialect
    _raw: list[str]
    _post: list[str]
    _text: list[str]
    _ticks: int
    _in_array: bool
    _trailers: tuple[str, ...]
    _body: CallBody | None

    def _end_call(self) -> None:
        raise NotImplementedError  # the parser's

    def _rescan(self, held: str) -> None:
        raise NotImplementedError  # the parser's

    def _on_post(self, s: str, i: int) -> int:
        closes = self._dialect.close_markers
        n = len(s)
        if self._prefix:  # a close-marker prefix held from the previous chunk
            p = self._prefix
            marker, maybe = match_marker(closes, p, s, i)
            if marker is not None:
                used = len(marker) - len(p)
                self._raw.append(marker)
                self._closed()
                return i + used
            if maybe:
                self._prefix = p + s[i:]
                return n
            self._prefix = ""
            self._finish_without_close(p)
            return i
        start = i
        while i < n:
            c = s[i]
            if c in _WS or (c == "`" and self._ticks < 3):
                self._ticks += c == "`"
                i += 1
                continue
            if self._in_array and (c == "," or c == "]"):
                return self._array_punct(s, start, i, c)
            self._post.append(s[start:i])
            self._raw.append(s[start:i])
            marker, maybe = match_marker(closes, "", s, i)
            if marker is not None:
                self._raw.append(marker)
                self._closed()
                return i + len(marker)
            if maybe:
                self._prefix = s[i:]
                return n
            self._finish_without_close("")
            return i
        self._post.append(s[start:i])
        self._raw.append(s[start:i])
        return i

    def _array_punct(self, s: str, start: int, i: int, c: str) -> int:
        self._raw.append(s[start:i])
        if c == "]":  # the array ends; a close marker may still follow
            self._raw.append(c)
            self._post = []  # whitespace held before it (an earlier chunk's) is markup
            self._in_array = False
            return i + 1
        dialect = self._dialect
        self._end_call()  # ',': the next object is the next call
        self._dialect, self._in_array = dialect, True
        self._raw = [c]
        self._state = _PRE
        return i + 1

    def _closed(self) -> None:
        trailers = self._dialect.trailers
        self._end_call()
        if trailers:
            self._trailers = trailers
            self._state = _TRAIL

    def _on_trail(self, s: str, i: int) -> int:
        n = len(s)
        if not self._prefix:
            j = i
            while j < n and s[j] in _WS:
                j += 1
            self._post.append(s[i:j])
            if j == n:
                return n
            i = j
        marker, maybe = match_marker(self._trailers, self._prefix, s, i)
        if marker is not None:
            used = len(marker) - len(self._prefix)
            self._post, self._prefix, self._state = [], "", _TEXT
            return i + used
        if maybe:
            self._prefix += s[i:]
            return n
        held, ws = self._prefix, "".join(self._post)
        self._post, self._prefix, self._state = [], "", _TEXT
        self._text.append(ws)
        self._rescan(held)
        return i

    def _finish_without_close(self, held_prefix: str) -> None:
        """Rule 5: the call ends; held whitespace / fence (and a failed prefix) become text."""
        post = "".join(self._post)
        self._end_call()
        self._text.append(post)
        if held_prefix:  # may begin an open marker, so scan it as text
            self._rescan(held_prefix)
