"""``gemini-interactions:`` in whole conversations, on an httpx ``MockTransport``: the tool loop
(the call's id and the thought signature go back in the next request), a fallback chain,
structured output with partial objects, and a conversation carried to and from other providers
(with the warnings of what cannot carry over)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import orjson
import pytest
from pydantic import BaseModel

import llmbridge as lb
from llmbridge.providers.gemini_interactions.request import build_body
from tests.providers.interactions.sdk import strays
from tests.providers.interactions.streams import sse

pytestmark = pytest.mark.anyio

MODEL = "gemini-interactions:gemini-3-flash-preview"
KEYS: dict[str, dict[str, Any]] = {"gemini-interactions": {"api_key": "AIza-test"}}


def _turn(steps: list[list[dict[str, Any]]], status: str = "completed") -> bytes:
    """An interaction's stream: ``steps`` are each a start event's step + its deltas."""
    events: list[dict[str, Any]] = [
        {
            "event_type": "interaction.created",
            "interaction": {"id": "v1_t", "status": "in_progress"},
        }
    ]
    for index, (step, *deltas) in enumerate(steps):
        events.append({"event_type": "step.start", "index": index, "step": step})
        events += [{"event_type": "step.delta", "index": index, "delta": d} for d in deltas]
        events.append({"event_type": "step.stop", "index": index})
    usage = {"total_input_tokens": 4, "total_output_tokens": 3}
    end = {"id": "v1_t", "status": status, "usage": usage}
    return sse([*events, {"event_type": "interaction.completed", "interaction": end}])


def _text(*pieces: str) -> list[dict[str, Any]]:
    return [{"type": "model_output"}, *({"type": "text", "text": p} for p in pieces)]


def _server(bodies: list[bytes], seen: list[dict[str, Any]]) -> Callable[..., httpx.Response]:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(orjson.loads(request.content))
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=bodies[len(seen) - 1]
        )

    return handler


async def test_the_tool_loop_sends_the_call_its_result_and_the_signed_thought_back() -> None:
    thought = [{"type": "thought"}, {"type": "thought_signature", "signature": "c2ln"}]
    call = [
        {"type": "function_call", "id": "fc_1", "name": "add", "arguments": {}},
        {"type": "arguments_delta", "arguments": '{"a": 2, "b": 3}'},
    ]
    seen: list[dict[str, Any]] = []
    bodies = [_turn([thought, call], "requires_action"), _turn([_text("It is ", "5.")])]
    http = httpx.AsyncClient(transport=httpx.MockTransport(_server(bodies, seen)))

    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    async with lb.Client(http_client=http, providers=KEYS) as client:
        loop = client.run(MODEL, "2 + 3?", tools=[add])
        _ = [e async for e in loop]
    assert loop.response is not None and loop.response.text == "It is 5."
    second = seen[1]["input"]
    assert strays(seen[1]) == []
    assert [s["type"] for s in second] == [
        "user_input",
        "thought",
        "function_call",
        "function_result",
    ]
    assert second[1]["signature"] == "c2ln"
    assert second[2] == {
        "type": "function_call",
        "id": "fc_1",
        "name": "add",
        "arguments": {"a": 2, "b": 3},
    }
    assert second[3] == {"type": "function_result", "call_id": "fc_1", "name": "add", "result": "5"}


async def test_a_fallback_chain_moves_on_to_interactions() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if "anthropic" in request.url.host:
            return httpx.Response(
                529,
                json={"type": "error", "error": {"type": "overloaded_error", "message": "busy"}},
            )
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=_turn([_text("Hi.")])
        )

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    keys = {**KEYS, "anthropic": {"api_key": "sk-ant"}}
    async with lb.Client(
        http_client=http, providers=keys, retry=lb.RetryPolicy(max_attempts=1)
    ) as client:
        response = await client.complete(["anthropic:claude-sonnet-4-5", MODEL], "Hello")
    assert response.text == "Hi."


async def test_structured_output_streams_partial_objects_and_parses() -> None:
    class City(BaseModel):
        name: str
        people: int

    seen: list[dict[str, Any]] = []
    body = _turn([_text('{"name": "Pa', 'ris", "peo', 'ple": 2100000}')])
    http = httpx.AsyncClient(transport=httpx.MockTransport(_server([body, body], seen)))
    async with lb.Client(http_client=http, providers=KEYS) as client:
        partials = [
            e.value
            async for e in client.stream(MODEL, "Paris?", response_format=City)
            if isinstance(e, lb.PartialObject)
        ]
        response = await client.complete(MODEL, "Paris?", response_format=City)
    assert partials[0] == {"name": "Pa"} and partials[-1] == {"name": "Paris", "people": 2100000}
    assert response.parsed == City(name="Paris", people=2100000)
    assert seen[0]["response_format"]["schema"]["required"] == ["name", "people"]


def test_a_conversation_carries_over_from_and_to_interactions() -> None:
    ours = lb.ReasoningPart(text="t", signature="c2ln", provider="gemini-interactions")
    step = lb.RawPart(
        provider="gemini-interactions", data={"type": "google_search_call", "id": "g"}
    )
    call = lb.ToolCallPart(id="fc_1", name="add", arguments={"a": 1})
    history = [
        lb.ChatMessage.user("hi"),
        lb.ChatMessage(role="assistant", content=[ours, step, call]),
        lb.ChatMessage.tool_result("fc_1", "2"),
    ]
    from llmbridge.providers.anthropic import create as anthropic

    provider = anthropic(lb.ProviderConfig.from_mapping({"api_key": "sk-ant"}))
    prepared = provider.prepare(lb.ChatRequest(model="claude-sonnet-4-5", messages=history))
    assert any("gemini-interactions" in w and "reasoning" in w for w in prepared.warnings)
    assert any("gemini-interactions" in w and "item" in w for w in prepared.warnings)
    sent = orjson.dumps(prepared.http.json).decode()
    assert "c2ln" not in sent and "fc_1" in sent  # the call and its result carry over

    theirs = lb.ReasoningPart(text="t", signature="gsig", provider="gemini")
    back = [history[0], lb.ChatMessage(role="assistant", content=[theirs, call]), history[2]]
    body, warnings = build_body(
        lb.ChatRequest(model="gemini-3-flash-preview", messages=back),
        provider="gemini-interactions",
    )
    assert [s["type"] for s in body["input"]] == ["user_input", "function_call", "function_result"]
    assert any("from gemini" in w for w in warnings) and strays(body) == []


async def test_models_are_the_gemini_apis_and_tokens_cannot_be_counted() -> None:
    listing = {"models": [{"name": "models/gemini-3-flash-preview", "inputTokenLimit": 10}]}
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=listing)

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    async with lb.Client(http_client=http, providers=KEYS) as client:
        models = await client.list_models("gemini-interactions")
        with pytest.raises(lb.ConfigurationError, match="token-counting"):
            await client.count_tokens(MODEL, "hi")
    assert [(m.id, m.provider) for m in models] == [
        ("gemini-3-flash-preview", "gemini-interactions")
    ]
    assert seen[0].url.path == "/v1/models" and seen[0].headers["x-goog-api-key"] == "AIza-test"


async def test_an_error_event_midway_is_typed_with_the_partial_kept() -> None:
    events = [
        {
            "event_type": "interaction.created",
            "interaction": {"id": "v1_e", "status": "in_progress"},
        },
        {"event_type": "step.start", "index": 0, "step": {"type": "model_output"}},
        {"event_type": "step.delta", "index": 0, "delta": {"type": "text", "text": "Half an"}},
        {"event_type": "error", "error": {"code": "INTERNAL", "message": "backend died"}},
    ]
    body = sse(events)
    http = httpx.AsyncClient(
        transport=httpx.MockTransport(
            lambda r: httpx.Response(
                200, headers={"content-type": "text/event-stream"}, content=body
            )
        )
    )
    async with lb.Client(http_client=http, providers=KEYS) as client:
        with pytest.raises(lb.ServerError, match="backend died") as caught:
            await client.complete(MODEL, "Go")
    assert caught.value.partial is not None and caught.value.partial.text == "Half an"
    assert "AIza-test" not in str(caught.value) + repr(caught.value)
