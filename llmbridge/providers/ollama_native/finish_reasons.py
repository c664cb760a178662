"""Ollama ``done_reason`` → our ``FinishReason``; anything unknown is ``other``.

Follows ``done_reason`` of https://github.com/ollama/ollama/blob/main/docs/api.md: ``stop``
(an end-of-generation token or a stop sequence), ``length`` (``num_predict`` or the context
ran out), ``load`` / ``unload`` (an empty request that only (un)loaded the model). Ollama says
``stop`` after tool calls too: a response that made tool calls finishes ``tool_calls`` (the raw
value stays on ``Finish.raw_reason``).
"""

from __future__ import annotations

from ...events import FinishReason

__all__ = ["FINISH_REASONS", "map_finish_reason"]

FINISH_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "load": "other",
    "unload": "other",
}


def map_finish_reason(raw: str | None, *, tool_calls: bool) -> FinishReason:
    if raw is None:
        return "tool_calls" if tool_calls else "other"
    reason = FINISH_REASONS.get(raw, "other")
    return "tool_calls" if tool_calls and reason == "stop" else reason
