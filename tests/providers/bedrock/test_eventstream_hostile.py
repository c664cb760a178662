"""Hostile AWS event-stream bodies (issue 49, items 13 and 15): a failure inside the framing
library (an unknown header type was a bare ``KeyError(12)``) is a ``MalformedStreamError`` with
the partial response, when streaming and when recording; random CRC-valid bodies let only
llmbridge errors out of the framing and both decoders (``bedrock:``, ``anthropic-bedrock:``);
an exception frame's error shows at most 16 KiB, control characters escaped, the whole
payload kept on ``body``."""

from __future__ import annotations

import base64
import struct
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import llmbridge as lb
from llmbridge.errors import LLMBridgeError, MalformedStreamError
from llmbridge.frames import EventMessage
from llmbridge.providers.anthropic_clouds.bedrock_stream import BedrockAnthropicDecoder
from llmbridge.providers.bedrock import BedrockDecoder
from llmbridge.stream.aws_eventstream import iter_eventstream
from llmbridge.testing import record_fixture
from tests.providers.bedrock.frames import event, exception, frame, raw_frame, string_header

MODEL = "bedrock:us.amazon.nova-micro-v1:0"
START = event("messageStart", {"role": "assistant"}) + event(
    "contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "partial "}}
)
UNKNOWN_TYPE = raw_frame(string_header(":message-type", "event") + b"\x01x\x0c", b"{}")
"""A frame with a header of type 12, which the format does not have."""


def _handler(body: bytes) -> Any:
    def handler(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "application/vnd.amazon.eventstream"}
        return httpx.Response(200, headers=headers, content=body)

    return handler


OPTIONS = {"providers": {"bedrock": {"api_key": "test-key", "region": "us-east-1"}}}


def test_an_unknown_header_type_is_malformed_after_the_frames_before_it() -> None:
    got: list[EventMessage] = []
    with pytest.raises(MalformedStreamError, match="unreadable headers"):
        for message in iter_eventstream(START + UNKNOWN_TYPE):
            got.append(message)
    assert [m.event_type for m in got] == ["messageStart", "contentBlockDelta"]


@pytest.mark.anyio
async def test_an_unknown_header_type_keeps_the_partial_when_streaming() -> None:
    transport = httpx.MockTransport(_handler(START + UNKNOWN_TYPE))
    async with httpx.AsyncClient(transport=transport) as http:
        client = lb.Client(http_client=http, **OPTIONS)  # type: ignore[arg-type]
        with pytest.raises(MalformedStreamError) as info:
            await client.complete(MODEL, [lb.ChatMessage.user("hi")])
    assert info.value.partial is not None and info.value.partial.text == "partial "


@pytest.mark.anyio
async def test_recording_a_body_the_framing_refuses_saves_the_error(tmp_path: Path) -> None:
    transport = httpx.MockTransport(_handler(START + UNKNOWN_TYPE))
    fixture = await record_fixture(
        tmp_path / "f",
        MODEL,
        [lb.ChatMessage.user("hi")],
        client_options=OPTIONS,
        transport=transport,
    )
    assert fixture.body == START + UNKNOWN_TYPE
    error = orjson.loads((tmp_path / "f" / "error.json").read_bytes())
    assert error["class"] == "MalformedStreamError" and "unreadable headers" in error["message"]


# -- random CRC-valid bodies ------------------------------------------------------------------

NAMES = [":message-type", ":event-type", ":exception-type", ":error-code", ":error-message",
         ":content-type", "x"]  # fmt: skip
VALUES = ["event", "exception", "error", "chunk", "messageStart", "contentBlockDelta",
          "messageStop", "throttlingException", "application/json"]  # fmt: skip


def _typed(name: str, kind: int, value: bytes) -> bytes:
    return bytes([len(name)]) + name.encode() + bytes([kind]) + value


headers = st.one_of(
    st.builds(string_header, st.sampled_from(NAMES), st.sampled_from(VALUES)),
    st.builds(_typed, st.sampled_from(NAMES), st.integers(0, 15), st.binary(max_size=18)),
    st.binary(max_size=12),
)
payloads = st.one_of(
    st.binary(max_size=40),
    st.sampled_from([b"{}", b'{"delta":{"text":"x"}}', b'{"bytes":"e30="}', b"\xff\xfe"]),
    st.builds(
        lambda obj: orjson.dumps({"bytes": base64.b64encode(orjson.dumps(obj)).decode()}),
        st.dictionaries(st.sampled_from(["type", "index", "delta"]), st.text(max_size=6)),
    ),
)
frames = st.builds(
    lambda hs, p: raw_frame(b"".join(hs), p), st.lists(headers, max_size=4), payloads
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.lists(frames, max_size=6).map(b"".join), cut=st.integers(0, 200))
def test_random_crc_valid_bodies_let_only_llmbridge_errors_out(body: bytes, cut: int) -> None:
    for decoder in (
        BedrockDecoder(provider="bedrock"),
        BedrockAnthropicDecoder(provider="anthropic-bedrock"),
    ):
        try:
            for message in iter_eventstream([body[:cut], body[cut:]]):
                decoder.feed_frame(message)
            decoder.close()
        except LLMBridgeError:
            pass


# -- exception frames: what the error shows is bounded and escaped ----------------------------

HOSTILE = "\x1b]52;c;aGk=\x07\x1b[2J\r\nCRITICAL llmbridge: forged\x9b" + "y" * (10 << 20)


def _shows_safely(error: LLMBridgeError) -> None:
    shown = str(error)
    assert len(shown.encode()) <= 16 * 1024
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in shown)
    assert "\\x1b]52;c;aGk=\\x07" in shown  # escaped, still readable
    assert error.provider_message is not None and len(error.provider_message) <= 16 * 1024


@pytest.mark.parametrize(
    "decoder",
    [
        lambda: BedrockDecoder(provider="bedrock"),
        lambda: BedrockAnthropicDecoder(provider="anthropic-bedrock"),
    ],
)
def test_an_exception_frame_shows_16_kib_escaped_and_keeps_its_payload(decoder: Any) -> None:
    body = START + exception("modelStreamErrorException", HOSTILE)
    feeding = decoder()
    with pytest.raises(LLMBridgeError) as info:
        for message in iter_eventstream(body, limit=32 << 20):
            feeding.feed_frame(message)
    _shows_safely(info.value)
    assert getattr(info.value, "body", None) == {"message": HOSTILE}


def test_an_error_frame_message_is_escaped_too() -> None:
    body = START + frame(
        {":message-type": "error", ":error-code": "Internal\x1b[2J", ":error-message": "a\x1bb"},
        b"",
    )
    decoder = BedrockDecoder(provider="bedrock")
    with pytest.raises(LLMBridgeError) as info:
        for message in iter_eventstream(body):
            decoder.feed_frame(message)
    assert "\x1b" not in str(info.value) and "a\\x1bb" in str(info.value)


def test_a_frame_announcing_more_than_the_bound_is_refused_before_it_arrives() -> None:
    prelude = struct.pack(">II", 64 << 20, 0)
    import zlib

    start = prelude + struct.pack(">I", zlib.crc32(prelude))
    with pytest.raises(MalformedStreamError, match="max_event_bytes"):
        list(iter_eventstream([start, b"\x00" * 1024]))
