"""Converse ``stopReason`` → our ``FinishReason``; anything unknown is ``other``.

Follows the ``StopReason`` enum of botocore's ``bedrock-runtime`` model. The raw value is
always kept on ``Finish.raw_reason``.
"""

from __future__ import annotations

from ...events import FinishReason
from ..decoding import finish_reason_mapper

__all__ = ["FINISH_REASONS", "map_finish_reason"]

FINISH_REASONS: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "guardrail_intervened": "content_filter",
    "content_filtered": "content_filter",
    "malformed_model_output": "error",
    "malformed_tool_use": "error",
}

map_finish_reason = finish_reason_mapper(FINISH_REASONS)
