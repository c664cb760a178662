"""Anthropic ``stop_reason`` → our ``FinishReason``; anything unknown is ``other``.

Follows https://platform.claude.com/docs/en/api/handling-stop-reasons. The raw value is
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
    "refusal": "content_filter",
    "pause_turn": "other",
    "compaction": "other",  # paused after compacting (pause_after_compaction): send again
}

map_finish_reason = finish_reason_mapper(FINISH_REASONS)
