"""Every resource a response can make us hold is bounded (issue 34, items 2 and 3), on asyncio,
uvloop and trio.

* Decompressed bytes per response: ``max_response_bytes`` (default 256 MiB).
* Blank lines that end no event count against ``max_event_bytes``; a gzip body of blank lines
  (65 KB on the wire, 64 MB inflated) fails at once instead of costing 15 s and 705 MB.
* Memory of the reader: an endless line, gzip-encoded, peaks within twice the event bound.
* The record kept for ``err.partial`` follows the content, not the event count, and events
  per response are bounded (``max_events``).
"""

from __future__ import annotations

import time
import tracemalloc
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.stream.bounded import DEFAULT_MAX_RESPONSE_BYTES, PIECE_BYTES
from llmbridge.stream.record import DEFAULT_MAX_EVENTS, FOLD_EVERY
from tests.fakes import ChunkedBody, mock_client, sse_body
from tests.loopback import SSE_HEAD, chunk, read_request, serve

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("fake_registered")]
MESSAGES = [lb.ChatMessage.user("hi")]
MiB = 1024 * 1024


def _gzip(*pieces: bytes) -> list[bytes]:
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = [z.compress(p) + z.flush(zlib.Z_SYNC_FLUSH) for p in pieces]
    return [*out[:-1], out[-1] + z.flush()]


def _client(chunks: list[bytes], encoding: str | None = "gzip", **options: Any) -> lb.Client:
    headers = {"content-type": "text/event-stream"}
    if encoding:
        headers["content-encoding"] = encoding

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=headers, stream=ChunkedBody(list(chunks)))

    return lb.Client(http_client=mock_client(handler), **options)


@contextmanager
def _peak() -> Iterator[list[int]]:
    """The peak of Python memory allocated inside the block (tracemalloc), in bytes."""
    out: list[int] = []
    tracemalloc.start()
    try:
        yield out
    finally:
        out.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()


def _wire(chunks: list[bytes], size: int = 16384) -> list[bytes]:
    """The first (flushed) chunk alone, the rest in reads of ``size``."""
    body = b"".join(chunks[1:])
    return [chunks[0], *(body[i : i + size] for i in range(0, len(body), size))]


# -- item 2: decompressed bytes, blank lines, the reader's memory ------------------------------


async def test_a_gzip_body_of_blank_lines_fails_at_once(anyio_backend: Any) -> None:
    blank = _gzip(sse_body({"text": "first"}), b"\n" * (64 * MiB))
    assert sum(map(len, blank)) < 100_000  # the 65 KB on the wire
    client = _client(_wire(blank))
    start = time.process_time()
    with _peak() as peak, pytest.raises(lb.MalformedStreamError) as info:
        await client.complete("fake:m", MESSAGES)
    assert time.process_time() - start < 2.0  # was 15 s
    assert peak[0] < 16 * MiB  # was 705 MB
    assert info.value.partial is not None and info.value.partial.text == "first"
    await client.aclose()


async def test_blank_lines_count_against_the_event_bound(anyio_backend: Any) -> None:
    """Blank lines that end no event used to reset the count at each one: 1 MB of them, in
    reads small enough to pass the density rule, now end at the event bound."""
    body = sse_body({"text": "first"}) + b"\n" * MiB + sse_body({"finish": "stop"})
    reads = [body[i : i + 4096] for i in range(0, len(body), 4096)]
    client = _client(reads, encoding=None, max_event_bytes=64 * 1024)
    with pytest.raises(lb.MalformedStreamError, match="max_event_bytes") as info:
        await client.complete("fake:m", MESSAGES)
    assert info.value.partial is not None and info.value.partial.text == "first"
    await client.aclose()


async def test_blank_lines_after_events_do_not_grow_the_count_of_the_next(
    anyio_backend: Any,
) -> None:
    events = [{"text": "x" * 50}] * 200 + [{"finish": "stop"}]
    body = b"".join(sse_body(e) + b"\n" * 3 for e in events)  # a few extra blank lines each
    client = _client(_gzip(body), max_event_bytes=200)
    assert (await client.complete("fake:m", MESSAGES)).text == "x" * 50 * 200
    await client.aclose()


async def test_an_endless_gzip_line_peaks_within_twice_the_event_bound(anyio_backend: Any) -> None:
    limit = 4 * MiB
    endless = _gzip(sse_body({"text": "first"}), b"data: " + b"x" * (64 * MiB))
    client = _client(_wire(endless), max_event_bytes=limit)
    with _peak() as peak, pytest.raises(lb.MalformedStreamError, match="max_event_bytes"):
        await client.complete("fake:m", MESSAGES)
    assert peak[0] <= 2 * limit  # was 180 MB against 16 MiB
    await client.aclose()


async def test_the_response_bound_holds_for_valid_events(anyio_backend: Any) -> None:
    events = [{"text": "y" * 100}] * 5_000 + [{"finish": "stop"}]
    body = sse_body(*events)
    client = _client(_gzip(body), max_response_bytes=len(body) // 2)
    with pytest.raises(lb.MalformedStreamError, match="max_response_bytes") as info:
        await client.complete("fake:m", MESSAGES)
    partial = info.value.partial
    assert partial is not None and 0 < len(partial.text) < 100 * 5_000
    assert set(partial.text) == {"y"}
    await client.aclose()
    whole = _client(_gzip(body), max_response_bytes=len(body))
    assert len((await whole.complete("fake:m", MESSAGES)).text) == 500_000
    await whole.aclose()


async def test_deflate_and_plain_bodies_are_read_in_bounded_pieces(anyio_backend: Any) -> None:
    events = [{"text": "z" * 1000}] * 300 + [{"finish": "stop"}]
    body = sse_body(*events)
    raw = zlib.compressobj(9, zlib.DEFLATED, -15)
    wrapped = zlib.compressobj(9, zlib.DEFLATED, 15)
    for chunks, encoding in (
        ([raw.compress(body) + raw.flush()], "deflate"),  # raw deflate, as some servers send
        ([wrapped.compress(body) + wrapped.flush()], "deflate"),
        ([body], None),  # one read far larger than a piece
    ):
        client = _client(chunks, encoding=encoding)
        assert (await client.complete("fake:m", MESSAGES)).text == "z" * 300_000
        await client.aclose()
    assert PIECE_BYTES == 64 * 1024 and DEFAULT_MAX_RESPONSE_BYTES == 256 * MiB


async def test_blank_line_flood_over_a_real_socket(anyio_backend: Any) -> None:
    gz = _gzip(sse_body({"text": "first"}), b"\r\n" * (32 * MiB))

    async def script(stream: Any) -> None:
        await read_request(stream)
        head = SSE_HEAD.replace(b"\r\n\r\n", b"\r\ncontent-encoding: gzip\r\n\r\n", 1)
        await stream.send(head + b"".join(chunk(c) for c in _wire(gz)) + chunk(b""))

    async with serve(script) as url:
        client = lb.Client(providers={"fake": {"base_url": url}})
        start = time.process_time()
        with pytest.raises(lb.MalformedStreamError) as info:
            await client.complete("fake:m", MESSAGES)
        assert time.process_time() - start < 2.0
        assert info.value.partial is not None and info.value.partial.text == "first"
        await client.aclose()


# -- item 3: the partial record and the events per response ------------------------------------


async def test_the_partial_record_follows_the_content(anyio_backend: Any) -> None:
    """50,000 one-character deltas, then the body ends without a finish: the partial holds
    them all, and the record never held them as event objects (~130 bytes each before: 6.5 MB;
    the peak is ~1.2 MB, the same as for 150,000)."""
    n = 50_000
    body = sse_body(*[{"text": "a"}] * n)
    client = _client(_gzip(body))
    with _peak() as peak, pytest.raises(lb.StreamTruncatedError) as info:
        async with client.stream("fake:m", MESSAGES) as stream:
            async for _event in stream:
                pass
    assert info.value.partial is not None and info.value.partial.text == "a" * n
    assert peak[0] < 4 * MiB  # the events alone were ~6.5 MB
    await client.aclose()


async def test_events_per_response_are_bounded(anyio_backend: Any) -> None:
    body = sse_body(*[{"text": "b"}] * 30_000, {"finish": "stop"})
    client = _client(_gzip(body), max_events=10_000)
    seen = 0
    with pytest.raises(lb.MalformedStreamError, match="10,000 events") as info:
        async with client.stream("fake:m", MESSAGES) as stream:
            async for _event in stream:
                seen += 1
    assert 10_000 < seen <= 10_000 + 2 * FOLD_EVERY
    partial = info.value.partial
    assert partial is not None and partial.text == "b" * seen
    await client.aclose()
    assert DEFAULT_MAX_EVENTS == 1_000_000


def test_a_tool_call_of_many_fragments_keeps_its_arguments() -> None:
    from llmbridge.response import Accumulator

    acc = Accumulator(provider="p")
    acc.add(lb.ToolCallStart(id="c", name="f", index=0))
    pieces = ['{"q": "', *["x"] * 20_000, '"}']
    for i, piece in enumerate(pieces):
        acc.add(lb.ToolCallChunk(id="c", index=0, arguments_delta=piece))
        if i % 4096 == 0:
            acc.compact()
    acc.compact()
    (call,) = acc.response().tool_calls
    assert call.raw_arguments == "".join(pieces)
    acc.add(
        lb.ToolCallEnd(
            id="c",
            index=0,
            name="f",
            arguments=orjson.loads("".join(pieces)),
            raw_arguments="".join(pieces),
        )
    )
    assert acc.response().tool_calls[0].arguments == {"q": "x" * 20_000}
