"""Every built-in provider built from a config with ``auth`` / ``token_provider`` puts it on
its requests (stream, token count, model list), needs no API key, and sends no key header."""

from __future__ import annotations

import itertools
from collections.abc import AsyncGenerator
from typing import Any

import httpx
import pytest

import llmbridge as lb
from llmbridge.providers.registry import available_providers
from llmbridge.stream import RetryPolicy
from tests.auth.support import Seen, chat_server, unauthorized

pytestmark = pytest.mark.anyio

KEY_HEADERS = {"x-api-key", "api-key", "x-goog-api-key"}
NATIVE = [
    "openai",
    "openai-responses",
    "anthropic",
    "gemini",
    "vertex",
    "azure",
    "groq",
    "together",
    "ollama-native",
    "cohere",
]
CLOUDS = [p for p in ("anthropic-foundry",) if p in available_providers()]


class TagAuth(httpx.Auth):
    def __init__(self) -> None:
        self.count = itertools.count(1)

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        request.headers["authorization"] = f"Bearer plug-in-{next(self.count)}"
        yield request


def _options(name: str, url: str, credential: dict[str, Any]) -> dict[str, Any]:
    base = url if name not in ("openai", "openai-responses", "groq", "together") else f"{url}/v1"
    if name == "vertex":
        base = f"{url}/v1/projects/p/locations/global"
    return {"base_url": base, "env": {}, **credential}


async def _send(name: str, credential: dict[str, Any]) -> list[Seen]:
    async with chat_server(lambda _: unauthorized()) as (url, seen):
        options = _options(name, url, credential)
        client = lb.Client(providers={name: options}, retry=RetryPolicy(max_attempts=1))
        async with client:
            with pytest.raises(lb.AuthenticationError):
                await client.complete(f"{name}:some-model", [lb.ChatMessage.user("hi")])
            provider = client.provider(name)
            if isinstance(provider, lb.providers.base.CountsTokens):
                with pytest.raises(lb.AuthenticationError):
                    await client.count_tokens(f"{name}:some-model", [lb.ChatMessage.user("hi")])
            if name not in ("vertex",) and isinstance(provider, lb.providers.base.ListsModels):
                with pytest.raises(lb.AuthenticationError):
                    await client.list_models(name)
    return seen


@pytest.mark.parametrize("name", NATIVE + CLOUDS)
async def test_an_httpx_auth_reaches_every_request_of_every_provider(name: str) -> None:
    seen = await _send(name, {"auth": TagAuth()})
    assert seen, "nothing was sent"
    assert [s.headers["authorization"] for s in seen] == [
        f"Bearer plug-in-{i}" for i in range(1, len(seen) + 1)
    ]
    assert all(not KEY_HEADERS & s.headers.keys() for s in seen)


@pytest.mark.parametrize("name", NATIVE + CLOUDS)
async def test_a_token_provider_reaches_every_provider(name: str) -> None:
    calls = 0

    async def token() -> str:
        nonlocal calls
        calls += 1
        return f"provided-token-{calls:04d}"

    seen = await _send(name, {"token_provider": token})
    # each request: its token, then (401) one refreshed token and one retry
    assert len(seen) % 2 == 0 and calls == len(seen)
    assert [s.headers["authorization"] for s in seen] == [
        f"Bearer provided-token-{i:04d}" for i in range(1, len(seen) + 1)
    ]
    assert all(not KEY_HEADERS & s.headers.keys() for s in seen)
