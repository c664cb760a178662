"""What an app sees of ``stream=False``: structured output and ``parsed``, a fallback chain,
``stream(stream=False)``, the sync client, the refusals before sending, and the typed errors
of a whole answer that is not one (not JSON, cut, an error status, an error object)."""

from __future__ import annotations

from typing import Any

import httpx
import orjson
import pytest
from pydantic import BaseModel

import llmbridge as lb
from tests.fakes import mock_client
from tests.whole.bodies import ANTHROPIC, OPENAI_CHAT

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("fake_registered")]

HI = [lb.ChatMessage.user("hi")]


class City(BaseModel):
    city: str


def _chat(text: str) -> dict[str, Any]:
    message = {"role": "assistant", "content": text}
    return {**OPENAI_CHAT, "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}


def _client(answers: dict[str, Any], sent: list[httpx.Request]) -> lb.Client:
    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        for host, answer in answers.items():
            if host in str(request.url):
                if isinstance(answer, httpx.Response):
                    return answer
                return httpx.Response(200, json=answer)
        raise AssertionError(f"unexpected request {request.url}")

    providers = {
        "openai": {"api_key": "k", "base_url": "https://oa.test/v1"},
        "anthropic": {"api_key": "k", "base_url": "https://an.test"},
    }
    return lb.Client(http_client=mock_client(handler), providers=providers)


async def test_structured_output_is_parsed_from_a_whole_answer() -> None:
    sent: list[httpx.Request] = []
    client = _client({"oa.test": _chat('{"city": "Oslo"}')}, sent)
    response = await client.complete("openai:gpt-4o", HI, response_format=City, stream=False)
    assert response.parsed == City(city="Oslo")
    body = orjson.loads(sent[0].content)
    assert "stream" not in body and body["response_format"]["type"] == "json_schema"


async def test_a_fallback_chain_answers_whole_from_the_next_model() -> None:
    sent: list[httpx.Request] = []
    failing = httpx.Response(500, json={"error": {"message": "boom", "type": "server_error"}})
    client = _client({"oa.test": failing, "an.test": ANTHROPIC}, sent)
    response = await client.complete(
        ["openai:gpt-4o", "anthropic:claude-sonnet-4-5"], HI, stream=False, max_attempts=1
    )
    assert response.text == "Looking it up." and response.provider == "anthropic"
    assert all("stream" not in orjson.loads(r.content) for r in sent)
    assert sent[-1].headers["accept"] == "application/json"


async def test_stream_false_on_stream_yields_the_events_of_the_whole_answer() -> None:
    sent: list[httpx.Request] = []
    client = _client({"an.test": ANTHROPIC}, sent)
    async with client.stream("anthropic:claude-sonnet-4-5", HI, stream=False) as events:
        kinds = [type(e).__name__ async for e in events]
    assert kinds[0] == "StreamStart" and kinds[-1] == "Finish"
    assert {"ReasoningDelta", "TextDelta", "ToolCallStart", "ToolCallEnd"} <= set(kinds)


async def test_a_provider_without_a_whole_mode_is_refused_before_sending() -> None:
    sent: list[httpx.Request] = []
    client = _client({}, sent)
    with pytest.raises(lb.ConfigurationError, match="stream=False.*fake"):
        await client.complete("fake:m", HI, stream=False)
    assert sent == []


async def test_background_with_stream_false_is_a_usage_error() -> None:
    client = lb.Client(providers={"openai-responses": {"api_key": "k"}})
    with pytest.raises(lb.UsageError, match="background"):
        await client.complete("openai-responses:gpt-5", HI, stream=False, background=True)


@pytest.mark.parametrize(
    ("answer", "error", "match"),
    [
        (httpx.Response(200, content=b"<html>gateway</html>"), lb.MalformedStreamError, "JSON"),
        (
            httpx.Response(200, content=b'{"id": "msg_1", "content": ['),
            lb.MalformedStreamError,
            "cut",
        ),
        (httpx.Response(200, content=b""), lb.MalformedStreamError, "empty"),
        (httpx.Response(200, content=b"[1, 2]"), lb.MalformedStreamError, "JSON object"),
        (
            httpx.Response(
                429,
                json={"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}},
            ),
            lb.RateLimitError,
            "slow",
        ),
        (
            httpx.Response(
                200,
                json={"type": "error", "error": {"type": "overloaded_error", "message": "busy"}},
            ),
            lb.OverloadedError,
            "busy",
        ),
    ],
    ids=["html", "cut", "empty", "array", "status-429", "error-object"],
)
async def test_a_whole_answer_that_is_not_one_is_a_typed_error(
    answer: httpx.Response, error: type[Exception], match: str
) -> None:
    sent: list[httpx.Request] = []
    client = _client({"an.test": answer}, sent)
    with pytest.raises(error, match=match):
        await client.complete("anthropic:claude-sonnet-4-5", HI, stream=False, max_attempts=1)


def test_the_sync_client_completes_whole() -> None:
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json=_chat("hello"))

    with lb.SyncClient(
        providers={"openai": {"api_key": "k", "base_url": "https://oa.test/v1"}},
        http_client=mock_client(handler),
    ) as client:
        response = client.complete("openai:gpt-4o", HI, stream=False)
    assert response.text == "hello"
    assert "stream" not in orjson.loads(sent[0].content)
