"""Markers in streamed text: where a call may start, and markers split across chunks.

Rules:

* ``OpenMarkers`` is the table of the dialects' open markers. Plain text is scanned only for
  their first characters (``starts``); no marker holds one of those after its first character
  (checked here), so a failed marker prefix never hides another call start.
* ``match_marker(markers, held, s, i)`` tells whether ``held + s[i:]`` starts with a whole
  marker, may still become one (the caller holds it), or cannot; it reads at most one marker's
  length of ``s``.
* ``NameHeader`` collects the header a named dialect writes before the arguments (Mistral
  ``NAME[ARGS]``, Kimi ``functions.NAME:0<|tool_call_argument_begin|>``, Harmony
  ``... to=functions.NAME ...<|message|>``) up to its ``header_end``, at most ``max_header``
  characters, and reads the name out of it (group 1 of ``name_pattern``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..errors import UsageError
from .dialects import Dialect

__all__ = ["NameHeader", "OpenMarkers", "match_marker"]


class OpenMarkers:
    """Every open marker of a parser's dialects, with the dialect each one opens."""

    __slots__ = ("_re", "heads", "longest", "markers", "pairs", "starts")

    def __init__(self, dialects: Sequence[Dialect]) -> None:
        self.pairs = tuple((d, m) for d in dialects for m in d.open_markers)
        self.markers = tuple(m for _, m in self.pairs)
        self.starts = tuple(sorted({m[0] for m in self.markers}))
        for m in self.markers:
            if any(c in m[1:] for c in self.starts):
                raise UsageError(f"open marker {m!r} holds another marker's first character")
        self._re = re.compile("[" + re.escape("".join(self.starts)) + "]")
        self.longest = max(len(m) for m in self.markers)
        self.heads = frozenset(m[:2] for m in self.markers)
        """First two characters of every marker: a quick test that rules most text out."""

    def find(self, s: str, i: int) -> int:
        """Index of the next character in ``s[i:]`` that may start a marker, or -1."""
        if len(self.starts) == 1:
            return s.find(self.starts[0], i)
        m = self._re.search(s, i)
        return -1 if m is None else m.start()

    def at(self, s: str, j: int) -> tuple[Dialect, str] | None:
        """The dialect and marker starting at ``s[j]``, if a whole one does."""
        for d, m in self.pairs:
            if s.startswith(m, j):
                return d, m
        return None

    def is_prefix(self, text: str) -> bool:
        """True if ``text`` begins some marker."""
        return any(m.startswith(text) for m in self.markers)


def match_marker(markers: Sequence[str], held: str, s: str, i: int) -> tuple[str | None, bool]:
    """``(marker, False)`` if ``held + s[i:]`` starts with a whole marker; ``(None, True)`` if
    it is still a proper prefix of one (hold it); ``(None, False)`` if it can be none."""
    for m in markers:
        if m.startswith(held) and s.startswith(m[len(held) :], i):
            return m, False
    rest = len(s) - i
    if any(len(m) - len(held) > rest and m.startswith(held) for m in markers):
        cand = held + s[i:]
        return None, any(m.startswith(cand) for m in markers)
    return None, False


class NameHeader:
    """The name header of one named-dialect call, read across chunks."""

    __slots__ = ("_end", "_limit", "_pattern", "_text")

    def __init__(self, dialect: Dialect) -> None:
        assert dialect.header_end is not None and dialect.name_pattern is not None
        self._end = dialect.header_end
        self._limit = dialect.max_header + len(dialect.header_end)
        self._pattern = re.compile(dialect.name_pattern)
        self._text = ""

    def feed(self, s: str, i: int) -> tuple[int, bool, str | None]:
        """Read from ``s[i:]``: ``(new i, done, name)``. Done without a name: not a header
        (no name in it, or no ``header_end`` within the dialect's ``max_header``)."""
        held, end, limit = self._text, self._end, self._limit
        take = s[i : i + limit - len(held)]
        text = held + take
        k = text.find(end, max(0, len(held) - len(end) + 1))
        if k < 0:
            self._text = text
            return i + len(take), len(text) >= limit, None
        found = self._pattern.search(text, 0, k)
        return i + k + len(end) - len(held), True, (found.group(1) or None) if found else None
