"""What the CLI writes to a terminal: text from models, tools, servers and errors, made inert.

Rules:

* ``terminal_text``: C0 control characters (but ``\\n`` and ``\\t``), DEL and C1 controls are
  written as Python escapes (``\\x1b``, ``\\r``, ``\\x9b``), so a model, a tool or a server
  cannot write the clipboard (OSC 52), set the title, plant a hyperlink (OSC 8), move the cursor
  or clear the screen; Unicode bidirectional overrides and isolates too (U+202A-202E,
  U+2066-2069: they reorder what is shown). Everything else is left as it is.
* ``one_line``: text shown on one line (a URL, a log record, a provider's error message):
  every control character escaped, ``\\n`` and ``\\t`` included, and the Unicode line and
  paragraph separators, so ``\\r\\x1b[2K`` cannot show another address over a URL and a
  server cannot forge a log line; with ``limit``, cut to that many characters (marked
  ``...``): the raw text first, so a 4 MB record costs no more than its kept part, then the
  escaped one. ``terminal_url`` is ``one_line`` of a URL.
* ``json_line``: one JSON line, DEL, C1 and the bidirectional controls written as ``\\u``
  escapes too (JSON escapes C0 itself; orjson writes the others raw): the same value, inert on
  a terminal.
* Every writer to a terminal uses these: the CLI's chat, demo, replay, models, elicitation
  prompts and errors, and the MCP OAuth hooks' authorization URL (``mcp.oauth.hooks``).
  This module imports nothing of llmbridge, so any layer may use it.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

__all__ = ["json_line", "one_line", "terminal_text", "terminal_url"]

_BIDI = "\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")
_UNSAFE_LINE = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_BIDI}]")
_UNSAFE_JSON = re.compile(f"[\x7f-\x9f{_BIDI}]")


def _escaped(match: re.Match[str]) -> str:
    return repr(match.group())[1:-1]  # '\x1b' → \x1b, '\r' → \r, '\u202e' → \u202e


def terminal_text(text: str) -> str:
    """``text`` with every control character but ``\\n`` and ``\\t`` escaped (module rules)."""
    return _UNSAFE.sub(_escaped, text)


def one_line(text: object, *, limit: int | None = None) -> str:
    """``text`` (``str()`` of it) on one line, cut to ``limit`` characters (module rules)."""
    raw = text if isinstance(text, str) else str(text)
    if limit is None:
        return _UNSAFE_LINE.sub(_escaped, raw)
    cut = len(raw) > limit
    safe = _UNSAFE_LINE.sub(_escaped, raw[:limit] if cut else raw)
    if len(safe) > limit:
        safe, cut = safe[:limit], True
    return safe[: max(limit - 3, 0)] + "..." if cut else safe


def terminal_url(url: str) -> str:
    """``url`` on one line: every control character escaped, ``\\n`` and ``\\t`` included."""
    return one_line(url)


def json_line(value: Any) -> str:
    """``value`` as one JSON line (no newline at the end), inert on a terminal."""
    text = orjson.dumps(value).decode()
    return _UNSAFE_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
