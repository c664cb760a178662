"""The sharded transport the default client uses: spread under load, reuse when sequential."""

from __future__ import annotations

import anyio
import httpx
import pytest
from anyio.abc import SocketStream

import llmbridge as lb
from llmbridge.client import default_http_client
from llmbridge.providers import register_provider
from llmbridge.stream.pool import ShardedTransport
from tests.fakes import FakeProvider, sse_body
from tests.loopback import SSE_HEAD, chunk, read_request, serve

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def _fake_registered() -> None:
    register_provider("fake", FakeProvider, replace=True)


def _script(gate: anyio.Event | None, connections: list[int]) -> object:
    async def script(stream: SocketStream) -> None:
        connections.append(1)
        while True:
            await read_request(stream)
            await stream.send(SSE_HEAD + chunk(sse_body({"text": "x"})))
            if gate is not None:
                await gate.wait()
            await stream.send(chunk(sse_body({"finish": "stop"})) + b"0\r\n\r\n")

    return script


async def test_sequential_requests_reuse_one_connection() -> None:
    connections: list[int] = []
    async with serve(_script(None, connections)) as url:  # type: ignore[arg-type]
        transport = ShardedTransport(shards=4)
        async with httpx.AsyncClient(transport=transport) as http:
            client = lb.Client(http_client=http, providers={"fake": {"base_url": url}})
            for _ in range(5):
                assert (await client.complete("fake:m", [lb.ChatMessage.user("hi")])).text == "x"
        assert len(connections) == 1
        assert transport.open == [0, 0, 0, 0]


async def test_concurrent_streams_spread_over_shards_and_are_released() -> None:
    connections: list[int] = []
    gate = anyio.Event()
    async with serve(_script(gate, connections)) as url:  # type: ignore[arg-type]
        transport = ShardedTransport(shards=4)
        async with httpx.AsyncClient(transport=transport) as http:
            client = lb.Client(http_client=http, providers={"fake": {"base_url": url}})
            texts: list[str] = []

            async def one() -> None:
                texts.append((await client.complete("fake:m", [lb.ChatMessage.user("hi")])).text)

            async with anyio.create_task_group() as tg:
                for _ in range(8):
                    tg.start_soon(one)
                with anyio.fail_after(5):
                    while sum(transport.open) < 8:  # noqa: ASYNC110
                        await anyio.sleep(0.01)
                assert transport.open == [2, 2, 2, 2]
                gate.set()
            assert texts == ["x"] * 8
            assert transport.open == [0, 0, 0, 0]


async def test_failed_requests_release_their_shard() -> None:
    transport = ShardedTransport(shards=2)
    async with httpx.AsyncClient(transport=transport) as http:
        client = lb.Client(
            http_client=http,
            providers={"fake": {"base_url": "http://127.0.0.1:9"}},
            retry=lb.RetryPolicy(max_attempts=1),
        )
        with pytest.raises(lb.ConnectionError):
            await client.complete("fake:m", [lb.ChatMessage.user("hi")])
    assert transport.open == [0, 0]


def test_default_client_uses_llm_friendly_timeouts() -> None:
    http = default_http_client()
    assert http.timeout.read == 120.0 and http.timeout.connect == 10.0
