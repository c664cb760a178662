"""A tiny HTTP/1.1 server on 127.0.0.1 for tests that need a real socket (stalls, resets)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import anyio
from anyio.abc import SocketStream

Script = Callable[[SocketStream], Awaitable[None]]


async def read_request(stream: SocketStream) -> tuple[bytes, bytes]:
    """Read one HTTP/1.1 request; return its head and body."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += await stream.receive()
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        body += await stream.receive()
    return head, body


def chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


SSE_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
)


@asynccontextmanager
async def serve(script: Script) -> AsyncIterator[str]:
    """Run ``script`` for every connection; yield the base URL. Stops with the block."""
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)

    async def handle(stream: SocketStream) -> None:
        async with stream:
            try:
                await script(stream)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream):
                pass

    async with anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, handle)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            tg.cancel_scope.cancel()
