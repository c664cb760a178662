"""Cohere ``finish_reason`` → our ``FinishReason``; anything unknown is ``other``.

Follows ``ChatFinishReason`` / ``FinishReason`` of the ``cohere`` SDK (v2 chat,
https://docs.cohere.com/reference/chat-stream). The raw value is kept on ``Finish.raw_reason``.
"""

from __future__ import annotations

from ...events import FinishReason
from ..decoding import finish_reason_mapper

__all__ = ["FINISH_REASONS", "map_finish_reason"]

FINISH_REASONS: dict[str, FinishReason] = {
    "COMPLETE": "stop",
    "STOP_SEQUENCE": "stop",
    "MAX_TOKENS": "length",
    "ERROR_LIMIT": "length",  # the context limit was reached
    "TOOL_CALL": "tool_calls",
    "ERROR_TOXIC": "content_filter",
    "ERROR": "error",
    "TIMEOUT": "error",
    "USER_CANCEL": "other",
}

map_finish_reason = finish_reason_mapper(FINISH_REASONS)
