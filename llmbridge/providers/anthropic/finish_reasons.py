"""Anthropic ``stop_reason`` → our ``FinishReason``; anything unknown is ``other``.

Follows https://platform.claude.com/docs/en/api/handling-stop-reasons. The raw value is
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
    "refusal": "content_filter",
    "pause_turn": "other",
}


def map_finish_reason(raw: str | None) -> FinishReason:
    if raw is None:
        return "other"
    return FINISH_REASONS.get(raw, "other")
