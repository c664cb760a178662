"""The IO stack as an app meets it, on every event loop: the client ``Client()`` makes for itself
(httpx on httpcore's own backends), the aiohttp extra, proxies, one ``Client`` across loops,
errors that say what happened, and bounded memory on hostile bodies."""

from __future__ import annotations

import asyncio
import gc
import ssl
import time
import warnings
import zlib
from typing import Any

import anyio
import httpx
import pytest
from anyio.abc import SocketStream

import llmbridge as lb
from llmbridge.stream.clients import DEFAULT_LIMITS, HttpPool, _share
from tests.fakes import ChunkedBody, mock_client, sse_body
from tests.loopback import SSE_HEAD, chunk, closed_port_url, read_request, serve

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.usefixtures("fake_registered", "young_heap"),
]

MESSAGES = [lb.ChatMessage.user("hi")]
EVENTS = [{"text": "Hel"}, {"text": "lo"}, {"finish": "stop"}]


@pytest.fixture(autouse=True)
def _no_proxy_from_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


def on_asyncio(backend: Any) -> bool:
    return backend != "trio"


class Server:
    """A loopback SSE server that counts connections and requests (and their request lines)."""

    def __init__(self, body: bytes = sse_body(*EVENTS)) -> None:
        self.body = body
        self.connections = 0
        self.request_lines: list[bytes] = []

    async def script(self, stream: SocketStream) -> None:
        self.connections += 1
        while True:
            try:
                head, _ = await read_request(stream)
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                return
            self.request_lines.append(head.split(b"\r\n")[0])
            await stream.send(SSE_HEAD + chunk(self.body) + b"0\r\n\r\n")


def fake_client(url: str, **options: Any) -> lb.Client:
    return lb.Client(providers={"fake": {"base_url": url}}, **options)


# -- the default client and the aiohttp extra, on every loop -----------------------------------


async def test_default_client_streams_on_every_loop_and_reuses_one_connection() -> None:
    server = Server()
    async with serve(server.script) as url, fake_client(url) as client:
        for _ in range(3):
            response = await client.complete("fake:m", MESSAGES)
            assert response.text == "Hello" and response.finish_reason == "stop"
    assert server.connections == 1  # sequential requests share one keep-alive connection


async def test_default_client_spreads_concurrent_streams_and_keeps_them_exact() -> None:
    server = Server()
    results: list[str] = []
    async with serve(server.script) as url, fake_client(url, shards=4) as client:

        async def one() -> None:
            results.append((await client.complete("fake:m", MESSAGES)).text)

        async with anyio.create_task_group() as tg:
            for _ in range(40):
                tg.start_soon(one)
    assert results == ["Hello"] * 40
    assert server.connections >= 2


async def test_aiohttp_transport_streams_under_asyncio_and_says_so_under_trio(
    anyio_backend: Any,
) -> None:
    server = Server()
    async with serve(server.script) as url, fake_client(url, transport="aiohttp") as client:
        if not on_asyncio(anyio_backend):
            with pytest.raises(lb.ConfigurationError, match="asyncio"):
                await client.complete("fake:m", MESSAGES)
            return
        for _ in range(2):
            assert (await client.complete("fake:m", MESSAGES)).text == "Hello"
    assert server.connections == 1


def test_limits_are_totals_across_shards() -> None:
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=10)
    parts = [_share(limits, i, 32) for i in range(32)]
    assert sum(p.max_connections or 0 for p in parts) == 100
    assert sum(p.max_keepalive_connections or 0 for p in parts) == 10
    assert HttpPool(limits=httpx.Limits(max_connections=3)).limits.max_connections == 3
    assert DEFAULT_LIMITS.max_connections and DEFAULT_LIMITS.max_connections >= 1000


# -- proxies: one code path, NO_PROXY included --------------------------------------------------


@pytest.mark.parametrize("transport", ["httpx", "aiohttp"])
async def test_proxy_variables_route_requests_and_no_proxy_bypasses(
    transport: str, anyio_backend: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    if transport == "aiohttp" and not on_asyncio(anyio_backend):
        pytest.skip("aiohttp needs asyncio")
    proxy, origin = Server(), Server()
    async with serve(proxy.script) as proxy_url, serve(origin.script) as origin_url:
        monkeypatch.setenv("HTTP_PROXY", proxy_url)
        async with fake_client(origin_url, transport=transport) as client:
            assert (await client.complete("fake:m", MESSAGES)).text == "Hello"
        assert proxy.request_lines and proxy.request_lines[0].startswith(
            f"POST {origin_url}/chat".encode()
        )  # absolute-form: the proxy was asked to forward
        assert origin.request_lines == []
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        async with fake_client(origin_url, transport=transport) as client:
            assert (await client.complete("fake:m", MESSAGES)).text == "Hello"
        assert origin.request_lines == [b"POST /chat HTTP/1.1"]


# -- errors that say what happened -------------------------------------------------------------


async def test_connection_refused_names_host_and_port() -> None:
    url = await closed_port_url()
    async with fake_client(url, retry=lb.RetryPolicy(max_attempts=1)) as client:
        with pytest.raises(lb.ConnectionError, match=url.removeprefix("http://")):
            await client.complete("fake:m", MESSAGES)


async def test_rejected_certificate_is_a_certificate_error_and_not_retried() -> None:
    trustme = pytest.importorskip("trustme")
    ca = trustme.CA()
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost").configure_cert(server_ctx)
    server = Server()
    patient = lb.RetryPolicy(max_attempts=3, initial_delay=30, max_delay=30)  # a retry: 30 s
    async with (
        serve(server.script, tls=server_ctx) as url,
        fake_client(url, retry=patient) as client,
    ):
        start = time.monotonic()
        with pytest.raises(lb.CertificateError, match="certificate") as info:
            await client.complete("fake:m", MESSAGES)
        assert time.monotonic() - start < 10  # no retry: a certificate does not heal
    assert not info.value.retryable
    assert "localhost" in str(info.value)


async def test_server_error_with_a_body_cut_short_stays_a_server_error() -> None:
    async def script(stream: SocketStream) -> None:
        await read_request(stream)
        await stream.send(
            b"HTTP/1.1 500 Internal Server Error\r\ncontent-type: application/json\r\n"
            b'content-length: 500\r\n\r\n{"error": {"message": "boom"'
        )

    async with serve(script) as url:
        client = fake_client(url, retry=lb.RetryPolicy(max_attempts=1))
        with pytest.raises(lb.ServerError) as info:
            await client.complete("fake:m", MESSAGES)
        assert info.value.status == 500
        await client.aclose()


# -- one Client, any loop ----------------------------------------------------------------------


def test_one_client_across_two_asyncio_runs_and_trio() -> None:
    async def main() -> None:
        async with serve(server.script) as url:
            client.provider("fake").base_url = url  # type: ignore[attr-defined]
            assert (await client.complete("fake:m", MESSAGES)).text == "Hello"

    server = Server()
    client = fake_client("http://unused.test")
    with _no_hang(20):
        asyncio.run(main())
        asyncio.run(main())  # connections of the closed loop are not reused
        anyio.run(main, backend="trio")


def test_an_apps_client_from_a_closed_loop_fails_at_once_typed() -> None:
    server = Server()
    http = httpx.AsyncClient()

    async def main(url: str) -> str:
        client = lb.Client(http_client=http, providers={"fake": {"base_url": url}})
        return (await client.complete("fake:m", MESSAGES)).text

    async def first() -> str:
        async with serve(server.script) as url:
            return await main(url)

    async def second() -> None:
        async with serve(server.script) as url:
            with pytest.raises(lb.ConfigurationError, match="event loop that is closed"):
                await main(url)  # the pool still holds the first loop's connection

    assert asyncio.run(first()) == "Hello"
    start = time.monotonic()
    asyncio.run(second())
    assert time.monotonic() - start < 5


class _no_hang:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __enter__(self) -> None:
        self.start = time.monotonic()

    def __exit__(self, *exc: object) -> None:
        assert time.monotonic() - self.start < self.seconds


# -- bounded memory on hostile bodies ----------------------------------------------------------


async def test_endless_comment_lines_end_in_malformed_stream_with_the_partial() -> None:
    async def script(stream: SocketStream) -> None:
        await read_request(stream)
        await stream.send(SSE_HEAD + chunk(sse_body({"text": "first"})))
        for _ in range(2_000):  # 20 MB of comments, never a blank line
            await stream.send(chunk(b": keep-alive\n" * 800))

    async with serve(script) as url:
        client = fake_client(url, max_event_bytes=1 << 20)
        with pytest.raises(lb.MalformedStreamError, match="max_event_bytes") as info:
            await client.complete("fake:m", MESSAGES)
        assert info.value.partial is not None and info.value.partial.text == "first"
        await client.aclose()


async def test_a_gzip_bomb_is_stopped_at_the_default_limit() -> None:
    gz = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip framing
    first = gz.compress(sse_body({"text": "first"})) + gz.flush(zlib.Z_SYNC_FLUSH)
    bomb = gz.compress(b"data: " + b"x" * (40 << 20)) + gz.flush()  # 40 MiB in ~40 KB
    chunks = [first] + [bomb[i : i + 16384] for i in range(0, len(bomb), 16384)]

    def handler(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "text/event-stream", "content-encoding": "gzip"}
        return httpx.Response(200, headers=headers, stream=ChunkedBody(chunks))

    async with mock_client(handler) as http:
        client = lb.Client(http_client=http)
        with pytest.raises(lb.MalformedStreamError, match="16,777,216") as info:
            await client.complete("fake:m", MESSAGES)
        assert info.value.partial is not None and info.value.partial.text == "first"


async def test_many_small_events_are_never_limited() -> None:
    events = [{"text": "x" * 100}] * 5_000 + [{"finish": "stop"}]

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=sse_body(*events)
        )

    async with mock_client(handler) as http:
        client = lb.Client(http_client=http, max_event_bytes=4096)
        assert len((await client.complete("fake:m", MESSAGES)).text) == 500_000


# -- closing ---------------------------------------------------------------------------------


async def test_breaking_out_of_a_stream_leaves_no_resource_warning() -> None:
    server = Server(sse_body(*[{"text": "x"}] * 50, {"finish": "stop"}))
    gc.collect()  # what earlier tests in this process left to the collector is not this test's
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async with serve(server.script) as url, fake_client(url) as client:
            async with client.stream("fake:m", MESSAGES) as stream:
                async for _event in stream:
                    break
            assert (await client.complete("fake:m", MESSAGES)).text == "x" * 50
        gc.collect()
        await anyio.sleep(0.05)
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


@pytest.mark.parametrize("attempts", [1, 2])
async def test_a_request_a_reused_connection_hung_up_on_is_an_attempt(attempts: int) -> None:
    """The server reads the reused connection's next request, then hangs up without answering:
    it may have run it, so it is not resent behind the policy's back (issue 34, item 7): with
    ``max_attempts=1`` it is a ``ConnectionError``; with 2 the retry is the second attempt."""
    connections = requests = 0

    async def script(stream: SocketStream) -> None:
        nonlocal connections, requests
        connections += 1
        first = connections == 1
        await read_request(stream)
        requests += 1
        await stream.send(SSE_HEAD + chunk(sse_body(*EVENTS)) + b"0\r\n\r\n")
        if first:
            await read_request(stream)  # the reused connection's next request: hang up on it
            requests += 1
            await stream.aclose()
            return
        while True:
            await read_request(stream)
            requests += 1
            await stream.send(SSE_HEAD + chunk(sse_body(*EVENTS)) + b"0\r\n\r\n")

    policy = lb.RetryPolicy(max_attempts=attempts, initial_delay=0.001, max_delay=0.002)
    async with serve(script) as url, fake_client(url, retry=policy) as client:
        assert (await client.complete("fake:m", MESSAGES)).text == "Hello"
        if attempts == 1:
            with pytest.raises(lb.ConnectionError):
                await client.complete("fake:m", MESSAGES)
        else:
            assert (await client.complete("fake:m", MESSAGES)).text == "Hello"
    assert requests == 1 + attempts


def test_clients_of_finished_loops_are_dropped() -> None:
    server = Server()
    client = fake_client("http://unused.test")

    async def main() -> None:
        async with serve(server.script) as url:
            client.provider("fake").base_url = url  # type: ignore[attr-defined]
            assert (await client.complete("fake:m", MESSAGES)).text == "Hello"

    for backend in ("trio", "trio", "asyncio", "trio"):
        anyio.run(main, backend=backend)
        assert client._http._by_loop == {}  # each run's clients were closed as it ended


def test_options_for_the_clients_own_http_client_are_refused_with_an_apps_client() -> None:
    http = httpx.AsyncClient()
    with pytest.raises(lb.UsageError, match="http_client"):
        lb.Client(http_client=http, transport="aiohttp")
    with pytest.raises(lb.UsageError, match="http_client"):
        lb.Client(http_client=http, shards=4)
    with pytest.raises(lb.UsageError, match="transport must be"):
        lb.Client(transport="curl")  # type: ignore[arg-type]
