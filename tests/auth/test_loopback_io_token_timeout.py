"""A ``token_provider`` that never returns no longer hangs every request sharing it (issue 49,
item 7): one call is bounded (``TOKEN_TIMEOUT``, 30 s by default; ``token_timeout=``), past it
every waiting request gets one ``AuthenticationError``, not retried, and the next request calls
the provider again. Providers that never return are used with a small bound (no long sleeps:
the outcome does not depend on how loaded the machine is)."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import pytest

import llmbridge as lb
from llmbridge.auth import TOKEN_TIMEOUT, TokenProviderAuth
from llmbridge.providers.base import ProviderConfig
from llmbridge.stream import RetryPolicy
from tests.auth.support import chat_server

pytestmark = pytest.mark.anyio

MESSAGES = [lb.ChatMessage.user("hi")]
RETRY = RetryPolicy(max_attempts=3, initial_delay=0.0, jitter=0.0)
BOUND = 0.05


class Stuck:
    """A token provider that hangs until ``release()``, then returns a token; counts its calls.
    ``sync``: blocks a worker thread (like a stuck azure-identity call), else awaits."""

    def __init__(self, *, sync: bool) -> None:
        self.sync, self.calls = sync, 0
        self._released = threading.Event()
        self._waiters: list[anyio.Event] = []

    def release(self) -> None:  # on the test's loop
        self._released.set()
        for waiter in self._waiters:
            waiter.set()

    def blocking(self) -> str:
        self.calls += 1
        self._released.wait()
        return "token-after-the-wait-0123456789"

    async def waiting(self) -> str:
        self.calls += 1
        if not self._released.is_set():
            waiter = anyio.Event()
            self._waiters.append(waiter)
            await waiter.wait()
        return "token-after-the-wait-0123456789"

    @property
    def provider(self) -> Any:
        return self.blocking if self.sync else self.waiting


def _options(url: str, stuck: Stuck, **more: Any) -> dict[str, Any]:
    return {"openai-compatible": {"base_url": url, "token_provider": stuck.provider, **more}}


@pytest.mark.parametrize("sync", [True, False], ids=["sync", "async"])
async def test_a_token_provider_that_never_returns_is_an_authentication_error(sync: bool) -> None:
    stuck = Stuck(sync=sync)
    try:
        async with chat_server() as (url, seen):
            options = _options(url, stuck, token_timeout=BOUND)
            async with lb.Client(providers=options, retry=RETRY) as client:
                errors: list[BaseException] = []

                async def one() -> None:
                    with pytest.raises(lb.AuthenticationError) as caught:
                        await client.complete("openai-compatible:m", MESSAGES)
                    errors.append(caught.value)

                async with anyio.create_task_group() as tg:
                    for _ in range(5):  # five requests share the one call in flight
                        tg.start_soon(one)
    finally:
        stuck.release()
    assert not seen
    # one call for the five, bounded, not retried; a blocking provider's worker thread may not
    # have started within the 50 ms bound on a busy machine (seen: 0 calls under load)
    assert stuck.calls == 1 if not sync else stuck.calls <= 1
    assert len(errors) == 5
    for error in errors:
        assert "gave no token within 0.05 s" in error.message
        assert "token_timeout" in error.message
        assert not error.retryable


async def test_after_a_timeout_the_next_request_calls_the_provider_again() -> None:
    stuck = Stuck(sync=False)
    async with chat_server() as (url, seen):
        async with lb.Client(providers=_options(url, stuck, token_timeout=BOUND)) as client:
            with pytest.raises(lb.AuthenticationError):
                await client.complete("openai-compatible:m", MESSAGES)
            stuck.release()
            response = await client.complete("openai-compatible:m", MESSAGES)
    assert response.text == "hi" and stuck.calls == 2
    assert seen[0].headers["authorization"] == "Bearer token-after-the-wait-0123456789"


def test_the_default_bound_is_thirty_seconds_and_configurable() -> None:
    def provider() -> str:
        return "token"

    assert TOKEN_TIMEOUT == 30.0
    assert TokenProviderAuth(provider).timeout == TOKEN_TIMEOUT
    configured = ProviderConfig.from_mapping({"token_provider": provider, "token_timeout": 5})
    assert isinstance(configured.auth, TokenProviderAuth) and configured.auth.timeout == 5
    assert "token_timeout" not in configured.options
    default = ProviderConfig.from_mapping({"token_provider": provider})
    assert isinstance(default.auth, TokenProviderAuth) and default.auth.timeout == TOKEN_TIMEOUT
    assert TokenProviderAuth(provider, timeout=None).timeout is None  # unbounded, on purpose
    for wrong in (0, -1, True, "30"):
        with pytest.raises(lb.UsageError, match="token_timeout"):
            TokenProviderAuth(provider, timeout=wrong)  # type: ignore[arg-type]


async def test_token_timeout_is_a_known_option_of_every_provider() -> None:
    async with chat_server() as (url, _):
        options = {"azure": {"base_url": url, "token_provider": lambda: "t0ken-0123456789",
                             "token_timeout": 2.5, "api_version": "2024-10-21"}}  # fmt: skip
        async with lb.Client(providers=options) as client:
            response = await client.complete("azure:gpt-4o", MESSAGES)
    assert response.text == "hi"
