"""Write ``fixtures/cohere/<scenario>/`` (run once, on purpose: ``python -m
tests.providers.cohere.make_fixtures``). The bodies are v2 chat SSE shaped as the recorded
corpus streams (category I: ``event:`` named as the data's ``type``, ``data: [DONE]`` last, usage
with ``billed_units``, ``tokens`` and ``cached_tokens``); the requests are what the provider
builds.
"""

from __future__ import annotations

from typing import Any

import orjson

from tests.providers.fixture_writer import write_scenarios

HEADERS = {"content-type": "text/event-stream", "x-request-id": "<redacted>"}
MODEL = "command-a-03-2025"
WEATHER = {
    "name": "get_weather",
    "description": "Current weather in a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}


def _event(data: dict[str, Any]) -> bytes:
    return b"event: " + data["type"].encode() + b"\ndata: " + orjson.dumps(data) + b"\n\n"


def _start(rid: str) -> bytes:
    message = {
        "role": "assistant",
        "content": [],
        "tool_plan": "",
        "tool_calls": [],
        "citations": [],
    }
    return _event({"id": rid, "type": "message-start", "delta": {"message": message}})


def _content(index: int, kind: str, pieces: list[str]) -> bytes:
    out = _event(
        {
            "type": "content-start",
            "index": index,
            "delta": {"message": {"content": {"type": kind, kind: ""}}},
        }
    )
    for piece in pieces:
        out += _event(
            {
                "type": "content-delta",
                "index": index,
                "delta": {"message": {"content": {kind: piece}}},
            }
        )
    return out + _event({"type": "content-end", "index": index})


def _plan(pieces: list[str]) -> bytes:
    return b"".join(
        _event({"type": "tool-plan-delta", "delta": {"message": {"tool_plan": p}}}) for p in pieces
    )


def _call(index: int, call_id: str, name: str, pieces: list[str]) -> bytes:
    function = {"name": name, "arguments": ""}
    out = _event(
        {
            "type": "tool-call-start",
            "index": index,
            "delta": {
                "message": {"tool_calls": {"id": call_id, "type": "function", "function": function}}
            },
        }
    )
    for piece in pieces:
        out += _event(
            {
                "type": "tool-call-delta",
                "index": index,
                "delta": {"message": {"tool_calls": {"function": {"arguments": piece}}}},
            }
        )
    return out + _event({"type": "tool-call-end", "index": index})


def _end(reason: str, usage: dict[str, Any], **more: Any) -> bytes:
    delta = {"finish_reason": reason, "usage": usage, **more}
    return _event({"type": "message-end", "delta": delta}) + b"data: [DONE]\n\n"


def _usage(billed: tuple[int, int], tokens: tuple[int, int], cached: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {
        "billed_units": {"input_tokens": billed[0], "output_tokens": billed[1]},
        "tokens": {"input_tokens": tokens[0], "output_tokens": tokens[1]},
    }
    if cached:
        out["cached_tokens"] = cached
    return out


DOC = "The Amazon River is about 6,400 km long and flows through Peru, Colombia and Brazil."

SCENARIOS: dict[str, dict[str, Any]] = {
    "text": {
        "request": {"messages": [{"role": "user", "content": "A haiku about rivers."}]},
        "body": _start("0d7a6c1e-4f7b-4b53-9a3b-3c7f0a1d2e01")
        + _content(0, "text", ["Water", " finds", " the", " low", " road", "\n", "stones hum."])
        + _end("COMPLETE", _usage((6, 9), (502, 11))),
    },
    "tool_plan_parallel_calls": {
        "request": {
            "messages": [{"role": "user", "content": "Weather in Quito and Lima?"}],
            "tools": [WEATHER],
            "tool_choice": "required",
        },
        "body": _start("5b0f7e2a-1c3d-4e5f-8a9b-0c1d2e3f4a02")
        + _plan(["I", " will", " look", " up", " both", " cities", "."])
        + _call(0, "get_weather_a8k2m4q9z1x3", "get_weather", ['{"', "city", '": "', "Quito", '"}'])
        + _call(1, "get_weather_p0r7t5w2y6v4", "get_weather", ['{"', "city", '": "', "Lima", '"}'])
        + _end("TOOL_CALL", _usage((31, 40), (1508, 72), cached=1472)),
    },
    "citations_thinking": {
        "request": {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "How long is the Amazon? Use the document."},
                        {
                            "type": "document",
                            "data": "VGhlIEFtYXpvbiBSaXZlciBpcyBhYm91dCA2LDQwMCBrbSBsb25nIGFuZCBmbG93cyB0aHJvdWdoIFBlcnUsIENvbG9tYmlhIGFuZCBCcmF6aWwu",
                            "media_type": "text/plain",
                            "name": "amazon.txt",
                        },
                    ],
                }
            ],
            "reasoning": {"budget_tokens": 512},
        },
        "body": _start("9e8d7c6b-5a4f-4e3d-2c1b-0a9f8e7d6c03")
        + _content(0, "thinking", ["The document", " gives", " 6,400 km", "."])
        + _content(1, "text", ["The Amazon", " is about", " 6,400 km", " long."])
        + _event(
            {
                "type": "citation-start",
                "index": 0,
                "delta": {
                    "message": {
                        "citations": {
                            "start": 20,
                            "end": 28,
                            "text": "6,400 km",
                            "sources": [
                                {
                                    "type": "document",
                                    "id": "doc:0",
                                    "document": {"id": "doc:0", "text": DOC, "title": "amazon.txt"},
                                }
                            ],
                            "content_index": 1,
                            "type": "TEXT_CONTENT",
                        }
                    }
                },
            }
        )
        + _event({"type": "citation-end", "index": 0})
        + _end(
            "COMPLETE",
            {
                "billed_units": {"input_tokens": 40, "output_tokens": 12},
                "tokens": {"input_tokens": 640, "output_tokens": 31, "reasoning_tokens": 9},
                "cached_tokens": 128,
            },
        ),
    },
    "finish_error": {
        "request": {
            "messages": [{"role": "user", "content": "Which employee earns most?"}],
            "tools": [WEATHER],
        },
        "body": _start("1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c04")
        + _plan(["I", " will", " query", " the", " database", "."])
        + _end(
            "ERROR",
            {},
            error="your request resulted in an invalid tool generation. Try updating the "
            "messages or tool definitions",
            error_type="INVALID_TOOL_GENERATION",
        ),
    },
    "truncated": {
        "request": {"messages": [{"role": "user", "content": "A long story, please."}]},
        "body": _start("2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d05")
        + _event(
            {
                "type": "content-start",
                "index": 0,
                "delta": {"message": {"content": {"type": "text", "text": ""}}},
            }
        )
        + _event(
            {
                "type": "content-delta",
                "index": 0,
                "delta": {"message": {"content": {"text": "Once upon"}}},
            }
        ),
    },
    "rate_limited": {
        "request": {"messages": [{"role": "user", "content": "Hello?"}]},
        "status": 429,
        "headers": {"content-type": "application/json", "x-request-id": "<redacted>"},
        "body": b'{"id":"3c4d5e6f-7a8b-4c9d-0e1f-2a3b4c5d6e06","message":"You are using a Trial key, which is limited to 20 API calls / minute."}',
    },
}


if __name__ == "__main__":
    write_scenarios(
        SCENARIOS,
        provider_name="cohere",
        model=MODEL,
        headers=HEADERS,
    )
