"""Cohere ``finish_reason`` → our ``FinishReason``; anything unknown is ``other``.

Follows ``ChatFinishReason`` / ``FinishReason`` of the ``cohere`` SDK (v2 chat,
https://docs.cohere.com/reference/chat-stream). The raw value is kept on ``Finish.raw_reason``.
"""

from __future__ import annotations

from ...events import FinishReason

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


def map_finish_reason(raw: str | None) -> FinishReason:
    if raw is None:
        return "other"
    return FINISH_REASONS.get(raw, "other")
