"""Reading SSE (``llmbridge.stream.bounded``): httpx-sse framing as the client reads it, at any
split, on real recordings, and the bound on bytes per event.

The reference below is the WHATWG "interpreting an event stream" algorithm written out line by
line over the whole decoded body (an event left open at the end is discarded), with httpx-sse's
one liberty: a block without data lines is dispatched with empty data (decoders skip those).
"""

from __future__ import annotations

import json
import random
import re

import anyio
import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llmbridge as lb
from llmbridge import testing
from llmbridge.stream.bounded import BoundedBody, iter_sse
from tests.corpus import CORPUS, manifest, missing, present

Events = list[tuple[str, str]]


def reference(body: bytes) -> Events:
    text = body.decode("utf-8", "replace")
    text = text.removeprefix("\ufeff")
    *lines, _unterminated = re.split(r"\r\n|\r|\n", text)
    out: Events = []
    name, data, last_id, retry = "", [], "", False  # the last event id persists (spec)
    for line in lines:
        if not line:
            if data or name or last_id or retry:
                out.append(("" if name == "message" else name, "\n".join(data)))
            name, data, retry = "", [], False
        elif not line.startswith(":"):
            field, colon, value = line.partition(":")
            if colon and value.startswith(" "):
                value = value[1:]
            if field == "data":
                data.append(value)
            elif field == "event":
                name = value
            elif field == "id" and "\0" not in value:
                last_id = value
            elif field == "retry":
                retry = retry or _is_int(value)
    return out


def _is_int(value: str) -> bool:
    try:
        int(value)
    except ValueError:
        return False
    return True


def parse(body: bytes, cuts: list[int]) -> Events:
    bounds = [0, *sorted(cuts), len(body)]
    return list(iter_sse([body[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]))


async def parse_async(body: bytes, cuts: list[int], limit: int = 1 << 24) -> Events:
    """The client's own path: an httpx response read through ``BoundedBody``."""
    bounds = [0, *sorted(cuts), len(body)]

    async def chunks():  # type: ignore[no-untyped-def]
        for a, b in zip(bounds, bounds[1:], strict=False):
            yield body[a:b]

    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=chunks())
    reader = BoundedBody(response, limit=limit)
    out: Events = []
    try:
        async for sse in reader.events():
            out.append(("" if sse.event == "message" else sse.event, sse.data))
    finally:
        await reader.aclose()
    return out


def test_testing_helper_reads_as_the_client() -> None:
    assert testing.iter_sse is iter_sse


# -- the rules, one by one --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "events"),
    [
        (b"data: a\n\n", [("", "a")]),
        (b"event: delta\ndata: {}\n\n", [("delta", "{}")]),
        (b"data:a\n\n", [("", "a")]),  # the space after the colon is optional
        (b"data:  a\n\n", [("", " a")]),  # only one space is removed
        (b"data\n\n", [("", "")]),  # a field with no colon has an empty value
        (b"data: 1\ndata: 2\n\n", [("", "1\n2")]),
        (b"data: a\r\n\r\ndata: b\r\rdata: c\n\n", [("", "a"), ("", "b"), ("", "c")]),
        (b"data: a\r\n\ndata: b\n\n", [("", "a"), ("", "b")]),  # CRLF then LF: two line ends
        (b"\xef\xbb\xbfdata: a\n\n", [("", "a")]),  # a leading BOM is dropped
        (b": keep-alive\n\ndata: a\n\n", [("", "a")]),
        (b"event: ping\n\ndata: a\n\n", [("ping", ""), ("", "a")]),  # no data: empty data
        (b"id: 7\nretry: 10\nfoo: bar\ndata: a\n\n", [("", "a")]),
        (b"Data: a\n\nDATA: b\n\n", []),  # field names are case-sensitive
        (b"data: a\n\n\n\n\ndata: b\n\n", [("", "a"), ("", "b")]),
        (b"data: caf\xc3\xa9 \xe2\x82\xac\n\n", [("", "café €")]),
        (b"data: \xff\xfe ok\n\n", [("", "\ufffd\ufffd ok")]),
        (b"event: message\ndata: a\n\n", [("", "a")]),  # the spec's default name: unnamed
        (b"data: [DONE]\n", []),  # no blank line at the end: the open event is discarded
        (b'data: {"a": 1}\n\ndata: {"tr', [("", '{"a": 1}')]),
        (b'data: {"a": 1}\n\ndata: {"b":\ndata: 2}\n', [("", '{"a": 1}')]),
        (b"", []),
    ],
)
@pytest.mark.anyio
async def test_rules(body: bytes, events: Events) -> None:
    assert reference(body) == events
    assert parse(body, []) == events
    assert parse(body, list(range(1, len(body)))) == events  # one byte at a time
    assert await parse_async(body, list(range(1, len(body)))) == events


def test_crlf_split_between_chunks_is_one_line_end() -> None:
    assert parse(b"data: a\r\n\r\ndata: b\r\n\r\n", [8, 9, 10]) == [("", "a"), ("", "b")]


def test_bom_split_across_first_chunks() -> None:
    assert parse(b"\xef\xbb\xbfdata: a\n\n", [1, 2]) == [("", "a")]
    assert parse(b"\xefdata: a\n\n", [1]) == reference(b"\xefdata: a\n\n")


@pytest.mark.anyio
async def test_a_large_event_in_small_chunks_arrives_whole() -> None:
    payload = "x" * 3_000_000
    body = f'event: big\ndata: {{"p": "{payload}"}}\n\ndata: after\n\n'.encode()
    out = await parse_async(body, list(range(4096, len(body), 4096)), limit=4_000_000)
    assert [name for name, _ in out] == ["big", ""]
    assert json.loads(out[0][1])["p"] == payload


# -- any input, any split ---------------------------------------------------------------------

_FIELDS = st.sampled_from(["data", "event", "id", "retry", "", "Data", "foo", "data ", ":"])
_VALUE = st.text(alphabet=st.sampled_from(list('ab :{}"\\é€😀\x00')), max_size=12)
_LINE = st.one_of(
    st.tuples(_FIELDS, st.sampled_from([": ", ":", "", ":  "]), _VALUE).map("".join),
    st.just(""),
)
_END = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def streams(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(st.tuples(_LINE, _END), max_size=30))
    text = "".join(line + end for line, end in lines) + draw(_LINE)
    body = text.encode()
    if draw(st.booleans()):
        body = b"\xef\xbb\xbf" + body
    return body


_RAW = st.lists(
    st.sampled_from(
        [
            b"data",
            b"event",
            b":",
            b" ",
            b"\n",
            b"\r",
            b"x",
            b"\xef\xbb\xbf",
            b"\xe2\x82",
            b"\xac",
            b"\xff",
        ]
    ),
    max_size=60,
).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(streams(), _RAW), st.data())
def test_any_bytes_split_anywhere_match_the_spec(body: bytes, data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(body)), max_size=12)))
    assert parse(body, cuts) == reference(body)


@st.composite
def provider_like(draw: st.DrawFn) -> bytes:
    """Streams as servers send them: every event has data and ends with a blank line."""
    events = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["", "delta", "content_block_delta", "error"]),
                st.lists(
                    st.text(alphabet=st.sampled_from(list('ab {}":é😀')), max_size=10),
                    min_size=1,
                    max_size=3,
                ),
                st.sampled_from(["\n", "\r\n", "\r"]),
                st.booleans(),
            ),
            max_size=12,
        )
    )
    out = []
    for name, lines, end, comment in events:
        block = [": ping"] if comment else []
        block += [f"event: {name}"] if name else []
        block += [f"data: {line}" for line in lines]
        out.append(end.join(block) + end + end)
    return "".join(out).encode()


@settings(max_examples=200, deadline=None)
@given(provider_like(), st.data())
def test_provider_like_streams_any_split(body: bytes, data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(body)), max_size=8)))
    chunks = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True) if b > a]
    assert parse(body, cuts) == list(iter_sse(chunks)) == reference(body)


# -- real recordings --------------------------------------------------------------------------


def _recordings() -> list[bytes]:
    if not present():
        missing()
    return [(CORPUS / e["file"]).read_bytes() for e in manifest() if e["file"].endswith(".sse")]


def test_every_recorded_stream_frames_as_the_spec_says_at_any_split() -> None:
    rng = random.Random(20261122)
    for body in _recordings():
        expected = reference(body)
        assert parse(body, []) == expected
        for _ in range(3):
            cuts = [rng.randrange(len(body) + 1) for _ in range(rng.randrange(1, 40))]
            assert parse(body, cuts) == expected


# -- the bound on bytes per event -------------------------------------------------------------


def _pending_by_the_rule(pieces: list[str]) -> int:
    """UTF-8 bytes since the first blank line (two line ends in a row) after the last content
    followed by one: blank lines that end nothing keep counting."""
    text = "".join(pieces)
    reset = 0
    for run in re.finditer(r"[\r\n]+", text):
        if run.start() == 0:  # no content before it
            continue
        ends = [i for i in (run[0].find(p) for p in ("\n\n", "\n\r", "\r\r")) if i >= 0]
        if ends:
            reset = run.start() + min(ends) + 2
    return len(text[reset:].encode())


@settings(max_examples=300, deadline=None)
@given(st.one_of(streams(), provider_like(), _RAW), st.data())
def test_the_count_toward_max_event_bytes_is_exact_at_any_split(
    body: bytes, data: st.DataObject
) -> None:
    """What the limit is checked against is the open event's size, whatever the line ends
    (LF, CRLF as Gemini sends, CR) and wherever the chunks are cut; blank lines that end no
    event count (issue 34, item 2)."""
    cuts = sorted(data.draw(st.lists(st.integers(0, len(body)), max_size=12)))
    chunks = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True) if b > a]

    async def body_chunks():  # type: ignore[no-untyped-def]
        for chunk in chunks:
            yield chunk

    async def read() -> None:
        response = httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=body_chunks()
        )
        reader = BoundedBody(response, limit=1 << 30)
        pieces: list[str] = []
        async for piece in reader.aiter_text():
            pieces.append(piece)
            assert reader.pending == _pending_by_the_rule(pieces), repr(pieces)

    anyio.run(read)


@pytest.mark.anyio
async def test_an_event_over_the_limit_ends_the_stream_whatever_the_line_ends() -> None:
    for end in ("\n", "\r\n", "\r"):
        small = f"data: {'a' * 50}{end}{end}" * 20
        big = f"data: {'b' * 400}{end}" * 3
        body = (small + big + end).encode()
        cuts = list(range(7, len(body), 7))
        assert len(await parse_async(small.encode(), cuts, limit=64)) == 20
        with pytest.raises(lb.MalformedStreamError, match="max_event_bytes"):
            await parse_async(body, cuts, limit=1000)
