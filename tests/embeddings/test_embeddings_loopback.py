"""Embedding calls over a real socket on 127.0.0.1, on asyncio, uvloop and trio: a split call's
base64 answers, sent chunked in small pieces, decode in input order with the request id of the
head; a ``Retry-After`` the call's ``timeout`` cannot wait for ends the call at once."""

from __future__ import annotations

import base64
import struct

import anyio
import orjson
import pytest
from anyio.abc import SocketStream

import llmbridge as lb
from tests.loopback import chunk, http_error, read_request, serve

pytestmark = [pytest.mark.anyio, pytest.mark.io]


def _vector(n: int) -> bytes:
    return struct.pack("<3f", n, -n / 2, 0.125)


async def _embeddings(stream: SocketStream) -> None:
    """``/v1/embeddings``: input ``"<n>"`` embeds to ``[n, -n/2, 0.125]``, the answer chunked in
    7-byte pieces, items in reverse order, on a keep-alive connection."""
    while True:
        _, body = await read_request(stream)
        texts = orjson.loads(body)["input"]
        items = [
            {"index": i, "embedding": base64.b64encode(_vector(int(t))).decode()}
            for i, t in reversed(list(enumerate(texts)))
        ]
        data = orjson.dumps({"data": items, "model": "m", "usage": {"prompt_tokens": len(texts)}})
        head = (
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
            b"x-request-id: loop-1\r\ntransfer-encoding: chunked\r\n\r\n"
        )
        await stream.send(head)
        for i in range(0, len(data), 7):
            await stream.send(chunk(data[i : i + 7]))
        await stream.send(b"0\r\n\r\n")


async def test_a_split_call_over_a_socket_decodes_in_input_order() -> None:
    async with serve(_embeddings) as url:
        client = lb.Client(providers={"openai-compatible": {"base_url": f"{url}/v1"}})
        async with client:
            texts = [str(i) for i in range(1500)]
            got = await client.embed(
                "openai-compatible:m", texts, dimensions=3000, max_concurrency=2
            )
    assert got.vectors[1499] == list(struct.unpack("<3f", _vector(1499)))
    assert got.vectors[:2] == [[0.0, -0.0, 0.125], [1.0, -0.5, 0.125]]
    assert got.request_id == "loop-1"
    assert got.usage is not None and got.usage.input_tokens == 1500


async def test_a_retry_after_past_the_timeout_ends_the_call_over_a_socket() -> None:
    requests = 0

    async def limited(stream: SocketStream) -> None:
        nonlocal requests
        await read_request(stream)
        requests += 1
        body = b'{"error": {"message": "slow down", "type": "rate_limit"}}'
        await stream.send(http_error(429, "Too Many Requests", body, b"retry-after: 30"))

    async with serve(limited) as url:
        client = lb.Client(
            providers={"openai-compatible": {"base_url": f"{url}/v1"}},
            retry=lb.RetryPolicy(max_attempts=3),
        )
        async with client:
            start = anyio.current_time()
            with anyio.fail_after(10), pytest.raises(lb.TimeoutError):
                await client.embed("openai-compatible:m", ["a"], timeout=3)
            took = anyio.current_time() - start
    assert took < 2 and requests == 1
