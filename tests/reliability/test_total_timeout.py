"""The call's total deadline, ``timeout=`` (issue 34, item 5), on every event loop.

The read timeout measures silence between chunks, so a server trickling a byte every 100 ms
kept a stream open forever. ``timeout=`` (per call on ``stream``/``complete``/``run``, or the
client's default) ends the call with ``TimeoutError``, the partial response kept, its retries
and their waits counted in the budget, and never retried itself.
"""

from __future__ import annotations

import time
from typing import Any

import anyio
import httpx
import pytest
from anyio.abc import SocketStream

import llmbridge as lb
from llmbridge.providers import register_provider
from tests.fakes import FakeProvider, sse_body
from tests.loopback import SSE_HEAD, chunk, read_request, serve

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("fake_registered")]

MESSAGES = [lb.ChatMessage.user("hi")]
FAST_RETRY = lb.RetryPolicy(max_attempts=10, initial_delay=0.2, max_delay=0.2, jitter=0)
LATE = 5.0
"""Seconds a call cut by its deadline may take on a loaded machine: far less than what the
deadline saves here (a 30 s stall, an endless trickle, a 15 s wait for a Retry-After)."""


async def trickle(stream: SocketStream) -> None:
    """One whole event, then a comment byte every 100 ms, forever."""
    await read_request(stream)
    await stream.send(SSE_HEAD + chunk(sse_body({"text": "first"})))
    await stream.send(chunk(b":"))
    while True:
        await anyio.sleep(0.1)
        await stream.send(chunk(b"x"))


async def never_answers(stream: SocketStream) -> None:
    await read_request(stream)
    await anyio.sleep(30)


class Busy:
    """503 to every request, counting them."""

    def __init__(self, headers: bytes = b"") -> None:
        self.requests = 0
        self.headers = headers

    async def script(self, stream: SocketStream) -> None:
        while True:
            try:
                await read_request(stream)
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                return
            self.requests += 1
            body = b'{"error": {"type": "server_error", "message": "busy"}}'
            await stream.send(
                b"HTTP/1.1 503 Busy\r\ncontent-type: application/json\r\n"
                + self.headers
                + f"content-length: {len(body)}\r\n\r\n".encode()
                + body
            )


def _client(url: str, **options: Any) -> lb.Client:
    return lb.Client(providers={"fake": {"base_url": url}}, **options)


async def test_a_trickling_stream_ends_at_the_deadline_with_its_partial() -> None:
    async with serve(trickle) as url, _client(url) as client:
        events: list[lb.StreamEvent] = []
        started = time.monotonic()
        with anyio.fail_after(10), pytest.raises(lb.TimeoutError) as caught:
            async for event in client.stream("fake:m", MESSAGES, timeout=0.6):
                events.append(event)
        elapsed = time.monotonic() - started
    assert 0.5 <= elapsed < LATE, elapsed
    assert [e.text for e in events if isinstance(e, lb.TextDelta)] == ["first"]
    error = caught.value
    assert isinstance(error, TimeoutError)  # the builtin one too
    assert error.partial is not None and error.partial.text == "first"
    assert "0.6 s" in str(error) and error.provider == "fake"


async def test_complete_takes_timeout_and_keeps_the_partial() -> None:
    async with serve(trickle) as url, _client(url) as client:
        with anyio.fail_after(10), pytest.raises(lb.TimeoutError) as caught:
            await client.complete("fake:m", MESSAGES, timeout=0.4)
    assert caught.value.partial is not None and caught.value.partial.text == "first"


async def test_the_clients_default_applies_and_a_call_may_lift_it() -> None:
    async def slow_but_finishing(stream: SocketStream) -> None:
        await read_request(stream)
        await stream.send(SSE_HEAD + chunk(sse_body({"text": "a"})))
        await anyio.sleep(0.6)
        await stream.send(chunk(sse_body({"text": "b"}, {"finish": "stop"})) + b"0\r\n\r\n")

    async with serve(slow_but_finishing) as url, _client(url, timeout=0.3) as client:
        assert client.timeout == 0.3
        with anyio.fail_after(10), pytest.raises(lb.TimeoutError):
            await client.complete("fake:m", MESSAGES)
        with anyio.fail_after(10):
            assert (await client.complete("fake:m", MESSAGES, timeout=None)).text == "ab"
            assert (await client.complete("fake:m", MESSAGES, timeout=5)).text == "ab"


async def test_a_server_that_never_answers_is_cut_at_the_deadline() -> None:
    async with serve(never_answers) as url, _client(url) as client:
        started = time.monotonic()
        with anyio.fail_after(10), pytest.raises(lb.TimeoutError) as caught:
            await client.complete("fake:m", MESSAGES, timeout=0.3)
    assert time.monotonic() - started < LATE
    assert caught.value.partial is None and not caught.value.__cause__


async def test_retries_and_their_waits_are_inside_the_budget() -> None:
    # Retries 1 s apart in a 2.5 s budget: requests at about 0, 1 and 2 s, then a retry that
    # would start past the deadline is not waited for. The seconds are wide enough that a
    # loaded machine (a slow send) still makes at least two requests and never a fourth.
    busy = Busy()
    retry = lb.RetryPolicy(max_attempts=10, initial_delay=1.0, max_delay=1.0, jitter=0)
    async with serve(busy.script) as url, _client(url, retry=retry) as client:
        started = time.monotonic()
        with anyio.fail_after(10), pytest.raises(lb.TimeoutError) as caught:
            await client.complete("fake:m", MESSAGES, timeout=2.5)
        elapsed = time.monotonic() - started
    assert elapsed < 2.5 + LATE, elapsed  # the retry ending past it is not waited for
    assert 2 <= busy.requests <= 3, busy.requests  # not 10
    assert isinstance(caught.value.__cause__, lb.ServerError)


async def test_a_retry_after_longer_than_the_budget_ends_at_once() -> None:
    busy = Busy(b"retry-after: 20\r\n")
    async with serve(busy.script) as url, _client(url, retry=FAST_RETRY) as client:
        started = time.monotonic()
        with anyio.fail_after(30), pytest.raises(lb.TimeoutError) as caught:
            await client.complete("fake:m", MESSAGES, timeout=15)
    assert time.monotonic() - started < LATE and busy.requests == 1
    assert isinstance(caught.value.__cause__, lb.ServerError)


async def test_a_plain_request_gives_up_at_once_as_a_stream_does() -> None:
    """``list_models`` and ``count_tokens`` are sent by the stream's own attempt loop: under the
    client's ``timeout=``, a ``Retry-After`` longer than what is left ends the call at once
    (it slept until the deadline cut it: issue 42), after one request."""
    busy = Busy(b"retry-after: 20\r\n")
    async with serve(busy.script) as url:
        client = lb.Client(
            providers={"openai-compatible": {"base_url": url}}, retry=FAST_RETRY, timeout=15
        )
        async with client:
            started = time.monotonic()
            with anyio.fail_after(30), pytest.raises(lb.TimeoutError) as caught:
                await client.list_models("openai-compatible")
    assert time.monotonic() - started < LATE and busy.requests == 1
    assert isinstance(caught.value.__cause__, lb.ServerError)
    assert "no time left for a retry" in str(caught.value)


async def test_a_fallback_chain_shares_one_budget() -> None:
    busy = Busy()
    async with serve(never_answers) as stalled, serve(busy.script) as second:
        register_provider("other", FakeProvider, replace=True)  # before Client() checks names
        client = lb.Client(
            providers={"fake": {"base_url": stalled}, "other": {"base_url": second}},
        )
        async with client:
            with anyio.fail_after(10), pytest.raises(lb.TimeoutError):
                await client.complete(["fake:m", "other:m"], MESSAGES, timeout=0.3)
    assert busy.requests == 0, "the time was up: the next model is not tried"


async def test_the_tool_loop_has_one_budget() -> None:
    async with serve(never_answers) as url, _client(url) as client:
        loop = client.run("fake:m", MESSAGES, tools=[], timeout=0.3)
        with anyio.fail_after(10), pytest.raises(lb.TimeoutError):
            async for _ in loop:
                pass


@pytest.mark.parametrize("bad", [0, -1, float("inf"), float("nan"), "5", True])
async def test_a_timeout_that_is_not_a_positive_number_is_a_usage_error(bad: Any) -> None:
    async with _client("http://127.0.0.1:9") as client:
        with pytest.raises(lb.UsageError, match="timeout"):
            client.stream("fake:m", MESSAGES, timeout=bad)
    with pytest.raises(lb.UsageError, match="timeout"):
        _client("http://127.0.0.1:9", timeout=bad)


async def test_an_httpx_timeout_still_sets_the_phases_and_no_total() -> None:
    async with serve(trickle) as url:
        client = _client(url, timeout=httpx.Timeout(5.0, read=0.05))
        assert client.timeout is None
        async with client:
            with anyio.fail_after(10), pytest.raises(lb.TimeoutError) as caught:
                await client.complete("fake:m", MESSAGES)
    assert "idle" in str(caught.value)


async def test_list_models_keeps_the_clients_default() -> None:
    async with serve(never_answers) as url:
        client = lb.Client(providers={"openai-compatible": {"base_url": url}}, timeout=0.3)
        async with client:
            started = time.monotonic()
            with anyio.fail_after(10), pytest.raises(lb.TimeoutError, match="listing models"):
                await client.list_models("openai-compatible")
    assert time.monotonic() - started < LATE
