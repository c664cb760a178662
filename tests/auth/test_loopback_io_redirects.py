"""Key headers never cross to another origin (issue 49, item 10), over real sockets on every loop.

The app's own ``http_client`` follows redirects (``follow_redirects=True``); httpx would drop
only ``Authorization`` on another origin, so ``x-goog-api-key`` (Gemini), ``api-key`` (Azure)
and ``x-api-key`` (Anthropic) reached the host a 307 named. Provider calls never follow
redirects: the second server sees nothing, and the 3xx is a ``ConfigurationError`` naming the
target's origin, not retried. Streams, token counts and model lists alike.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import llmbridge as lb
from llmbridge.stream import RetryPolicy
from tests.auth.support import Answer, chat_server

pytestmark = pytest.mark.anyio

KEY = "sk-redirect-KEY-0123456789abcdef"
MESSAGES = [lb.ChatMessage.user("hi")]
RETRY = RetryPolicy(max_attempts=3, initial_delay=0.0, jitter=0.0)

# name, model, the header the key goes in, extra options
PROVIDERS = [
    ("gemini", "gemini:gemini-2.5-flash", "x-goog-api-key", {}),
    ("azure", "azure:gpt-4o", "api-key", {"api_version": "2024-10-21"}),
    ("anthropic", "anthropic:claude-sonnet-4-5", "x-api-key", {"auth": "x-api-key"}),
    ("openai-compatible", "openai-compatible:m", "authorization", {}),
]


async def _calls(client: lb.Client, name: str, model: str) -> list[BaseException]:
    """A stream, a token count and a model list where the provider has them: each error."""
    errors: list[BaseException] = []
    provider = client.provider(name)
    calls: list[Any] = [lambda: client.complete(model, MESSAGES)]
    if isinstance(provider, lb.providers.base.CountsTokens):
        calls.append(lambda: client.count_tokens(model, MESSAGES))
    if isinstance(provider, lb.providers.base.ListsModels):
        calls.append(lambda: client.list_models(name))
    for call in calls:
        with pytest.raises(lb.LLMBridgeError) as caught:
            await call()
        errors.append(caught.value)
    return errors


@pytest.mark.parametrize("status", [307, 308, 302, 301])
@pytest.mark.parametrize(("name", "model", "header", "extra"), PROVIDERS, ids=[p[0] for p in PROVIDERS])  # fmt: skip
async def test_a_redirect_is_never_followed_so_the_key_stays_home(
    name: str, model: str, header: str, extra: dict[str, Any], status: int
) -> None:
    async with chat_server() as (elsewhere, stolen):
        redirect = Answer(status, b"", "text/plain", {"location": f"{elsewhere}/v1/steal"})
        async with chat_server(lambda _: redirect) as (url, seen):
            options = {"base_url": url, "api_key": KEY, "env": {}, **extra}
            async with (
                httpx.AsyncClient(follow_redirects=True) as http,
                lb.Client(http_client=http, providers={name: options}, retry=RETRY) as client,
            ):
                errors = await _calls(client, name, model)
    assert not stolen, "a request followed the redirect to another host"
    assert len(seen) == len(errors)  # one request each: a redirect is not retried
    assert all(KEY in s.headers[header] for s in seen)  # the key went only where it belongs
    for error in errors:
        assert isinstance(error, lb.ConfigurationError)
        assert error.status == status and not error.retryable
        assert "never follows redirects" in error.message
        assert elsewhere.removeprefix("http://") in error.message  # the target is named
        assert "/v1/steal" not in error.message  # its origin only
        assert KEY not in str(error)


async def test_a_same_origin_redirect_is_not_followed_either() -> None:
    """The rule is simple: no provider call follows a redirect (the base URL is the fix)."""
    async with chat_server(
        lambda r: (
            Answer(307, b"", "text/plain", {"location": "/elsewhere"})
            if r.path != "/elsewhere/chat/completions"
            else Answer()
        )
    ) as (url, seen):
        options = {"base_url": url, "api_key": KEY}
        async with (
            httpx.AsyncClient(follow_redirects=True) as http,
            lb.Client(http_client=http, providers={"openai-compatible": options}) as client,
        ):
            with pytest.raises(lb.ConfigurationError, match="set base_url"):
                await client.complete("openai-compatible:m", MESSAGES)
    assert [s.path for s in seen] == ["/chat/completions"]
