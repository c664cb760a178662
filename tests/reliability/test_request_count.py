"""Never more requests than ``max_attempts`` (issue 34, item 7), on every event loop.

A loopback server counts the requests it *received* (whole, body read) and then misbehaves:
it closes the connection without answering, or answers with a status line that is not HTTP.
A paid request the server already ran must not run again behind the retry policy's back: with
``max_attempts=1`` it arrives once, with 3 three times (the transport used to resend once on
any ``RemoteProtocolError``, even on a fresh connection: 2 and 6).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest
from anyio.abc import SocketStream

import llmbridge as lb
from tests.fakes import sse_body
from tests.loopback import SSE_HEAD, chunk, read_request, serve

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("fake_registered")]

MESSAGES = [lb.ChatMessage.user("hi")]
Answer = Callable[[SocketStream], Awaitable[None]]


class CountingServer:
    """Reads each request whole, counts it, then answers as ``answer`` says."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.requests = 0
        self.connections = 0

    async def script(self, stream: SocketStream) -> None:
        self.connections += 1
        while True:
            try:
                await read_request(stream)
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                return
            self.requests += 1
            await self.answer(stream)


async def close_at_once(stream: SocketStream) -> None:
    await stream.aclose()


async def not_http(stream: SocketStream) -> None:
    await stream.send(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")
    await stream.aclose()


async def half_status_line(stream: SocketStream) -> None:
    await stream.send(b"HTTP/1.1 2")
    await stream.aclose()


ANSWERS = {"closes": close_at_once, "not_http": not_http, "half_status": half_status_line}


def _client(url: str, attempts: int, **options: Any) -> lb.Client:
    return lb.Client(
        providers={"fake": {"base_url": url}},
        retry=lb.RetryPolicy(max_attempts=attempts, initial_delay=0.001, max_delay=0.002),
        **options,
    )


@pytest.mark.parametrize("attempts", [1, 3])
@pytest.mark.parametrize("answer", list(ANSWERS))
async def test_requests_received_never_exceed_max_attempts(answer: str, attempts: int) -> None:
    server = CountingServer(ANSWERS[answer])
    async with serve(server.script) as url, _client(url, attempts) as client:
        with pytest.raises(lb.ConnectionError) as caught:
            await client.complete("fake:m", MESSAGES)
    assert server.requests == attempts, f"{server.requests} requests for max_attempts={attempts}"
    assert caught.value.retryable and "127.0.0.1" in str(caught.value)


@pytest.mark.parametrize("attempts", [1, 3])
async def test_the_aiohttp_transport_sends_no_more_either(
    anyio_backend: Any, attempts: int
) -> None:
    if anyio_backend == "trio":
        pytest.skip("the aiohttp extra runs on asyncio and uvloop")
    pytest.importorskip("httpx_aiohttp")
    server = CountingServer(close_at_once)
    async with serve(server.script) as url, _client(url, attempts, transport="aiohttp") as client:
        with pytest.raises(lb.LLMBridgeError):
            await client.complete("fake:m", MESSAGES)
    assert server.requests == attempts


async def test_a_keep_alive_connection_the_server_closed_is_not_a_hidden_resend() -> None:
    """The server answers, keeps the connection, then closes it while it is idle: the next
    request goes out once, on a new connection (httpcore drops the closed one before writing),
    and succeeds; nothing is counted twice."""
    answered = anyio.Event()

    async def answer_then_close(stream: SocketStream) -> None:
        await stream.send(SSE_HEAD + chunk(sse_body({"text": "ok"}, {"finish": "stop"})))
        await stream.send(b"0\r\n\r\n")
        answered.set()
        await stream.aclose()

    server = CountingServer(answer_then_close)
    async with serve(server.script) as url, _client(url, 1) as client:
        assert (await client.complete("fake:m", MESSAGES)).text == "ok"
        await answered.wait()
        await anyio.sleep(0.05)  # the close reaches the client's idle connection
        assert (await client.complete("fake:m", MESSAGES)).text == "ok"
    assert server.requests == 2 and server.connections == 2
