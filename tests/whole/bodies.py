"""Whole answers of our own, per provider family, with what they hold: the loopback and
stream-agreement suites share them (written by us, not recorded)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Case:
    provider: str
    model: str
    path: str
    """The end of the request's path (and query) the whole call goes to."""
    answer: dict[str, Any]
    check_body: Callable[[Any], None]
    text: str
    finish: str
    tokens: tuple[int, int]
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=lambda: {"api_key": "test-key"})
    base_path: str = ""


def _no_stream(body: Any) -> None:
    assert "stream" not in body and "stream_options" not in body, body


def _stream_false(body: Any) -> None:
    assert body["stream"] is False, body


OPENAI_CHAT = {
    "id": "chatcmpl-whole1",
    "object": "chat.completion",
    "model": "gpt-4o-2024-08-06",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": "Looking it up.",
                "refusal": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "weather", "arguments": '{"city": "Oslo"}'},
                    }
                ],
            },
        }
    ],
    "usage": {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19},
}

ANTHROPIC = {
    "id": "msg_whole1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [
        {"type": "thinking", "thinking": "Think.", "signature": "sig-1"},
        {"type": "text", "text": "Looking it up."},
        {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Oslo"}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 12, "output_tokens": 7},
}

CALL = [("weather", {"city": "Oslo"})]

CASES = [
    Case(
        "openai", "gpt-4o", "/chat/completions", OPENAI_CHAT, _no_stream,
        "Looking it up.", "tool_calls", (12, 7), CALL,
    ),
    Case(
        "groq", "llama-3.3-70b", "/chat/completions", OPENAI_CHAT, _no_stream,
        "Looking it up.", "tool_calls", (12, 7), CALL,
    ),
    Case(
        "anthropic", "claude-sonnet-4-5", "/v1/messages", ANTHROPIC, _no_stream,
        "Looking it up.", "tool_calls", (12, 7), CALL,
    ),
]  # fmt: skip
