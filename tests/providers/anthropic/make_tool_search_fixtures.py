"""Write ``fixtures/anthropic/tool_search_client_{1,2,3}/`` (run once, on purpose: ``python -m
tests.providers.anthropic.make_tool_search_fixtures``): the three turns of ``client.run`` with
a client-executed ``ToolSearch`` over deferred tools (docs/hosted-tools.md replays them). The
bodies are Messages SSE shaped as the recorded tool search streams (corpus category C:
``caller`` on tool use blocks, usage in ``message_start`` and ``message_delta``); the requests
are what the loop builds each turn, found by running it once over these bodies.
"""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import orjson

import llmbridge as lb
from tests.providers.fixture_writer import write_fixture

HEADERS = {"content-type": "text/event-stream", "request-id": "<redacted>"}
MODEL = "claude-sonnet-4-6"
QUESTION = "What is the USD to EUR exchange rate?"


def _event(data: dict[str, Any]) -> bytes:
    return b"event: " + data["type"].encode() + b"\ndata: " + orjson.dumps(data) + b"\n\n"


def turn(rid: str, *blocks: dict[str, Any], stop: str, output: int) -> bytes:
    usage = {"input_tokens": 812, "cache_creation_input_tokens": 0,
             "cache_read_input_tokens": 0, "output_tokens": 2}  # fmt: skip
    start = {"id": rid, "type": "message", "role": "assistant", "model": MODEL, "content": [],
             "stop_reason": None, "stop_sequence": None, "usage": usage}  # fmt: skip
    out = [_event({"type": "message_start", "message": start})]
    for i, block in enumerate(blocks):
        if block["type"] == "text":
            first = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": block["text"]}]
        else:
            first = {**block, "input": {}, "caller": {"type": "direct"}}
            raw = orjson.dumps(block["input"]).decode()
            half = len(raw) // 2
            deltas = [
                {"type": "input_json_delta", "partial_json": p}
                for p in ("", raw[:half], raw[half:])
            ]
        out.append(_event({"type": "content_block_start", "index": i, "content_block": first}))
        out.extend(_event({"type": "content_block_delta", "index": i, "delta": d}) for d in deltas)
        out.append(_event({"type": "content_block_stop", "index": i}))
    delta = {"stop_reason": stop, "stop_sequence": None}
    out.append(_event({"type": "message_delta", "delta": delta,
                       "usage": {**usage, "output_tokens": output}}))  # fmt: skip
    out.append(_event({"type": "message_stop"}))
    return b"".join(out)


BODIES = [
    turn(
        "msg_01ToolSearchClientFixture01",
        {"type": "text", "text": "Let me look for a currency tool."},
        {
            "type": "tool_use",
            "id": "toolu_01SearchFixture000000001",
            "name": "tool_search",
            "input": {"query": "currency exchange rate"},
        },
        stop="tool_use",
        output=41,
    ),
    turn(
        "msg_01ToolSearchClientFixture02",
        {
            "type": "tool_use",
            "id": "toolu_01RateFixture00000000001",
            "name": "exchange_rate",
            "input": {"base": "USD", "quote": "EUR"},
        },
        stop="tool_use",
        output=38,
    ),
    turn(
        "msg_01ToolSearchClientFixture03",
        {"type": "text", "text": "1 USD buys 0.92 EUR."},
        stop="end_turn",
        output=12,
    ),
]


def catalog() -> list[lb.ToolSpec]:
    """docs/hosted-tools.md's catalog: one visible tool and many deferred ones."""

    def weather(city: str) -> str:
        """Current weather in a city."""
        return "sunny"

    def exchange_rate(base: str, quote: str) -> str:
        """Current exchange rate between two currencies, e.g. USD and EUR."""
        return "0.92"

    specs = [lb.ToolSpec.from_function(weather)]
    specs.append(lb.ToolSpec.from_function(exchange_rate, defer_loading=True))
    for area in ("invoice", "ticket", "calendar", "inventory"):
        for verb in ("create", "list", "delete"):
            specs.append(_record_tool(f"{verb}_{area}", f"{verb.title()} {area} records."))
    return specs


def _record_tool(name: str, description: str) -> lb.ToolSpec:
    def run(record_id: str) -> str:
        return f"{name}: done"

    return lb.ToolSpec.from_function(run, name=name, description=description, defer_loading=True)


async def conversation() -> list[lb.ChatMessage]:
    """The loop's whole conversation over ``BODIES``."""
    answers = iter(BODIES)

    def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=next(answers), headers=HEADERS)

    http = httpx.AsyncClient(transport=httpx.MockTransport(handle))
    async with lb.Client(http_client=http, providers={"anthropic": {"api_key": "k"}}) as client:
        registry = lb.ToolRegistry(catalog())
        loop = client.run(
            f"anthropic:{MODEL}",
            [lb.ChatMessage.user(QUESTION)],
            tools=[*registry.specs(), lb.ToolSearch(execution="client")],
            max_tokens=1024,
        )
        async for _ in loop:
            pass
    return loop.messages


def main() -> None:
    messages = anyio.run(conversation)
    tools = [t.model_dump(mode="json") for t in catalog()]
    hosted = [lb.ToolSearch(execution="client").model_dump(mode="json", exclude_defaults=True)]
    for n, (upto, body) in enumerate(zip((1, 3, 5), BODIES, strict=True), start=1):
        request = {
            "messages": [m.model_dump(mode="json", exclude_none=True) for m in messages[:upto]],
            "tools": tools,
            "hosted_tools": hosted,
            "max_tokens": 1024,
        }
        path = write_fixture(
            provider_name="anthropic",
            scenario=f"tool_search_client_{n}",
            model=MODEL,
            request=request,
            body=body,
            headers=HEADERS,
        )
        print("wrote", path)


if __name__ == "__main__":
    main()
