"""A tiny HTTP/1.1 server on 127.0.0.1 for tests that need a real socket (stalls, resets)."""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
from anyio.abc import Listener, SocketStream
from anyio.streams.tls import TLSListener

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
async def serve(script: Script, *, tls: ssl.SSLContext | None = None) -> AsyncIterator[str]:
    """Run ``script`` for every connection; yield the base URL. Stops with the block.

    With ``tls`` (a server context holding a certificate for ``localhost``) connections are
    TLS and the URL is ``https://localhost:<port>``."""
    tcp = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = tcp.extra(anyio.abc.SocketAttribute.local_port)
    listener: Listener[Any] = tcp
    if tls is not None:
        listener = TLSListener(tcp, tls, standard_compatible=False)

    async def handle(stream: SocketStream) -> None:
        async with stream:
            try:
                await script(stream)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream):
                pass

    async with listener, anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, handle)
        try:
            yield f"https://localhost:{port}" if tls else f"http://127.0.0.1:{port}"
        finally:
            tg.cancel_scope.cancel()
