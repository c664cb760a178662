"""Write ``fixtures/ollama-native/<scenario>/`` (run once, on purpose: ``python -m
tests.providers.ollama_native.make_fixtures``). The bodies are NDJSON lines shaped as the
recorded corpus streams (category H: ``created_at`` on every line, the counts and durations on
the ``done`` line, each tool call whole in one line); the requests are what the provider builds.
"""

from __future__ import annotations

from typing import Any

import orjson

from tests.providers.fixture_writer import write_scenarios

HEADERS = {"content-type": "application/x-ndjson"}
CONFIG = {"base_url": "http://localhost:11434"}  # not OLLAMA_HOST, whatever it says here
MODEL = "qwen3:8b"
WEATHER = {
    "name": "get_weather",
    "description": "Current weather in a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}


def _line(n: int, message: dict[str, Any] | None = None, **more: Any) -> bytes:
    line: dict[str, Any] = {
        "model": MODEL,
        "created_at": f"2026-05-04T10:21:{n // 100:02d}.{n % 100:02d}0000Z",
    }
    if message is not None:
        line["message"] = {"role": "assistant", "content": "", **message}
    line.update(more)
    line.setdefault("done", False)
    return orjson.dumps(line) + b"\n"


def _done(n: int, reason: str, prompt: int, output: int) -> bytes:
    return _line(
        n,
        {"content": ""},
        done=True,
        done_reason=reason,
        total_duration=912345678,
        load_duration=21345678,
        prompt_eval_count=prompt,
        prompt_eval_duration=81234567,
        eval_count=output,
        eval_duration=801234567,
    )


def _texts(pieces: list[str], field: str = "content", start: int = 0) -> bytes:
    return b"".join(_line(start + i, {field: p}) for i, p in enumerate(pieces))


SCENARIOS: dict[str, dict[str, Any]] = {
    "text": {
        "request": {"messages": [{"role": "user", "content": "A haiku about rivers."}]},
        "body": _texts(["Water", " finds", " the", " low", " road", "\n", "stones", " hum", "."])
        + _done(20, "stop", 14, 9),
    },
    "thinking_tool_call": {
        "request": {
            "messages": [{"role": "user", "content": "Weather in Quito and Lima?"}],
            "tools": [WEATHER],
            "reasoning": {"effort": "high"},
        },
        "body": _texts(["The user", " asks", " for two", " cities."], field="thinking")
        + _line(
            10,
            {
                "tool_calls": [
                    {"function": {"name": "get_weather", "arguments": {"city": "Quito"}}},
                ]
            },
        )
        + _line(
            11,
            {"tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Lima"}}}]},
        )
        + _done(12, "stop", 161, 48),
    },
    "structured_output": {
        "request": {
            "messages": [{"role": "user", "content": "Name a river and its length in km."}],
            "response_format": {
                "name": "river",
                "schema": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "km": {"type": "integer"}},
                    "required": ["name", "km"],
                },
            },
            "temperature": 0,
            "seed": 42,
        },
        "config": {"num_ctx": 8192, "keep_alive": "10m"},
        "body": _texts(['{"name"', ': "Amazon"', ', "km"', ": 6400}"]) + _done(8, "stop", 22, 12),
    },
    "length": {
        "request": {
            "messages": [{"role": "user", "content": "Tell me everything about rivers."}],
            "max_tokens": 4,
        },
        "body": _texts(["Rivers", " are", " flowing", " bodies"]) + _done(5, "length", 15, 4),
    },
    "error_mid_stream": {
        "request": {"messages": [{"role": "user", "content": "A long story, please."}]},
        "body": _texts(["Once", " upon"])
        + orjson.dumps(
            {"error": "an error was encountered while running the model: unexpected EOF"}
        )
        + b"\n",
    },
    "model_not_found": {
        "request": {"messages": [{"role": "user", "content": "Hello?"}]},
        "status": 404,
        "headers": {"content-type": "application/json; charset=utf-8"},
        "body": b'{"error":"model \\"qwen3:8b\\" not found, try pulling it first"}',
    },
}


if __name__ == "__main__":
    write_scenarios(
        SCENARIOS, provider_name="ollama-native", model=MODEL, headers=HEADERS, config=CONFIG
    )
