"""Write ``fixtures/bedrock/<scenario>/`` (run once, on purpose: ``python -m
tests.providers.bedrock.make_fixtures``). There is no Bedrock server here: the bodies are
ConverseStream frames shaped as the recorded corpus streams are (AWS's ``p`` padding field
included), framed byte-exact by ``frames.py`` (botocore reads them back, CRCs checked); the
requests are what the provider builds (``tests/test_fixtures.py`` checks both directions).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

import llmbridge as lb
from llmbridge.types import ReasoningConfig, ResponseFormat, ToolSpec
from tests.providers.bedrock.frames import converse, exception
from tests.providers.fixture_writer import write_fixture

CONFIG = {"region": "us-east-1"}
HEADERS = {
    "content-type": "application/vnd.amazon.eventstream",
    "x-amzn-requestid": "<redacted>",
}
PAD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _p(n: int) -> str:
    return PAD[: 3 + (n * 7) % 50]


def _delta(i: int, index: int, delta: dict[str, Any]) -> tuple[str, Any]:
    return ("contentBlockDelta", {"contentBlockIndex": index, "delta": delta, "p": _p(i)})


def _meta(usage: dict[str, int], **more: Any) -> tuple[str, Any]:
    total = sum(
        usage.get(k, 0)
        for k in ("inputTokens", "outputTokens", "cacheReadInputTokens", "cacheWriteInputTokens")
    )
    return (
        "metadata",
        {
            "usage": {**usage, "totalTokens": total},
            "metrics": {"latencyMs": 412},
            "p": _p(9),
            **more,
        },
    )


WEATHER = ToolSpec.from_json_schema(
    "get_weather",
    "Current weather in a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def _text_stream(pieces: list[str], index: int = 0) -> list[tuple[str, Any]]:
    return [_delta(i, index, {"text": t}) for i, t in enumerate(pieces)]


SCENARIOS: dict[str, dict[str, Any]] = {
    "plain_text": {
        "model": "us.amazon.nova-micro-v1:0",
        "request": {
            "messages": [
                lb.ChatMessage.system("Answer in one sentence."),
                lb.ChatMessage.user("What is the capital of France?"),
            ],
            "max_tokens": 100,
            "temperature": 0.3,
        },
        "frames": [
            ("messageStart", {"p": _p(1), "role": "assistant"}),
            *_text_stream(["The capital", " of France", " is Paris", "."]),
            ("contentBlockStop", {"contentBlockIndex": 0, "p": _p(2)}),
            ("messageStop", {"p": _p(3), "stopReason": "end_turn"}),
            _meta({"inputTokens": 14, "outputTokens": 9}),
        ],
    },
    "reasoning_tool_call": {
        "model": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "request": {
            "messages": [lb.ChatMessage.user("Is it raining in Zürich?")],
            "tools": [WEATHER],
            "reasoning": ReasoningConfig(budget_tokens=1024),
            "max_tokens": 2048,
        },
        "frames": [
            ("messageStart", {"p": _p(1), "role": "assistant"}),
            _delta(1, 0, {"reasoningContent": {"text": "The user asks about Zürich's weather;"}}),
            _delta(2, 0, {"reasoningContent": {"text": " I should call get_weather."}}),
            _delta(
                3,
                0,
                {
                    "reasoningContent": {
                        "signature": "EqQBCkgIBxABGAIqQK9fZ3Jl2Q0tYyJvbWF0c2lnbmF0dXJlLXRlc3Q="
                    }
                },
            ),
            ("contentBlockStop", {"contentBlockIndex": 0, "p": _p(4)}),
            *_text_stream(["Let me check", " the weather."], index=1),
            ("contentBlockStop", {"contentBlockIndex": 1, "p": _p(5)}),
            (
                "contentBlockStart",
                {
                    "contentBlockIndex": 2,
                    "p": _p(6),
                    "start": {
                        "toolUse": {
                            "name": "get_weather",
                            "toolUseId": "tooluse_Zq3x9PcYRmWbq1oLk2A7fQ",
                        }
                    },
                },
            ),
            _delta(7, 2, {"toolUse": {"input": ""}}),
            _delta(8, 2, {"toolUse": {"input": '{"city": "Z'}}),
            _delta(9, 2, {"toolUse": {"input": '\\u00fcrich"}'}}),
            ("contentBlockStop", {"contentBlockIndex": 2, "p": _p(10)}),
            ("messageStop", {"p": _p(11), "stopReason": "tool_use"}),
            _meta(
                {
                    "inputTokens": 31,
                    "outputTokens": 87,
                    "cacheReadInputTokens": 1200,
                    "cacheWriteInputTokens": 0,
                }
            ),
        ],
    },
    "redacted_reasoning": {
        "model": "us.anthropic.claude-3-7-sonnet-20250219-v1:0",
        "request": {
            "messages": [lb.ChatMessage.user("Think, then say hi.")],
            "reasoning": ReasoningConfig(effort="low"),
        },
        "frames": [
            ("messageStart", {"p": _p(1), "role": "assistant"}),
            _delta(
                1,
                0,
                {
                    "reasoningContent": {
                        "redactedContent": "RXFvQkNrZ0lCeEFCR0FJcVFPcGFxdWUtcmVkYWN0ZWQ="
                    }
                },
            ),
            ("contentBlockStop", {"contentBlockIndex": 0, "p": _p(2)}),
            *_text_stream(["Hi!"], index=1),
            ("contentBlockStop", {"contentBlockIndex": 1, "p": _p(3)}),
            ("messageStop", {"p": _p(4), "stopReason": "end_turn"}),
            _meta({"inputTokens": 40, "outputTokens": 310}),
        ],
    },
    "guardrail_intervened": {
        "model": "amazon.titan-text-premier-v1:0",
        "config": {
            "guardrail_config": {
                "guardrailIdentifier": "5zwrmdlsra2e",
                "guardrailVersion": "DRAFT",
                "trace": "enabled",
            }
        },
        "request": {"messages": [lb.ChatMessage.user("Where is Tokyo?")]},
        "frames": [
            ("messageStart", {"p": _p(1), "role": "assistant"}),
            *_text_stream(["Sorry, I can't answer that."]),
            ("contentBlockStop", {"contentBlockIndex": 0, "p": _p(2)}),
            ("messageStop", {"p": _p(3), "stopReason": "guardrail_intervened"}),
            _meta(
                {"inputTokens": 9, "outputTokens": 8},
                trace={
                    "guardrail": {
                        "inputAssessment": {
                            "5zwrmdlsra2e": {
                                "topicPolicy": {
                                    "topics": [
                                        {"action": "BLOCKED", "name": "Geography", "type": "DENY"}
                                    ]
                                }
                            }
                        }
                    }
                },
            ),
        ],
    },
    "structured_output": {
        "model": "us.anthropic.claude-haiku-4-5-20251001-v1:0",
        "request": {
            "messages": [lb.ChatMessage.user("Capital of France, with population.")],
            "response_format": ResponseFormat(
                name="City",
                schema={
                    "type": "object",
                    "properties": {"city": {"type": "string"}, "population": {"type": "integer"}},
                    "required": ["city", "population"],
                    "additionalProperties": False,
                },
            ),
        },
        "frames": [
            ("messageStart", {"p": _p(1), "role": "assistant"}),
            *_text_stream(['{"city": "Pa', 'ris", "population"', ": 2102650}"]),
            ("contentBlockStop", {"contentBlockIndex": 0, "p": _p(2)}),
            ("messageStop", {"p": _p(3), "stopReason": "end_turn"}),
            _meta({"inputTokens": 120, "outputTokens": 14}),
        ],
    },
    "mid_stream_exception": {
        "model": "us.meta.llama3-3-70b-instruct-v1:0",
        "request": {"messages": [lb.ChatMessage.user("Tell me a long story.")]},
        "frames": [
            ("messageStart", {"p": _p(1), "role": "assistant"}),
            *_text_stream(["Once upon", " a time"]),
        ],
        "tail": exception("modelStreamErrorException", "Model stream failed; please retry."),
    },
    "throttled_before_stream": {
        "model": "us.amazon.nova-pro-v1:0",
        "request": {"messages": [lb.ChatMessage.user("hi")]},
        "status": 429,
        "headers": {
            "content-type": "application/json",
            "x-amzn-errortype": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
            "x-amzn-requestid": "<redacted>",
        },
        "body": b'{"message":"Too many requests, please wait before trying again."}',
    },
}


def write(name: str, spec: dict[str, Any]) -> Path:
    return write_fixture(
        provider_name="bedrock",
        scenario=name,
        model=spec["model"],
        request=spec["request"],
        body=spec.get("body") or converse(*spec["frames"]) + spec.get("tail", b""),
        headers=spec.get("headers", HEADERS),
        status=spec.get("status", 200),
        config={**CONFIG, **spec.get("config", {})},
    )


if __name__ == "__main__":
    for scenario, spec in SCENARIOS.items():
        path = write(scenario, spec)
        print("wrote", path, orjson.dumps(spec["model"]).decode())
