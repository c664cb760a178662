"""Structured output on real recordings (``../shared/corpus``) and on the repo's fixtures, read
by llmbridge and by the official SDKs' own parse helpers: both must get the same typed value.

For every recorded stream whose request asked for a JSON schema (Anthropic
``output_config.format``, Responses ``text.format``, Gemini ``responseJsonSchema``) and for the
Chat Completions fixture: ``complete(..., response_format=Model).parsed`` equals what the SDK
parses from the same bytes, and the ``PartialObject`` events of ``stream()`` end in that value,
each a prefix-consistent shape of it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import BaseModel, Field

import llmbridge as lb
from llmbridge.testing import iter_sse, load_fixture
from tests.corpus import body as corpus_body
from tests.corpus import entries, missing, present, request_body
from tests.test_partial_values import consistent

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


class Dog(BaseModel):
    name: str
    age: int
    bio: str


class CityLocation(BaseModel):
    city: str
    country: str


class Weather(BaseModel):
    city: str
    celsius: float


MODELS: dict[str, type[BaseModel]] = {"Dog": Dog, "CityLocation": CityLocation}
PROVIDERS = {"anthropic": "anthropic", "openai": "openai-responses", "gemini": "gemini"}


def requested_schema(request: dict[str, Any]) -> dict[str, Any] | None:
    config = request.get("generationConfig") or {}
    return (
        (request.get("output_config") or {}).get("format", {}).get("schema")
        or (request.get("text") or {}).get("format", {}).get("schema")
        or config.get("responseJsonSchema")
        or config.get("responseSchema")
    )


def structured_recordings() -> list[Any]:
    out = []
    for category in ("B", "C", "D"):
        for param in entries(category):
            entry = param.values[0]
            if entry is None:
                return [param]
            request = request_body(entry)
            schema = requested_schema(request) if request else None
            answered = "text" in entry["contains"]  # not a tool-call turn
            if schema is not None and schema.get("title") in MODELS and answered:
                out.append(param)
    return out


def _client(provider: str, body: bytes) -> lb.Client:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    return lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(answer)),
        providers={provider: {"api_key": "k"}},
    )


async def read_both_ways(
    provider: str, model: str, body: bytes, target: type[BaseModel]
) -> tuple[BaseModel, list[Any]]:
    messages = [lb.ChatMessage.user("go")]
    async with _client(provider, body) as client:
        response = await client.complete(f"{provider}:{model}", messages, response_format=target)
        partials = [
            e.value
            async for e in client.stream(f"{provider}:{model}", messages, response_format=target)
            if isinstance(e, lb.PartialObject)
        ]
    return response.parsed, partials


def sdk_parsed(provider: str, body: bytes, target: type[BaseModel], model: str) -> Any:
    """What the official SDK parses out of the same stream."""

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    http = httpx.Client(transport=httpx.MockTransport(answer))
    if provider == "anthropic":
        streaming = pytest.importorskip("anthropic.lib.streaming._messages")
        parse = pytest.importorskip("anthropic.lib._parse._response")
        snapshot, bufs = None, {}
        for _, data in iter_sse(body):
            event = json.loads(data)
            if event["type"] not in ("ping", "error"):
                snapshot = streaming.accumulate_event(
                    event=event, current_snapshot=snapshot, json_bufs=bufs, output_format=target
                )
        message = parse.parse_response(output_format=target, response=snapshot)
        return message.parsed_output
    if provider == "openai-responses":
        openai = pytest.importorskip("openai")
        sdk = openai.OpenAI(api_key="k", base_url="http://sdk.test/v1", http_client=http)
        with sdk.responses.stream(model=model, input="go", text_format=target) as stream:
            return stream.get_final_response().output_parsed
    genai_types = pytest.importorskip("google.genai.types")
    text = ""
    for line in body.decode().splitlines():
        if line.startswith("data:"):
            chunk = genai_types.GenerateContentResponse.model_validate_json(line[5:])
            parts = chunk.candidates[0].content.parts if chunk.candidates else None
            text += "".join(p.text for p in parts or [] if p.text and not p.thought)
    return target.model_validate_json(text)


@pytest.mark.parametrize("entry", structured_recordings())
async def test_recorded_structured_streams_parse_as_the_sdks_parse_them(
    entry: dict[str, Any],
) -> None:
    request = request_body(entry)
    assert request is not None
    schema = requested_schema(request)
    assert schema is not None
    target = MODELS[schema["title"]]
    provider = PROVIDERS[entry["provider"]]
    model = request.get("model") or entry["uri"].split("/models/")[1].split(":")[0]
    body = corpus_body(entry)
    parsed, partials = await read_both_ways(provider, model, body, target)
    assert isinstance(parsed, target)
    assert parsed == sdk_parsed(provider, body, target, model)
    assert partials and partials[-1] == parsed.model_dump()
    assert all(consistent(p, partials[-1]) for p in partials)


def test_the_corpus_has_structured_recordings_of_three_apis() -> None:
    if not present():
        missing()
    providers = {p.values[0]["provider"] for p in structured_recordings()}
    assert providers == {"anthropic", "openai", "gemini"}


class City(BaseModel):
    name: str
    country: str
    population_millions: float


CHAT_FIXTURES = [
    ("openai", "openai/structured_weather", Weather),
    ("llamacpp", "llamacpp/structured_city", City),  # recorded from the real llama-server
]


def openai_sdk(body: bytes) -> Any:
    """The official openai client, answered with ``body`` as a stream."""
    openai = pytest.importorskip("openai")

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    http = httpx.Client(transport=httpx.MockTransport(answer))
    return openai.OpenAI(api_key="k", base_url="http://sdk.test/v1", http_client=http)


@pytest.mark.parametrize(("provider", "name", "target"), CHAT_FIXTURES, ids=lambda v: str(v))
async def test_chat_completions_fixtures_parse_as_the_openai_sdk_parses_them(
    provider: str, name: str, target: type[BaseModel]
) -> None:
    fx = load_fixture(FIXTURES / name)
    parsed, partials = await read_both_ways(provider, fx.model.split(":", 1)[1], fx.body, target)
    sdk = openai_sdk(fx.body)
    sdk_values = []
    with sdk.chat.completions.stream(model="m", messages=[], response_format=target) as stream:
        for event in stream:
            if event.type == "content.delta" and event.parsed is not None:
                sdk_values.append(event.parsed)
        final = stream.get_final_completion().choices[0].message.parsed
    assert isinstance(parsed, target) and parsed == final
    assert partials[-1] == sdk_values[-1] == parsed.model_dump()
    assert all(consistent(p, parsed.model_dump()) for p in partials)


def test_the_openai_sdks_partials_contradict_the_final_value_where_ours_do_not() -> None:
    """Where the two differ on purpose: the SDK shows a number before it is complete
    (celsius -3, then gone, then -3.5); ours never show a value the final one contradicts."""
    fx = load_fixture(FIXTURES / "openai" / "structured_weather")
    sdk = openai_sdk(fx.body)
    with sdk.chat.completions.stream(model="m", messages=[], response_format=Weather) as stream:
        sdk_values = [e.parsed for e in stream if e.type == "content.delta"]
    assert {"city": "Oslo", "celsius": -3} in sdk_values


class Recipe(BaseModel):
    title: str
    minutes: int = Field(ge=1, description="Total time")
    steps: list[str]


async def test_anthropic_fixture_parses_as_the_anthropic_sdk_parses_it() -> None:
    fx = load_fixture(FIXTURES / "anthropic" / "structured_output")
    model = fx.model.split(":", 1)[1]
    parsed, partials = await read_both_ways("anthropic", model, fx.body, Recipe)
    assert parsed == sdk_parsed("anthropic", fx.body, Recipe, model)
    assert parsed.steps == ["Roast the tomatoes", "Blend with stock", "Season and serve"]
    assert partials[0] == {} and partials[-1] == parsed.model_dump()
    assert {"title": "Tomato soup", "minutes": 25, "steps": ["Roast the tomatoes", "Blend"]} in (
        partials
    )  # a list item shows as it streams
