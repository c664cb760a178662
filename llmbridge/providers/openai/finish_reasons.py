"""Chat Completions ``finish_reason`` → our ``FinishReason`` (unknown values → ``other``).

Follows https://platform.openai.com/docs/api-reference/chat/streaming (``finish_reason``:
``stop``, ``length``, ``tool_calls``, ``content_filter``, legacy ``function_call``) plus the
spellings compatible servers use. ``stop`` while the response holds tool calls becomes
``tool_calls`` (Ollama, and OpenAI itself when ``tool_choice`` names a function).
"""

from __future__ import annotations

from ...events import FinishReason

__all__ = ["FINISH_REASONS", "map_finish_reason"]

FINISH_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "content_filter",
    "eos": "stop",
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_length": "length",
    "tool_use": "tool_calls",
    "error": "error",
    "insufficient_system_resource": "error",
}


def map_finish_reason(raw: str | None, *, had_tool_calls: bool) -> FinishReason:
    if raw is None:  # [DONE] without a finish_reason (Snowflake, some gateways)
        return "tool_calls" if had_tool_calls else "stop"
    reason = FINISH_REASONS.get(raw, "other")
    if reason == "stop" and had_tool_calls:
        return "tool_calls"
    return reason
