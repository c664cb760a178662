"""The prompt fallback for structured output: models with no JSON mode (Claude before 4.5),
servers with a JSON mode but no schema (DeepSeek's ``json_object``), and ``format_mode=``.

What a user notices: the request the provider gets (schema in the system prompt, no field
the API would reject), the warning in ``StreamStart.warnings``, and ``parsed`` read from
replies that wrap the JSON in prose or a code fence."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

import llmbridge as lb
from tests.fakes import RecordingServer as Server
from tests.fakes import chat_sse, named_sse

pytestmark = pytest.mark.anyio


class Weather(BaseModel):
    city: str
    celsius: float


PROSE_REPLY = 'Sure! Here is the weather:\n\n```json\n{"city": "Oslo", "celsius": -3.5}\n```\n'


def openai_body(text: str) -> bytes:
    return chat_sse(*({"content": text[i : i + 11]} for i in range(0, len(text), 11)))


def anthropic_body(text: str) -> bytes:
    def event(name: str, data: dict[str, Any]) -> bytes:
        return named_sse({"type": name, **data})

    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-3-5-haiku-20241022",
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 20, "output_tokens": 1},
    }
    out = [
        event("message_start", {"message": message}),
        event("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
    ]
    for i in range(0, len(text), 13):
        delta = {"type": "text_delta", "text": text[i : i + 13]}
        out.append(event("content_block_delta", {"index": 0, "delta": delta}))
    out += [
        event("content_block_stop", {"index": 0}),
        event(
            "message_delta",
            {"delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 30}},
        ),
        event("message_stop", {}),
    ]
    return b"".join(out)


def client(server: Server, provider: str) -> lb.Client:
    return lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),
        providers={provider: {"api_key": "k"}},
    )


def system_text(body: dict[str, Any]) -> str:
    system = body.get("system")
    if isinstance(system, list):
        return "".join(block["text"] for block in system)
    if isinstance(system, str):
        return system
    first = body["messages"][0]
    assert first["role"] == "system"
    content = first["content"]
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


async def test_a_claude_model_without_structured_outputs_gets_the_schema_in_the_prompt() -> None:
    server = Server(anthropic_body(PROSE_REPLY))
    async with client(server, "anthropic") as c:
        events = [
            e
            async for e in c.stream(
                "anthropic:claude-3-5-haiku-latest",
                [lb.ChatMessage.system("Be brief."), lb.ChatMessage.user("Weather in Oslo?")],
                response_format=Weather,
            )
        ]
        response = await c.complete(
            "anthropic:claude-3-5-haiku-latest",
            [lb.ChatMessage.user("Weather in Oslo?")],
            response_format=Weather,
        )
    body = server.sent[0]
    assert "output_config" not in body  # the API would reject it for this model
    prompt = system_text(body)
    assert prompt.startswith("Be brief.\n\n") and '"celsius"' in prompt and "JSON" in prompt
    start = events[0]
    assert isinstance(start, lb.StreamStart)
    assert any("has no JSON mode" in w for w in start.warnings)
    partials = [e.value for e in events if isinstance(e, lb.PartialObject)]
    assert partials[-1] == {"city": "Oslo", "celsius": -3.5}
    assert response.parsed == Weather(city="Oslo", celsius=-3.5)


async def test_a_claude_model_with_structured_outputs_gets_output_config_and_no_prompt() -> None:
    server = Server(anthropic_body('{"city": "Oslo", "celsius": 2}'))
    async with client(server, "anthropic") as c:
        response = await c.complete(
            "anthropic:claude-sonnet-4-5",
            [lb.ChatMessage.user("Weather in Oslo?")],
            response_format=Weather,
        )
    body = server.sent[0]
    assert body["output_config"]["format"]["type"] == "json_schema"
    assert "system" not in body
    assert response.parsed == Weather(city="Oslo", celsius=2)


async def test_a_json_object_server_gets_the_schema_in_the_prompt_and_its_json_mode() -> None:
    server = Server(openai_body('{"city": "Oslo", "celsius": 1}'))
    async with client(server, "deepseek") as c:
        events = [
            e
            async for e in c.stream(
                "deepseek:deepseek-chat",
                [lb.ChatMessage.user("Weather in Oslo?")],
                response_format=Weather,
            )
        ]
    body = server.sent[0]
    assert body["response_format"] == {"type": "json_object"}
    assert '"celsius"' in system_text(body)
    start = next(e for e in events if isinstance(e, lb.StreamStart))
    assert start.warnings == [
        "response_format: deepseek takes no JSON schema; sent as json_object, so the schema "
        "is not enforced (it is in the system prompt)"
    ]


async def test_format_mode_prompt_sends_no_response_format_anywhere() -> None:
    server = Server(openai_body(PROSE_REPLY))
    async with client(server, "openai") as c:
        response = await c.complete(
            "openai:gpt-4.1-mini",
            [lb.ChatMessage.user("Weather in Oslo?")],
            response_format=Weather,
            format_mode="prompt",
        )
    body = server.sent[0]
    assert "response_format" not in body and '"celsius"' in system_text(body)
    assert response.parsed == Weather(city="Oslo", celsius=-3.5)


async def test_format_mode_native_never_touches_the_prompt() -> None:
    server = Server(openai_body('{"city": "Oslo", "celsius": 1}'))
    async with client(server, "deepseek") as c:
        await c.complete(
            "deepseek:deepseek-chat",
            [lb.ChatMessage.user("Weather in Oslo?")],
            response_format=Weather,
            format_mode="native",
        )
    body = server.sent[0]
    assert body["response_format"] == {"type": "json_object"}
    assert all(m["role"] != "system" for m in body["messages"])


async def test_prose_around_bare_json_is_read() -> None:
    server = Server(openai_body('The answer: {"city": "Oslo", "celsius": 4} as asked.'))
    async with client(server, "openai") as c:
        response = await c.complete(
            "openai:gpt-4.1-mini",
            [lb.ChatMessage.user("Weather in Oslo?")],
            response_format=Weather,
            format_mode="prompt",
        )
    assert response.parsed == Weather(city="Oslo", celsius=4)


async def test_count_tokens_counts_the_prompt_the_prompt_mode_sends() -> None:
    seen: list[dict[str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(200, json={"input_tokens": 99})

    async with lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(answer)),
        providers={"anthropic": {"api_key": "k"}},
    ) as c:
        count = await c.count_tokens(
            "anthropic:claude-3-5-haiku-latest",
            [lb.ChatMessage.user("Weather in Oslo?")],
            response_format=Weather,
        )
    assert count == 99 and '"celsius"' in system_text(seen[0])
