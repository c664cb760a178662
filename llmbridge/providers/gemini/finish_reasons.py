"""Gemini ``finishReason`` / ``promptFeedback.blockReason`` → our ``FinishReason``.

Follows ``google.genai.types.FinishReason`` (https://ai.google.dev/api/generate-content#FinishReason).
Rules: a table, with ``other`` for anything unknown (the raw value is always kept in
``Finish.raw_reason``); ``STOP`` becomes ``tool_calls`` when the response called tools.
"""

from __future__ import annotations

from ...events import FinishReason
from ..decoding import tool_aware_mapper

__all__ = ["FINISH_REASONS", "map_finish_reason"]

FINISH_REASONS: dict[str, FinishReason] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
    "IMAGE_PROHIBITED_CONTENT": "content_filter",
    "IMAGE_RECITATION": "content_filter",
    "MODEL_ARMOR": "content_filter",
    "MALFORMED_FUNCTION_CALL": "error",
}


map_finish_reason = tool_aware_mapper(FINISH_REASONS)
