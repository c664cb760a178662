"""Converse ``stopReason`` → our ``FinishReason``; anything unknown is ``other``.

Follows the ``StopReason`` enum of botocore's ``bedrock-runtime`` model. The raw value is
always kept on ``Finish.raw_reason``.
"""

from __future__ import annotations

from ...events import FinishReason

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


def map_finish_reason(raw: str | None) -> FinishReason:
    if raw is None:
        return "other"
    return FINISH_REASONS.get(raw, "other")
