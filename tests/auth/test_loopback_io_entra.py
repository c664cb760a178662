"""Microsoft Entra ID for ``azure:``: a token provider (sync like azure-identity's
``get_bearer_token_provider``, or async) sent as ``Authorization: Bearer`` instead of the
``api-key`` header, over a real socket on asyncio, uvloop and trio.

Also the ``TokenProviderAuth`` rules: one call in flight for concurrent requests, tokens with
an expiry cached until shortly before it, a 401 answered by one refresh and one retry (never
a loop), a failing provider a typed error, and no token in any error.
"""

from __future__ import annotations

import threading
import time
from typing import Any, NamedTuple

import anyio
import anyio.lowlevel
import httpx
import pytest

import llmbridge as lb
from llmbridge.auth import REFRESH_MARGIN, TokenProviderAuth
from llmbridge.stream import RetryPolicy
from tests.auth.support import Answer, Seen, chat_server, on_get, unauthorized
from tests.fakes import FakeClock

pytestmark = pytest.mark.anyio

MESSAGES = [lb.ChatMessage.user("hi")]
NO_RETRY = RetryPolicy(max_attempts=1)


class AccessToken(NamedTuple):  # azure.core.credentials.AccessToken's shape
    token: str
    expires_on: int


class SyncProvider:
    """Like ``get_bearer_token_provider(credential, scope)``: blocking, returns a str."""

    def __init__(self, *, gate: threading.Event | None = None) -> None:
        self.calls = 0
        self.gate = gate
        self.threads: set[int] = set()
        self._lock = threading.Lock()

    def __call__(self) -> str:
        with self._lock:
            self.calls += 1
            n = self.calls
        self.threads.add(threading.get_ident())
        if self.gate is not None:
            assert self.gate.wait(timeout=60), "the gate never opened"
        return f"entra-sync-token-{n:04d}-abcdef"


def azure(url: str, provider: Any) -> dict[str, Any]:
    return {"base_url": url, "token_provider": provider, "env": {}, "api_version": "2024-10-21"}


async def test_sync_provider_sends_a_bearer_token_not_an_api_key() -> None:
    provider = SyncProvider()
    async with chat_server() as (url, seen):
        async with lb.Client(providers={"azure": azure(url, provider)}) as client:
            first = await client.complete("azure:gpt-4o", MESSAGES)
            second = await client.complete("azure:gpt-4o", MESSAGES)
    assert first.text == second.text == "hi"
    assert [s.headers["authorization"] for s in seen] == [
        "Bearer entra-sync-token-0001-abcdef",
        "Bearer entra-sync-token-0002-abcdef",  # called on every request: it caches itself
    ]
    assert all("api-key" not in s.headers for s in seen)
    assert seen[0].path == "/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21"
    assert threading.get_ident() not in provider.threads  # never on the event loop's thread


async def test_async_provider_with_expiry_is_cached_until_shortly_before_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = 0
    clock = FakeClock()
    monkeypatch.setattr("llmbridge.auth.bearer.time", clock)
    # the first token is fresh for two seconds (REFRESH_MARGIN before its end), the next for long
    expiries = iter([clock.now + REFRESH_MARGIN + 2, clock.now + 3600])

    async def provider() -> AccessToken:
        nonlocal calls
        calls += 1
        await anyio.lowlevel.checkpoint()
        return AccessToken(f"entra-async-token-{calls:04d}-abcdef", int(next(expiries)))

    async with chat_server() as (url, seen):
        async with lb.Client(providers={"azure": azure(url, provider)}) as client:
            for _ in range(3):
                await client.complete("azure:gpt-4o", MESSAGES)
            clock.advance(2.2)
            await client.complete("azure:gpt-4o", MESSAGES)  # refreshed before it is sent
            await client.complete("azure:gpt-4o", MESSAGES)
    assert calls == 2
    tokens = [s.headers["authorization"] for s in seen]
    assert (
        tokens
        == ["Bearer entra-async-token-0001-abcdef"] * 3
        + ["Bearer entra-async-token-0002-abcdef"] * 2
    )


async def test_concurrent_requests_share_one_call_in_flight() -> None:
    gate = threading.Event()  # the call returns once all twenty requests wait for it
    provider = SyncProvider(gate=gate)
    async with chat_server() as (url, seen):
        async with lb.Client(providers={"azure": azure(url, provider)}) as client:
            auth = client.provider("azure").auth
            assert isinstance(auth, TokenProviderAuth)
            on_get(auth.tokens, 20, gate.set)
            async with anyio.create_task_group() as tg:
                for _ in range(20):
                    tg.start_soon(client.complete, "azure:gpt-4o", MESSAGES)
    assert provider.calls == 1
    assert len(seen) == 20
    assert {s.headers["authorization"] for s in seen} == {"Bearer entra-sync-token-0001-abcdef"}


async def test_a_401_causes_one_refresh_and_one_retry() -> None:
    provider = SyncProvider()

    def answer(request: Seen) -> Answer:
        if request.headers["authorization"].endswith("0001-abcdef"):
            return unauthorized("token expired")
        return Answer()

    async with chat_server(answer) as (url, seen):
        client = lb.Client(providers={"azure": azure(url, provider)}, retry=NO_RETRY)
        async with client:
            response = await client.complete("azure:gpt-4o", MESSAGES)
    assert response.text == "hi"
    assert provider.calls == 2
    assert [s.headers["authorization"][-17:] for s in seen] == [
        "token-0001-abcdef",
        "token-0002-abcdef",
    ]


async def test_a_second_401_is_the_answer_never_a_loop_and_no_token_in_the_error() -> None:
    provider = SyncProvider()

    def answer(request: Seen) -> Answer:
        token = request.headers["authorization"].removeprefix("Bearer ")
        return unauthorized(f"Incorrect token provided: {token}")  # servers echo it back

    async with chat_server(answer) as (url, seen):
        client = lb.Client(providers={"azure": azure(url, provider)}, retry=NO_RETRY)
        async with client:
            with pytest.raises(lb.AuthenticationError) as info:
                await client.complete("azure:gpt-4o", MESSAGES)
    assert len(seen) == 2 and provider.calls == 2
    shown = f"{info.value} {info.value!r} {info.value.provider_message} {info.value.body}"
    assert "entra-sync-token" not in shown
    assert "<redacted>" in shown


async def test_concurrent_401s_share_one_refresh() -> None:
    calls = 0

    def provider() -> AccessToken:  # cached by expiry: all ten requests start with token 1
        nonlocal calls
        calls += 1
        time.sleep(0.05)
        return AccessToken(f"entra-sync-token-{calls:04d}-abcdef", int(time.time()) + 3600)

    def answer(request: Seen) -> Answer:
        if request.headers["authorization"].endswith("0001-abcdef"):
            return unauthorized()
        return Answer()

    async with chat_server(answer) as (url, seen):
        client = lb.Client(providers={"azure": azure(url, provider)}, retry=NO_RETRY)
        async with client:
            auth = client.provider("azure").auth
            assert isinstance(auth, TokenProviderAuth)
            await auth.tokens.get()  # token 1, cached

            async def one() -> None:
                assert (await client.complete("azure:gpt-4o", MESSAGES)).text == "hi"

            async with anyio.create_task_group() as tg:
                for _ in range(10):
                    tg.start_soon(one)
    assert calls == 2  # ten 401s, one refresh
    assert len(seen) == 20
    assert sum(s.headers["authorization"].endswith("0002-abcdef") for s in seen) == 10


async def test_a_failing_provider_is_a_typed_error() -> None:
    def provider() -> str:
        raise RuntimeError("no managed identity endpoint")

    async with chat_server() as (url, seen):
        client = lb.Client(providers={"azure": azure(url, provider)}, retry=NO_RETRY)
        async with client:
            with pytest.raises(lb.AuthenticationError, match="no managed identity") as info:
                await client.complete("azure:gpt-4o", MESSAGES)
    assert isinstance(info.value.__cause__, RuntimeError)
    assert info.value.provider == "azure"
    assert seen == []


async def test_a_provider_returning_nothing_is_a_typed_error() -> None:
    auth = TokenProviderAuth(lambda: None)
    with pytest.raises(lb.AuthenticationError, match="returned no token"):
        await auth.tokens.get()


async def test_a_failed_call_fails_every_waiter_once_and_the_next_request_calls_again() -> None:
    calls = 0

    everyone_waits = anyio.Event()

    async def provider() -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            await everyone_waits.wait()
            raise OSError("identity endpoint down")
        return "entra-token-after-failure-0001"

    auth = TokenProviderAuth(provider)
    on_get(auth.tokens, 5, everyone_waits.set)
    errors: list[BaseException] = []

    async def one() -> None:
        try:
            await auth.tokens.get()
        except lb.AuthenticationError as exc:
            errors.append(exc)

    async with anyio.create_task_group() as tg:
        for _ in range(5):
            tg.start_soon(one)
    assert calls == 1 and len(errors) == 5
    assert (await auth.tokens.get()).value.reveal() == "entra-token-after-failure-0001"
    assert calls == 2


async def test_a_cancelled_caller_does_not_fail_the_others() -> None:
    calls = 0

    never = anyio.Event()

    async def provider() -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            await never.wait()  # the first call is still running when its caller goes away
        return f"entra-token-{calls:04d}-abcdef"

    auth = TokenProviderAuth(provider)
    got: list[str] = []
    leading, joined = anyio.Event(), anyio.Event()
    on_get(auth.tokens, 1, leading.set)
    on_get(auth.tokens, 2, joined.set)

    async def waiter() -> None:
        got.append((await auth.tokens.get()).value.reveal())

    async with anyio.create_task_group() as tg:
        async with anyio.create_task_group() as leader:
            leader.start_soon(auth.tokens.get)  # starts the call
            await leading.wait()
            tg.start_soon(waiter)  # joins the call in flight
            await joined.wait()
            leader.cancel_scope.cancel()  # the calling task goes away mid-call
    assert got and got[0].startswith("entra-token-")
    assert calls == 2  # the waiter fetched again instead of failing


def test_the_sync_httpx_client_is_refused_clearly() -> None:
    with httpx.Client(auth=TokenProviderAuth(lambda: "t" * 10)) as client:
        with pytest.raises(lb.UsageError, match="httpx.AsyncClient"):
            client.get("http://127.0.0.1:9/")
