"""The IO path over real sockets: idle timeout, connection drop, pool left clean."""

from __future__ import annotations

import anyio
import httpx
import pytest
from anyio.abc import SocketStream

import llmbridge as lb
from tests.fakes import sse_body
from tests.loopback import SSE_HEAD, chunk, read_request, serve

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("fake_registered")]


async def test_idle_timeout_between_chunks_raises_with_partial() -> None:
    async def script(stream: SocketStream) -> None:
        await read_request(stream)
        await stream.send(SSE_HEAD + chunk(sse_body({"text": "first"})))
        await anyio.sleep(5)

    async with serve(script) as url:
        http = httpx.AsyncClient(timeout=httpx.Timeout(5.0, read=0.3))
        client = lb.Client(http_client=http, providers={"fake": {"base_url": url}})
        events: list[lb.StreamEvent] = []
        with anyio.fail_after(4):
            with pytest.raises(lb.TimeoutError) as info:
                async for event in client.stream("fake:m", [lb.ChatMessage.user("hi")]):
                    events.append(event)
        assert [e.text for e in events if isinstance(e, lb.TextDelta)] == ["first"]
        assert info.value.partial is not None and info.value.partial.text == "first"
        assert all(c.is_closed() or c.is_idle() for c in http._transport._pool.connections)  # type: ignore[attr-defined]
        await http.aclose()


async def test_connection_drop_midway_is_truncation_with_partial() -> None:
    async def script(stream: SocketStream) -> None:
        await read_request(stream)
        await stream.send(SSE_HEAD + chunk(sse_body({"text": "half"})))
        await stream.send(b'7f\r\ndata: {"te')  # promise 127 bytes, send a few, then reset

    async with serve(script) as url:
        async with httpx.AsyncClient() as http:
            client = lb.Client(http_client=http, providers={"fake": {"base_url": url}})
            with pytest.raises(lb.StreamTruncatedError) as info:
                await client.complete("fake:m", [lb.ChatMessage.user("hi")])
            assert info.value.partial is not None and info.value.partial.text == "half"
            assert all(c.is_closed() or c.is_idle() for c in http._transport._pool.connections)  # type: ignore[attr-defined]


async def test_full_stream_over_a_socket_leaves_the_connection_reusable() -> None:
    connections = 0

    async def script(stream: SocketStream) -> None:
        nonlocal connections
        connections += 1
        for _ in range(2):
            await read_request(stream)
            body = sse_body({"text": "ok"}, {"finish": "stop"})
            await stream.send(SSE_HEAD + chunk(body) + b"0\r\n\r\n")

    async with serve(script) as url:
        async with httpx.AsyncClient() as http:
            client = lb.Client(http_client=http, providers={"fake": {"base_url": url}})
            for _ in range(2):
                assert (await client.complete("fake:m", [lb.ChatMessage.user("hi")])).text == "ok"
    assert connections == 1, "the second request reused the first connection"
