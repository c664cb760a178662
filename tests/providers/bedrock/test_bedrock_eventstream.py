"""The AWS event-stream framing (botocore's reader behind ``llmbridge.stream.aws_eventstream``):
any split gives the same frames, bad CRCs and cut bodies are typed errors, memory is bounded,
and the transport reads a provider whose ``framing`` is ``aws-eventstream`` through it."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

import httpx
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import llmbridge as lb
from llmbridge.errors import ConfigurationError, MalformedStreamError, StreamTruncatedError
from llmbridge.events import Finish, StreamEvent, TextDelta, Usage
from llmbridge.frames import EventMessage
from llmbridge.stream import RetryPolicy, stream_events
from llmbridge.stream.aws_eventstream import iter_eventstream
from llmbridge.types import ChatRequest
from tests.corpus import body, entries
from tests.fakes import ChunkedBody, FakeProvider
from tests.providers.bedrock.frames import error, event, exception, frame

BODY = (
    event("messageStart", {"role": "assistant"})
    + event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hé"}, "p": "abc"})
    + exception("throttlingException", "slow down")
    + error("InternalFailure", "it broke")
    + frame({":message-type": "unknown-kind"}, b"skipped")
    + event("messageStop", {"stopReason": "end_turn"})
)
FRAMES = [
    ("event", "messageStart", None, '{"role":"assistant"}'),
    ("event", "contentBlockDelta", None, '{"contentBlockIndex":0,"delta":{"text":"Hé"},"p":"abc"}'),
    ("exception", "", "throttlingException", '{"message":"slow down"}'),
    ("error", "", "InternalFailure", "it broke"),
    ("event", "messageStop", None, '{"stopReason":"end_turn"}'),
]


def _typed(frames: Iterable[EventMessage]) -> list[tuple[str, str, str | None, str]]:
    """Each message's typed fields: its type, event type, error type, and what it carries."""
    return [
        (
            m.message_type,
            m.event_type,
            m.error_type,
            m.payload.decode() if m.message_type == "event" else m.error_text,
        )
        for m in frames
    ]


def test_message_types_become_typed_frames() -> None:
    frames = list(iter_eventstream(BODY))
    assert _typed(frames) == FRAMES
    assert all(isinstance(m.payload, bytes) for m in frames)
    assert frames[2].headers[":content-type"] == "application/json"  # every header is kept


def test_every_split_point_and_byte_by_byte_give_the_same_frames() -> None:
    for cut in range(len(BODY) + 1):
        assert _typed(iter_eventstream([BODY[:cut], BODY[cut:]])) == FRAMES
    assert _typed(iter_eventstream([BODY[i : i + 1] for i in range(len(BODY))])) == FRAMES


@pytest.mark.parametrize("entry", entries("F"))
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_corpus_bodies_frame_the_same_at_random_splits(entry: dict[str, Any], data: Any) -> None:
    raw = body(entry)
    whole = list(iter_eventstream(raw))
    assert whole and all(m.message_type == "event" and m.event_type for m in whole)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(raw)), max_size=8)))
    pieces = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
    assert list(iter_eventstream(pieces)) == whole


def _corrupt(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1 :]


@pytest.mark.parametrize("where", ["prelude", "headers", "payload", "message-crc"])
def test_a_bad_crc_is_malformed_after_the_frames_before_it(where: str) -> None:
    good = event("messageStart", {"role": "assistant"})
    bad = event("contentBlockDelta", {"delta": {"text": "x"}})
    at = {"prelude": 2, "headers": 14, "payload": len(bad) - 6, "message-crc": len(bad) - 1}[where]
    got: list[EventMessage] = []
    with pytest.raises(MalformedStreamError, match="malformed AWS event stream"):
        for message in iter_eventstream(good + _corrupt(bad, at)):  # one chunk: good comes first
            got.append(message)
    assert _typed(got) == [("event", "messageStart", None, '{"role":"assistant"}')]


@pytest.mark.parametrize("cut", [1, 11, 12, 30, -1])
def test_a_body_ending_inside_a_frame_is_truncated(cut: int) -> None:
    good = event("messageStart", {"role": "assistant"})
    rest = event("messageStop", {"stopReason": "end_turn"})
    got: list[EventMessage] = []
    with pytest.raises(StreamTruncatedError, match="ended inside a frame"):
        for message in iter_eventstream([good, rest[:cut]]):
            got.append(message)
    assert [m.event_type for m in got] == ["messageStart"]


def test_a_frame_announcing_too_little_is_malformed_not_a_loop() -> None:
    import struct
    import zlib

    prelude = struct.pack(">II", 0, 0)
    junk = prelude + struct.pack(">I", zlib.crc32(prelude)) + b"\x00" * 8
    with pytest.raises(
        MalformedStreamError, match="malformed AWS event stream|fewer than its parts"
    ):
        list(iter_eventstream(junk))


def test_memory_is_bounded_per_frame() -> None:
    big = event("contentBlockDelta", {"delta": {"text": "x" * 5000}})
    assert len(list(iter_eventstream(big, limit=len(big)))) == 1
    with pytest.raises(MalformedStreamError, match="max_event_bytes"):
        list(iter_eventstream([big[:3000], big[3000:]], limit=2000))


def test_without_botocore_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "botocore", None)
    monkeypatch.setitem(sys.modules, "botocore.eventstream", None)
    with pytest.raises(ConfigurationError, match=r"llmbridge\[bedrock\]"):
        list(iter_eventstream(BODY))


# The transport, through a provider whose body is an event stream.


class _Decoder:
    def __init__(self) -> None:
        self.done = False

    def feed(self, kind: str, data: str) -> list[StreamEvent]:
        obj = orjson.loads(data) if data.startswith("{") else {}
        if kind == "contentBlockDelta":
            return [TextDelta(obj["delta"]["text"])]
        if kind == "messageStop":
            self.done = True
            return [Finish(reason="stop", raw_reason="end_turn", usage=Usage(1, 1))]
        return []

    def close(self) -> list[StreamEvent]:
        if not self.done:
            raise StreamTruncatedError("no messageStop")
        return []


class _EventStreamProvider(FakeProvider):
    framing = "aws-eventstream"

    def new_decoder(self, request: ChatRequest) -> Any:
        return _Decoder()


def _response(content: bytes, pieces: int = 3) -> httpx.Response:
    step = max(1, len(content) // pieces)
    chunks = [content[i : i + step] for i in range(0, len(content), step)]
    return httpx.Response(
        200,
        headers={"content-type": "application/vnd.amazon.eventstream"},
        stream=ChunkedBody(chunks),
    )


async def _run(content: bytes, *, framing: str = "aws-eventstream") -> list[StreamEvent]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return _response(content)

    provider = _EventStreamProvider()
    provider.framing = framing  # type: ignore[misc]
    request = ChatRequest(model="m", messages=[lb.ChatMessage.user("hi")])
    out: list[StreamEvent] = []
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        async for ev in stream_events(
            http=http,
            provider=provider,
            request=provider.build_request(request),
            new_decoder=lambda: provider.new_decoder(request),
            retry=RetryPolicy(max_attempts=1),
        ):
            out.append(ev)
    assert seen[0].headers["accept"] == "application/vnd.amazon.eventstream"
    return out


def _delta(text: str) -> bytes:
    return event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": text}})


@pytest.mark.anyio
async def test_transport_reads_event_stream_bodies() -> None:
    content = _delta("Hello") + _delta(" world") + event("messageStop", {"stopReason": "end_turn"})
    got = await _run(content)
    assert [e.text for e in got if isinstance(e, TextDelta)] == ["Hello", " world"]
    assert isinstance(got[-1], Finish)


@pytest.mark.anyio
async def test_transport_bad_crc_midway_keeps_the_partial() -> None:
    content = _delta("kept") + _corrupt(_delta("lost"), 20)
    with pytest.raises(MalformedStreamError) as info:
        await _run(content)
    assert info.value.partial is not None and info.value.partial.text == "kept"


@pytest.mark.anyio
async def test_transport_truncated_frame_keeps_the_partial() -> None:
    content = _delta("kept") + _delta("cut")[:-5]
    with pytest.raises(StreamTruncatedError) as info:
        await _run(content)
    assert info.value.partial is not None and info.value.partial.text == "kept"


@pytest.mark.anyio
async def test_transport_rejects_an_sse_body_for_an_event_stream_provider() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=b"x")

    provider = _EventStreamProvider()
    request = ChatRequest(model="m", messages=[lb.ChatMessage.user("hi")])
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        with pytest.raises(MalformedStreamError, match="expected an event stream"):
            async for _ in stream_events(
                http=http,
                provider=provider,
                request=provider.build_request(request),
                new_decoder=lambda: provider.new_decoder(request),
                retry=RetryPolicy(max_attempts=1),
            ):
                pass


@pytest.mark.anyio
async def test_an_unknown_framing_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="unknown framing 'ndjson-ish'"):
        await _run(b"", framing="ndjson-ish")
