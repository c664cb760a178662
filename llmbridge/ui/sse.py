"""Server-sent events out: one JSON object per ``data:`` line, as both browser protocols read.

Rules: each chunk is ``data: <json>\\n\\n`` (orjson, UTF-8, no newline inside); nothing else is
written (no ``event:`` or ``id:`` fields: neither protocol uses them).
"""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["sse_data"]


def sse_data(chunk: Any) -> bytes:
    """One SSE event whose data is ``chunk`` as JSON (``str``: as it is)."""
    body = chunk.encode() if isinstance(chunk, str) else orjson.dumps(chunk)
    return b"data: " + body + b"\n\n"
