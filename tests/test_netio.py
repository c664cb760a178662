"""The default client's network backend (``stream/netio.py``) over real sockets, TLS included.

Under asyncio the default client reads through asyncio protocols; under trio through
httpcore's anyio streams. Every test runs on both and checks what an app sees.
"""

from __future__ import annotations

import asyncio
import os
import socket
import ssl
import struct
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpcore
import httpx
import pytest
import trustme
from anyio.abc import SocketStream

import llmbridge as lb
from llmbridge.client import default_http_client
from llmbridge.providers import register_provider
from llmbridge.stream import netio
from llmbridge.stream.netio import AsyncioBackend
from llmbridge.stream.pool import ShardedTransport
from tests.fakes import FakeProvider, sse_body
from tests.loopback import SSE_HEAD, Script, chunk, read_request, serve

pytestmark = pytest.mark.anyio

HI = [lb.ChatMessage.user("hi")]


@pytest.fixture(autouse=True)
def _fake_registered() -> None:
    register_provider("fake", FakeProvider, replace=True)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch, anyio_backend: str) -> Iterator[list[object]]:
    """Connections opened through our asyncio streams: some under asyncio, none under trio."""
    opened: list[object] = []
    original = netio.AsyncioStream.__init__

    def spy(self: netio.AsyncioStream, *args: object) -> None:
        opened.append(self)
        original(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(netio.AsyncioStream, "__init__", spy)
    yield opened
    assert bool(opened) == (anyio_backend == "asyncio")


def _client(url: str, http: httpx.AsyncClient | None = None) -> lb.Client:
    return lb.Client(
        http_client=http or default_http_client(),
        providers={"fake": {"base_url": url}},
        retry=lb.RetryPolicy(max_attempts=1),
    )


def _timeout_client(**timeouts: float) -> httpx.AsyncClient:
    transport = ShardedTransport(shards=1, network_backend=AsyncioBackend())
    return httpx.AsyncClient(timeout=httpx.Timeout(5.0, **timeouts), transport=transport)


def _stream_script(texts: list[str], connections: list[int]) -> Script:
    async def script(stream: SocketStream) -> None:
        connections.append(1)
        while True:
            await read_request(stream)
            body = sse_body(*({"text": t} for t in texts), {"finish": "stop"})
            await stream.send(SSE_HEAD + chunk(body) + b"0\r\n\r\n")

    return script


async def test_sequential_streams_reuse_one_connection(reads: list[object]) -> None:
    connections: list[int] = []
    async with serve(_stream_script(["a", "b"], connections)) as url:
        async with _client(url) as client:
            for _ in range(3):
                assert (await client.complete("fake:m", HI)).text == "ab"
    assert len(connections) == 1


async def test_a_slow_reader_gets_a_large_body_exact(reads: list[object]) -> None:
    """The server sends ~1.4 MB at once while the app pauses: reading pauses and resumes."""
    texts = [f"{i:07d}" + "x" * 200 for i in range(6000)]
    got: list[str] = []
    async with serve(_stream_script(texts, [])) as url, _client(url) as client:
        with anyio.fail_after(10):
            async for event in client.stream("fake:m", HI):
                if isinstance(event, lb.TextDelta):
                    if not got:
                        await anyio.sleep(0.3)  # everything else arrives meanwhile
                    got.append(event.text)
    assert got == texts


async def test_a_large_request_body_is_sent_whole(reads: list[object]) -> None:
    received: list[int] = []

    async def script(stream: SocketStream) -> None:
        _head, body = await read_request(stream)
        received.append(len(body))
        await stream.send(SSE_HEAD + chunk(sse_body({"text": "ok"}, {"finish": "stop"})))
        await stream.send(b"0\r\n\r\n")

    big = [lb.ChatMessage.user("y" * 4_000_000)]
    async with serve(script) as url, _client(url) as client:
        assert (await client.complete("fake:m", big)).text == "ok"
    assert received and received[0] > 4_000_000


async def test_a_server_that_stops_reading_hits_the_write_timeout(reads: list[object]) -> None:
    async def script(stream: SocketStream) -> None:
        await stream.receive()  # the start of the request, then nothing more is read
        await anyio.sleep(5)

    async with serve(script) as url, _client(url, _timeout_client(write=0.3)) as client:
        with anyio.fail_after(4), pytest.raises(lb.TimeoutError):
            await client.complete("fake:m", [lb.ChatMessage.user("z" * 30_000_000)])


async def test_idle_timeout_between_chunks_raises_with_partial(reads: list[object]) -> None:
    async def script(stream: SocketStream) -> None:
        await read_request(stream)
        await stream.send(SSE_HEAD + chunk(sse_body({"text": "partial"})))
        await anyio.sleep(5)

    async with serve(script) as url, _client(url, _timeout_client(read=0.3)) as client:
        with anyio.fail_after(4), pytest.raises(lb.TimeoutError) as info:
            await client.complete("fake:m", HI)
    assert info.value.partial is not None and info.value.partial.text == "partial"


async def test_connection_drop_midway_is_truncation_with_partial(reads: list[object]) -> None:
    async def script(stream: SocketStream) -> None:
        await read_request(stream)
        await stream.send(SSE_HEAD + chunk(sse_body({"text": "half"})))
        await stream.aclose()

    async with serve(script) as url, _client(url) as client:
        with pytest.raises(lb.StreamTruncatedError) as info:
            await client.complete("fake:m", HI)
    assert info.value.partial is not None and info.value.partial.text == "half"


async def test_a_keepalive_connection_the_server_closed_is_not_reused(reads: list[object]) -> None:
    connections: list[int] = []

    async def script(stream: SocketStream) -> None:
        connections.append(1)
        await read_request(stream)
        body = sse_body({"text": "once"}, {"finish": "stop"})
        await stream.send(SSE_HEAD + chunk(body) + b"0\r\n\r\n")
        # keep-alive was offered, but the server closes the idle connection

    async with serve(script) as url, _client(url) as client:
        assert (await client.complete("fake:m", HI)).text == "once"
        await anyio.sleep(0.2)  # the close reaches the client while the connection is idle
        assert (await client.complete("fake:m", HI)).text == "once"
    assert len(connections) == 2


async def test_nothing_listening_is_a_connection_error(anyio_backend: str) -> None:
    async with _client("http://127.0.0.1:9") as client:
        with pytest.raises(lb.ConnectionError):
            await client.complete("fake:m", HI)


# -- TLS ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


def _server_tls(ca: trustme.CA) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost").configure_cert(context)
    return context


def _tls_client(url: str, verify: ssl.SSLContext) -> lb.Client:
    transport = ShardedTransport(shards=2, verify=verify, network_backend=AsyncioBackend())
    return _client(url, httpx.AsyncClient(transport=transport))


async def test_tls_streams_are_read_exact_over_a_kept_connection(
    ca: trustme.CA, reads: list[object]
) -> None:
    connections: list[int] = []
    client_context = ssl.create_default_context()
    ca.configure_trust(client_context)
    texts = [f"t{i} " for i in range(2000)]
    async with serve(_stream_script(texts, connections), tls=_server_tls(ca)) as url:
        async with _tls_client(url, client_context) as client:
            for _ in range(2):
                assert (await client.complete("fake:m", HI)).text == "".join(texts)
    assert len(connections) == 1


async def test_an_untrusted_certificate_is_a_connection_error(
    ca: trustme.CA, anyio_backend: str
) -> None:
    async with serve(_stream_script(["x"], []), tls=_server_tls(ca)) as url:
        async with _tls_client(url, ssl.create_default_context()) as client:
            with pytest.raises(lb.ConnectionError, match="CERTIFICATE_VERIFY_FAILED"):
                await client.complete("fake:m", HI)


async def test_cancelling_a_waiting_read_leaves_the_client_usable(reads: list[object]) -> None:
    calls: list[int] = []

    async def script(stream: SocketStream) -> None:
        calls.append(1)
        await read_request(stream)
        await stream.send(SSE_HEAD + chunk(sse_body({"text": "slow"})))
        if len(calls) == 1:
            await anyio.sleep(5)  # the first stream stalls; the app gives up on it
        await stream.send(chunk(sse_body({"finish": "stop"})) + b"0\r\n\r\n")

    async with serve(script) as url, _client(url) as client:
        with anyio.move_on_after(0.3) as scope:
            async for _event in client.stream("fake:m", HI):
                pass
        assert scope.cancelled_caught
        with anyio.fail_after(3):
            assert (await client.complete("fake:m", HI)).text == "slow"
    assert len(calls) == 2


# -- the backend itself, side by side with httpcore's AnyIO backend (the reference) -------------

BACKENDS = {"ours": AsyncioBackend, "httpcore-anyio": httpcore.AnyIOBackend}


async def _silent_server() -> asyncio.Server:
    """Accepts and never reads, with a small receive buffer: writes back up quickly."""

    async def handle(_reader: asyncio.StreamReader, _writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(30)

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    for sock in server.sockets:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    return server


def _port(server: asyncio.Server) -> int:
    return int(server.sockets[0].getsockname()[1])


def _fd_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


@pytest.mark.parametrize("backend", BACKENDS)
def test_closing_after_a_write_timeout_releases_the_socket(backend: str) -> None:
    async def main() -> bool:
        server = await _silent_server()
        stream = await BACKENDS[backend]().connect_tcp("127.0.0.1", _port(server), timeout=5)
        fd = stream.get_extra_info("socket").fileno()
        with pytest.raises(httpcore.WriteTimeout):
            await stream.write(b"z" * 30_000_000, timeout=0.3)
        await stream.aclose()
        await asyncio.sleep(0.5)
        server.close()
        return _fd_open(fd)

    assert asyncio.run(main()) is False


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_cancelled_or_timed_out_write_does_not_spoil_the_next(backend: str) -> None:
    async def main() -> float:
        server = await _silent_server()
        stream = await BACKENDS[backend]().connect_tcp("127.0.0.1", _port(server), timeout=5)
        task = asyncio.ensure_future(stream.write(b"z" * 30_000_000, timeout=None))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        loop = asyncio.get_running_loop()
        start = loop.time()
        with pytest.raises(httpcore.WriteTimeout):  # a timeout of its own, not a stale one
            await stream.write(b"y", timeout=0.4)
        waited = loop.time() - start
        with pytest.raises(httpcore.WriteTimeout):
            await stream.write(b"y", timeout=0.4)
        waited = min(waited, loop.time() - start - waited)
        await stream.aclose()
        server.close()
        return waited

    assert asyncio.run(main()) >= 0.3


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_reset_while_waiting_to_write_is_a_write_error(backend: str) -> None:
    async def main() -> None:
        async def handle(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await asyncio.sleep(0.3)
            sock = writer.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.transport.abort()  # RST

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        stream = await BACKENDS[backend]().connect_tcp("127.0.0.1", _port(server), timeout=5)
        try:
            with pytest.raises(httpcore.WriteError):
                await stream.write(b"z" * 30_000_000, timeout=3)
        finally:
            await stream.aclose()
            server.close()

    asyncio.run(main())


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_bad_socket_option_is_a_connect_error(backend: str) -> None:
    async def main() -> None:
        server = await _silent_server()
        try:
            with pytest.raises(httpcore.ConnectError):
                await BACKENDS[backend]().connect_tcp(
                    "127.0.0.1",
                    _port(server),
                    timeout=5,
                    socket_options=[(socket.SOL_SOCKET, 123456, 1)],
                )
        finally:
            server.close()

    asyncio.run(main())


# -- the default client and its environment ------------------------------------------------------


async def test_a_proxy_named_by_the_environment_is_used(
    monkeypatch: pytest.MonkeyPatch, anyio_backend: str
) -> None:
    lines: list[bytes] = []

    async def proxy(stream: SocketStream) -> None:
        head, _body = await read_request(stream)
        lines.append(head.split(b"\r\n")[0])
        await stream.send(SSE_HEAD + chunk(sse_body({"text": "via proxy"}, {"finish": "stop"})))
        await stream.send(b"0\r\n\r\n")

    async with serve(proxy) as proxy_url:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
            monkeypatch.delenv(name, raising=False)
            monkeypatch.delenv(name.lower(), raising=False)
        monkeypatch.setenv("HTTP_PROXY", proxy_url)
        async with _client("http://upstream.invalid/v1") as client:
            assert (await client.complete("fake:m", HI)).text == "via proxy"
    assert lines and lines[0].startswith(b"POST http://upstream.invalid/v1")


async def test_ca_settings_given_after_the_first_client_are_honoured(
    ca: trustme.CA, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reads: list[object]
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    await default_http_client().aclose()  # an earlier client, built without the CA
    ca.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))
    async with serve(_stream_script(["trusted"], []), tls=_server_tls(ca)) as url:
        async with _client(url) as client:
            assert (await client.complete("fake:m", HI)).text == "trusted"
