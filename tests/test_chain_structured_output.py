"""A fallback chain and structured output (issue 44, item 2): ``fallback_on=[StructuredOutputError]``
is honoured by ``complete()``: an answer that does not validate (cut off at the token limit, or
not JSON) gives the next model its turn, within the call's one budget."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

import llmbridge as lb
from tests.fakes import chat_sse, mock_client

pytestmark = pytest.mark.anyio
USER = [lb.ChatMessage.user("Which city?")]


class City(BaseModel):
    city: str


def _answer(text: str, finish: str = "stop") -> httpx.Response:
    body = chat_sse({"content": text}, finish=finish)
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)


def _server(answers: dict[str, httpx.Response]) -> tuple[lb.Client, list[str]]:
    asked: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        model = json.loads(request.content)["model"]
        asked.append(model)
        return answers[model]

    client = lb.Client(http_client=mock_client(handler), providers={"openai": {"api_key": "k"}})
    return client, asked


async def test_an_answer_cut_off_at_the_token_limit_gives_the_next_model_its_turn() -> None:
    client, asked = _server(
        {"small": _answer('{"city": "Par', finish="length"), "big": _answer('{"city": "Paris"}')}
    )
    response = await client.complete(
        ["openai:small", "openai:big"], USER, response_format=City,
        fallback_on=[lb.StructuredOutputError],
    )  # fmt: skip
    assert response.parsed == City(city="Paris")
    assert asked == ["small", "big"]


async def test_without_fallback_on_the_error_is_raised_after_one_request() -> None:
    client, asked = _server({"small": _answer("Paris, I think."), "big": _answer("{}")})
    with pytest.raises(lb.StructuredOutputError):
        await client.complete(["openai:small", "openai:big"], USER, response_format=City)
    assert asked == ["small"]


@pytest.mark.parametrize("on", [lb.StructuredOutputError, (lb.StructuredOutputError,)])
async def test_the_last_models_invalid_answer_is_raised(on: Any) -> None:
    client, asked = _server({"a": _answer("no"), "b": _answer("still no")})
    with pytest.raises(lb.StructuredOutputError):
        await client.complete(["openai:a", "openai:b"], USER, response_format=City, fallback_on=on)
    assert asked == ["a", "b"]


async def test_a_predicate_decides_and_one_model_is_no_chain() -> None:
    client, asked = _server({"a": _answer("no"), "b": _answer('{"city": "Lima"}')})
    response = await client.complete(
        ["openai:a", "openai:b"], USER, response_format=City,
        fallback_on=lambda e: isinstance(e, lb.StructuredOutputError),
    )  # fmt: skip
    assert response.parsed == City(city="Lima") and asked == ["a", "b"]
    with pytest.raises(lb.StructuredOutputError):
        await client.complete("openai:a", USER, response_format=City)


class _Slow:
    """The first model answers after ``delay`` seconds (on the loop's clock); the others at once."""

    def __init__(self, delay: float) -> None:
        self.delay, self.asked = delay, []

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        import anyio

        model = json.loads(request.content)["model"]
        self.asked.append(model)
        if model == "slow":
            await anyio.sleep(self.delay)
        return _answer('{"city": "Quito"}')


async def test_model_timeout_gives_each_model_its_own_share() -> None:
    """Issue 44, item 10: the first model used the whole call's time under load; with
    ``model_timeout`` it fails over after its share, and the error names it."""
    slow = _Slow(30)
    client = lb.Client(http_client=mock_client(slow), providers={"openai": {"api_key": "k"}})
    stream = client.stream(["openai:slow", "openai:fast"], USER, timeout=20, model_timeout=0.2)
    events = [e async for e in stream]
    start = next(e for e in events if isinstance(e, lb.StreamStart))
    assert slow.asked == ["slow", "fast"]
    assert any("openai:slow's model_timeout of 0.2 s" in w for w in start.warnings), start.warnings


async def test_the_calls_timeout_names_the_model_that_used_it() -> None:
    client = lb.Client(http_client=mock_client(_Slow(30)), providers={"openai": {"api_key": "k"}})
    with pytest.raises(lb.TimeoutError) as caught:
        await client.complete(["openai:slow", "openai:fast"], USER, timeout=0.2)
    assert "openai:slow was answering" in caught.value.message


async def test_model_timeout_is_checked() -> None:
    client, _ = _server({})
    with pytest.raises(lb.UsageError, match="seconds"):
        client.stream(["openai:a", "openai:b"], USER, model_timeout=0)
