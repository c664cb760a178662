"""``Client.count_tokens``: the provider's own counting endpoint, fed by the same encoder as the
real request (so tools, the system prompt and prompt-mode instructions count); body fields are
checked against the official SDKs' count parameters."""

from __future__ import annotations

from typing import Any

import httpx
import orjson
import pytest

import llmbridge as lb

pytestmark = pytest.mark.anyio

MESSAGES = [lb.ChatMessage.system("Be brief."), lb.ChatMessage.user("Weather in Paris?")]


def get_weather(city: str) -> str:
    """Current weather for a city."""
    return city


class Counter:
    def __init__(self, answer: Any, status: int = 200) -> None:
        self.answer, self.status = answer, status
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return httpx.Response(self.status, json=self.answer)

    @property
    def body(self) -> dict[str, Any]:
        return dict(orjson.loads(self.requests[-1].content))


def client_for(counter: Counter, name: str, **options: Any) -> lb.Client:
    return lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(counter)),
        providers={name: {"api_key": "k", **options}},
        retry=lb.RetryPolicy(max_attempts=1),
    )


async def test_anthropic_counts_the_messages_body_without_answer_settings() -> None:
    counter = Counter({"input_tokens": 412})
    async with client_for(counter, "anthropic") as client:
        count = await client.count_tokens(
            "anthropic:claude-sonnet-4-5", MESSAGES, tools=[get_weather], temperature=0.2
        )
    assert count == 412
    sent = counter.requests[0]
    assert (sent.method, sent.url.path) == ("POST", "/v1/messages/count_tokens")
    body = counter.body
    assert body["system"] == "Be brief." and body["tools"][0]["name"] == "get_weather"
    assert not {"stream", "max_tokens", "temperature"} & body.keys()
    params = pytest.importorskip("anthropic.types.message_count_tokens_params")
    assert body.keys() <= params.MessageCountTokensParams.__annotations__.keys()


async def test_prompt_mode_counts_the_prompt_tools_instructions_too() -> None:
    counter = Counter({"input_tokens": 900})
    async with client_for(counter, "anthropic") as client:
        await client.count_tokens(
            "anthropic:claude-sonnet-4-5", MESSAGES, tools=[get_weather], tool_mode="prompt"
        )
    body = counter.body
    assert "tools" not in body and "<function_call>" in orjson.dumps(body).decode()


async def test_responses_api_input_tokens() -> None:
    counter = Counter({"object": "response.input_tokens", "input_tokens": 57})
    async with client_for(counter, "openai-responses") as client:
        count = await client.count_tokens("openai-responses:gpt-5", MESSAGES, max_tokens=100)
    assert count == 57
    assert counter.requests[0].url.path == "/v1/responses/input_tokens"
    body = counter.body
    assert body["instructions"] == "Be brief." and "max_output_tokens" not in body
    params = pytest.importorskip("openai.types.responses.input_token_count_params")
    assert body.keys() <= params.InputTokenCountParams.__annotations__.keys()


async def test_gemini_counts_a_whole_generate_content_request() -> None:
    counter = Counter({"totalTokens": 23})
    async with client_for(counter, "gemini") as client:
        count = await client.count_tokens("gemini:gemini-2.5-flash", MESSAGES, tools=[get_weather])
    assert count == 23
    sent = counter.requests[0]
    assert sent.url.path == "/v1/models/gemini-2.5-flash:countTokens"
    inner = counter.body["generateContentRequest"]
    assert inner["model"] == "models/gemini-2.5-flash"
    assert {"contents", "systemInstruction", "tools"} <= inner.keys()
    assert sent.headers["x-goog-api-key"] == "k"


async def test_chat_completions_has_no_counting_endpoint() -> None:
    async with lb.Client(providers={"openai": {"api_key": "k"}}) as client:
        with pytest.raises(lb.ConfigurationError, match="'openai' has no token-counting"):
            await client.count_tokens("openai:gpt-4.1-mini", MESSAGES)


async def test_an_answer_without_a_count_is_a_clear_error() -> None:
    counter = Counter({"unexpected": True})
    async with client_for(counter, "anthropic") as client:
        with pytest.raises(lb.MalformedStreamError, match="input_tokens"):
            await client.count_tokens("anthropic:claude-sonnet-4-5", MESSAGES)


async def test_unknown_options_are_a_usage_error() -> None:
    async with lb.Client() as client:
        with pytest.raises(lb.UsageError, match="unknown option"):
            await client.count_tokens("anthropic:claude-sonnet-4-5", MESSAGES, temprature=1)


def test_sync_twin() -> None:
    counter = Counter({"input_tokens": 5})
    with lb.SyncClient(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(counter)),
        providers={"anthropic": {"api_key": "k"}},
    ) as client:
        assert client.count_tokens("anthropic:claude-haiku-4-5", MESSAGES) == 5
