"""Server-given text made safe for a log line: ``log_text``.

Rules: whatever an MCP server wrote (a log record's ``data`` and ``logger``, a tool name, an
error message it sent) is cut to a bound and its control characters are escaped before it
reaches the ``llmbridge.mcp`` logger, so one record is one line of bounded size and a server
cannot forge another record (``\\nCRITICAL llmbridge: ...``), move the cursor or set the
terminal title (ESC, BEL, C1). Escaped: C0 (newline and tab included), DEL, C1, the Unicode
line and paragraph separators and the bidirectional overrides, each as a Python escape
(``\\n``, ``\\x1b``, ``\\u2028``). The text is cut first (so a 4 MB record costs no more than
its kept part), escaped, then cut again to the bound; a cut is marked ``...``. Scrub secrets
before calling this: the scrubber must see the whole text.
"""

from __future__ import annotations

import re

__all__ = ["MAX_LOG_CHARS", "MAX_NAME_CHARS", "log_text"]

MAX_LOG_CHARS = 4000
"""Characters kept of one server-given text in a log line (a log record's ``data``, an error
message); the rest is cut, marked ``...``."""
MAX_NAME_CHARS = 200
"""Characters kept of a short server-given name in a log line (a log record's ``logger``)."""

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def log_text(text: object, *, limit: int) -> str:
    """``text`` (``str()`` of it) cut to ``limit`` characters, control characters escaped."""
    raw = text if isinstance(text, str) else str(text)
    cut = len(raw) > limit
    safe = _UNSAFE.sub(_escape, raw[:limit] if cut else raw)
    if len(safe) > limit:
        safe, cut = safe[:limit], True
    return safe[: max(limit - 3, 0)] + "..." if cut else safe
