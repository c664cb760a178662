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

RESPONSES = {
    "id": "resp_whole1",
    "object": "response",
    "status": "completed",
    "model": "gpt-5",
    "output": [
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "Think."}],
            "encrypted_content": "enc-1",
        },
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "Looking it up.", "annotations": []}],
        },
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "weather",
            "arguments": '{"city": "Oslo"}',
            "status": "completed",
        },
    ],
    "usage": {"input_tokens": 12, "output_tokens": 7, "total_tokens": 19},
}

GEMINI = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"text": "Think.", "thought": True},
                    {"text": "Looking it up."},
                    {"functionCall": {"name": "weather", "args": {"city": "Oslo"}}},
                ],
            },
            "finishReason": 1,  # an enum number, as some servers write it
        }
    ],
    "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 5, "thoughtsTokenCount": 2},
    "modelVersion": "gemini-2.5-flash",
    "responseId": "gem-whole1",
}

CONVERSE = {
    "output": {
        "message": {
            "role": "assistant",
            "content": [
                {"reasoningContent": {"reasoningText": {"text": "Think.", "signature": "sig-1"}}},
                {"text": "Looking it up."},
                {
                    "toolUse": {
                        "toolUseId": "tooluse_1",
                        "name": "weather",
                        "input": {"city": "Oslo"},
                    }
                },
            ],
        }
    },
    "stopReason": "tool_use",
    "usage": {"inputTokens": 12, "outputTokens": 7, "totalTokens": 19},
    "metrics": {"latencyMs": 321},
}

COHERE = {
    "id": "co-whole1",
    "finish_reason": "TOOL_CALL",
    "message": {
        "role": "assistant",
        "content": [{"type": "text", "text": "Looking it up."}],
        "tool_plan": "I will look up the weather.",
        "tool_calls": [
            {
                "id": "weather_1",
                "type": "function",
                "function": {"name": "weather", "arguments": '{"city": "Oslo"}'},
            }
        ],
    },
    "usage": {"tokens": {"input_tokens": 12, "output_tokens": 7}},
}

OLLAMA = {
    "model": "qwen3:8b",
    "created_at": "2026-01-02T03:04:05Z",
    "message": {
        "role": "assistant",
        "content": "Looking it up.",
        "thinking": "Think.",
        "tool_calls": [{"function": {"name": "weather", "arguments": {"city": "Oslo"}}}],
    },
    "done": True,
    "done_reason": "stop",
    "prompt_eval_count": 12,
    "eval_count": 7,
}

CALL = [("weather", {"city": "Oslo"})]
AWS = {"api_key": "test-key", "region": "us-east-1"}
GOOGLE = {"access_token": "test-token", "project": "demo-project", "location": "global"}

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
    Case(
        "anthropic-bedrock", "anthropic.claude-sonnet-4-5-v1:0",
        "/model/anthropic.claude-sonnet-4-5-v1:0/invoke", ANTHROPIC, _no_stream,
        "Looking it up.", "tool_calls", (12, 7), CALL, config=AWS,
    ),
    Case(
        "anthropic-vertex", "claude-sonnet-4-5",
        "/publishers/anthropic/models/claude-sonnet-4-5:rawPredict", ANTHROPIC, _no_stream,
        "Looking it up.", "tool_calls", (12, 7), CALL, config=GOOGLE,
    ),
    Case(
        "openai-responses", "gpt-5", "/responses", RESPONSES, _stream_false,
        "Looking it up.", "tool_calls", (12, 7), CALL,
    ),
    Case(
        "gemini", "gemini-2.5-flash", "/models/gemini-2.5-flash:generateContent", GEMINI,
        _no_stream, "Looking it up.", "tool_calls", (12, 7), CALL,
    ),
    Case(
        "vertex", "gemini-2.5-flash",
        "/publishers/google/models/gemini-2.5-flash:generateContent", GEMINI, _no_stream,
        "Looking it up.", "tool_calls", (12, 7), CALL, config=GOOGLE,
    ),
    Case(
        "bedrock", "amazon.nova-pro-v1:0", "/model/amazon.nova-pro-v1%3A0/converse", CONVERSE,
        _no_stream, "Looking it up.", "tool_calls", (12, 7), CALL, config=AWS,
    ),
    Case(
        "cohere", "command-a-03-2025", "/v2/chat", COHERE, _stream_false,
        "Looking it up.", "tool_calls", (12, 7), CALL,
    ),
    Case(
        "ollama-native", "qwen3:8b", "/api/chat", OLLAMA, _stream_false,
        "Looking it up.", "tool_calls", (12, 7), CALL, config={},
    ),
]  # fmt: skip
