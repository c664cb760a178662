"""``response_format=`` with a type: the schema each provider is sent, and ``ChatResponse.parsed``
(a validated value) or a ``StructuredOutputError`` that keeps the raw text and the response."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

import llmbridge as lb
from tests.fakes import RecordingServer as Server
from tests.fakes import chat_sse

pytestmark = pytest.mark.anyio


class Weather(BaseModel):
    city: str
    celsius: float


class Item(BaseModel):
    name: str


def text_stream(text: str, finish: str = "stop") -> bytes:
    return chat_sse(
        {"content": text[: len(text) // 2]}, {"content": text[len(text) // 2 :]}, finish=finish
    )


async def complete(server: Server, response_format: Any) -> lb.ChatResponse:
    async with lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),
        providers={"openai": {"api_key": "k"}},
    ) as client:
        return await client.complete(
            "openai:gpt-4.1-mini",
            [lb.ChatMessage.user("Weather in Oslo?")],
            response_format=response_format,
        )


async def test_a_model_class_gives_a_model_instance_and_a_strict_named_schema() -> None:
    server = Server(text_stream('{"city": "Oslo", "celsius": -3.5}'))
    response = await complete(server, Weather)
    assert response.parsed == Weather(city="Oslo", celsius=-3.5)
    sent = server.sent[0]["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["name"] == "Weather"
    schema = sent["json_schema"]["schema"]
    assert schema["additionalProperties"] is False and set(schema["required"]) == {
        "city",
        "celsius",
    }


async def test_any_type_pydantic_describes_and_plain_schemas() -> None:
    response = await complete(Server(text_stream('[{"name": "a"}, {"name": "b"}]')), list[Item])
    assert response.parsed == [Item(name="a"), Item(name="b")]
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "title": "Count"}
    server = Server(text_stream('{"n": 3}'))
    assert (await complete(server, schema)).parsed == {"n": 3}
    assert server.sent[0]["response_format"]["json_schema"]["name"] == "Count"


async def test_json_in_a_code_fence_is_read() -> None:
    text = 'Here you go:\n```json\n{"city": "Oslo", "celsius": 1}\n```'
    assert (await complete(Server(text_stream(text)), Weather)).parsed.celsius == 1


async def test_invalid_replies_raise_with_the_raw_text_and_the_response() -> None:
    with pytest.raises(lb.StructuredOutputError, match="does not fit Weather") as caught:
        await complete(Server(text_stream('{"city": "Oslo"}')), Weather)
    error = caught.value
    assert error.raw_text == '{"city": "Oslo"}' and error.errors[0]["loc"] == ("celsius",)
    assert error.partial is not None and error.partial.text == '{"city": "Oslo"}'
    with pytest.raises(lb.StructuredOutputError, match="not JSON"):
        await complete(Server(text_stream("Sunny, about 20 degrees.")), Weather)
    with pytest.raises(lb.StructuredOutputError, match="cut off"):
        await complete(Server(text_stream('{"city": "Os', finish="length")), Weather)


async def test_a_refusal_is_reported_as_one() -> None:
    server = Server(chat_sse({"refusal": "I can't help with that."}))
    with pytest.raises(lb.StructuredOutputError, match="refused") as caught:
        await complete(server, Weather)
    assert caught.value.refusal == "I can't help with that."


def test_types_pydantic_cannot_describe_are_a_usage_error() -> None:
    with pytest.raises(lb.UsageError, match="response_format"):
        lb.Client().build_request("m", [lb.ChatMessage.user("x")], response_format=object())


async def test_run_gives_the_final_answer_typed_after_tool_turns() -> None:
    call = chat_sse(
        {"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                         "function": {"name": "temperature", "arguments": '{"city": "Oslo"}'}}]},
        finish="tool_calls",
    )  # fmt: skip
    bodies = [call, text_stream('{"city": "Oslo", "celsius": -3.5}')]
    sent: list[dict[str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        body = bodies[len(sent) - 1]
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    def temperature(city: str) -> float:
        """Current temperature in Celsius."""
        return -3.5

    async with lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(answer)),
        providers={"openai": {"api_key": "k"}},
    ) as client:
        loop = client.run(
            "openai:gpt-4.1-mini",
            [lb.ChatMessage.user("Weather in Oslo?")],
            tools=[temperature],
            response_format=Weather,
        )
        kinds = [event.type async for event in loop]
    assert loop.stop_reason == "final" and loop.steps == 2
    assert loop.response is not None
    assert loop.response.parsed == Weather(city="Oslo", celsius=-3.5)
    assert "partial_object" in kinds
    assert all(body["response_format"]["type"] == "json_schema" for body in sent)


def test_sync_client_complete_gives_the_typed_value() -> None:
    server = Server(text_stream('{"city": "Oslo", "celsius": 1}'))
    with lb.SyncClient(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),
        providers={"openai": {"api_key": "k"}},
    ) as client:
        response = client.complete(
            "openai:gpt-4.1-mini", [lb.ChatMessage.user("Oslo?")], response_format=Weather
        )
        partials = [
            e.value
            for e in client.stream(
                "openai:gpt-4.1-mini", [lb.ChatMessage.user("Oslo?")], response_format=Weather
            )
            if isinstance(e, lb.PartialObject)
        ]
    assert response.parsed == Weather(city="Oslo", celsius=1)
    assert partials[-1] == {"city": "Oslo", "celsius": 1}


async def test_a_reply_stopped_by_the_content_filter_is_a_refusal() -> None:
    server = Server(text_stream('{"city": "Os', finish="content_filter"))
    with pytest.raises(lb.StructuredOutputError, match="refusal or its content filter") as caught:
        await complete(server, Weather)
    assert caught.value.refusal == '{"city": "Os'
    assert caught.value.partial is not None and caught.value.partial.finish_reason == (
        "content_filter"
    )
