"""A tiny HTTP/1.1 server on 127.0.0.1 for tests that need a real socket (stalls, resets):
``serve`` on the loop under test, ``ThreadedServer`` in threads outside every loop."""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from anyio.abc import Listener, SocketStream
from anyio.streams.tls import TLSListener

import llmbridge as lb

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


def http_error(status: int, reason: str, body: bytes, *headers: bytes) -> bytes:
    """A whole error answer: the status line, ``content-length``, ``headers`` and ``body``."""
    head = f"HTTP/1.1 {status} {reason}\r\ncontent-length: {len(body)}\r\n".encode()
    return head + b"".join(h + b"\r\n" for h in headers) + b"\r\n" + body


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


async def closed_port_url() -> str:
    """``http://127.0.0.1:PORT`` of a port just listened on and closed: connecting is refused."""
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    await listener.aclose()
    return f"http://127.0.0.1:{port}"


class ThreadedServer:
    """The same on plain sockets in threads, outside every event loop (for the sync client and
    for checks across loops): ``handler(conn)`` runs per connection in its own thread; counts the
    connections still open."""

    def __init__(self, handler: Callable[[socket.socket], None]) -> None:
        self.handler = handler
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.open = 0
        self.lock = threading.Lock()
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                self.open += 1
                self.sockets.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            with conn:
                self.handler(conn)
        except OSError:
            pass
        with self.lock:
            self.open -= 1

    def wait_all_closed(self, timeout: float = 30.0) -> int:
        """Wait until no connection is open (at most ``timeout`` s); return how many are."""
        deadline = time.monotonic() + timeout
        while self.open and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.open

    def close(self) -> None:
        self.listener.close()
        for conn in self.sockets:
            conn.close()


def read_requests(conn: socket.socket) -> Iterator[bytes]:
    """The heads of the HTTP/1.1 requests on a blocking socket, bodies read past, until EOF."""
    data = b""
    while piece := conn.recv(65536):
        data += piece
        while b"\r\n\r\n" in data:
            head, _, data = data.partition(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            while len(data) < length:
                data += conn.recv(65536)
            data = data[length:]
            yield head


async def fails_midway(
    client: Callable[[str], lb.Client],
    model: str,
    head: bytes,
    pieces: list[bytes],
    error: type[Exception],
) -> lb.LLMBridgeError:
    """Serve ``head`` then ``pieces`` (sent as given, 10 ms apart) to ``client(url)``'s stream of
    ``model``: the stream must yield the text ``"partial "`` and then raise ``error``, an
    ``LLMBridgeError`` whose partial holds that text. Returns the error."""

    async def script(stream: SocketStream) -> None:
        await read_request(stream)
        await stream.send(head)
        for piece in pieces:
            await stream.send(piece)
            await anyio.sleep(0.01)

    async with serve(script) as url:
        bridge = client(url)
        seen: list[lb.StreamEvent] = []
        with anyio.fail_after(5), pytest.raises(error) as info:
            async for event in bridge.stream(model, [lb.ChatMessage.user("hi")]):
                seen.append(event)
        await bridge.aclose()
    assert [e.text for e in seen if isinstance(e, lb.TextDelta)] == ["partial "]
    assert isinstance(info.value, lb.LLMBridgeError)
    assert info.value.partial is not None and info.value.partial.text == "partial "
    return info.value
