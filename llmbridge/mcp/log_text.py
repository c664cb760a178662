"""Server-given text made safe for a log line: ``log_text``.

Rules: whatever an MCP server wrote (a log record's ``data`` and ``logger``, a tool name, an
error message it sent) is cut to a bound and its control characters are escaped before it
reaches the ``llmbridge.mcp`` logger, so one record is one line of bounded size and a server
cannot forge another record (``\\nCRITICAL llmbridge: ...``), move the cursor or set the
terminal title (ESC, BEL, C1). The escaping and the cut are ``terminal.one_line``'s. Scrub secrets
before calling this: the scrubber must see the whole text.
"""

from __future__ import annotations

from ..terminal import one_line

__all__ = ["MAX_LOG_CHARS", "MAX_NAME_CHARS", "log_text"]

MAX_LOG_CHARS = 4000
"""Characters kept of one server-given text in a log line (a log record's ``data``, an error
message); the rest is cut, marked ``...``."""
MAX_NAME_CHARS = 200
"""Characters kept of a short server-given name in a log line (a log record's ``logger``)."""


def log_text(text: object, *, limit: int) -> str:
    """``text`` (``str()`` of it) cut to ``limit`` characters, control characters escaped."""
    return one_line(text, limit=limit)
