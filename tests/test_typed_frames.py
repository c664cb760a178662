"""Typed frames (issue 42 item 5): an AWS exception arrives as a typed error by its typed field
(never a prefix in a string), Claude on Bedrock parses each chunk's event once, the loop feeds
typed frames to a decoder (through the fallback's wrapper too), and a plug-in decoder written
against ``feed(event, data)`` still reads an event stream."""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
import orjson
import pytest

import llmbridge as lb
import llmbridge.providers.anthropic.decode as anthropic_decode
import llmbridge.providers.anthropic_clouds.bedrock_stream as bedrock_stream
from llmbridge.errors import RateLimitError, ServerError
from llmbridge.events import Finish, StreamEvent, TextDelta, Usage
from llmbridge.frames import EventMessage, Line
from llmbridge.providers.anthropic_clouds.bedrock_stream import BedrockAnthropicDecoder
from llmbridge.providers.bedrock import BedrockDecoder
from llmbridge.stream import RetryPolicy, stream_events
from llmbridge.types import ChatRequest
from tests.fakes import ChunkedBody, FakeProvider
from tests.providers.bedrock.frames import event, exception, frame

pytest.importorskip("botocore")
from llmbridge.stream.aws_eventstream import iter_eventstream

DECODERS = [
    lambda: BedrockDecoder(provider="bedrock"),
    lambda: BedrockAnthropicDecoder(provider="anthropic-bedrock"),
]


# -- exceptions by their typed field -----------------------------------------------------------


@pytest.mark.parametrize("new_decoder", DECODERS)
def test_an_exception_message_is_a_typed_error_by_its_type_field(new_decoder: Any) -> None:
    body = exception("throttlingException", "slow down")
    (message,) = iter_eventstream(body)
    assert (message.message_type, message.error_type) == ("exception", "throttlingException")
    with pytest.raises(RateLimitError) as info:
        new_decoder().feed_frame(message)
    assert info.value.error_type == "throttlingException"
    assert info.value.provider_message == "slow down"


@pytest.mark.parametrize("new_decoder", DECODERS)
def test_an_event_named_like_an_exception_is_only_an_unknown_event(new_decoder: Any) -> None:
    """The kind is a typed field: an ``event`` message whose ``:event-type`` reads
    ``exception:throttlingException`` is an event of an unknown type (skipped), not an error
    (a framing that wrote kinds into one string could not tell them apart)."""
    body = frame(
        {":message-type": "event", ":event-type": "exception:throttlingException"},
        b'{"message":"slow down"}',
    )
    decoder = new_decoder()
    for message in iter_eventstream(body):
        assert decoder.feed_frame(message) == []


def test_an_error_message_carries_its_code_and_text() -> None:
    body = frame(
        {":message-type": "error", ":error-code": "InternalFailure", ":error-message": "it broke"},
        b"",
    )
    (message,) = iter_eventstream(body)
    assert (message.error_type, message.error_text) == ("InternalFailure", "it broke")
    with pytest.raises(ServerError, match="it broke") as info:
        BedrockDecoder().feed_frame(message)
    assert info.value.error_type == "InternalFailure"


# -- Claude on Bedrock: each chunk's event parsed once -----------------------------------------


def _chunk(obj: dict[str, Any]) -> bytes:
    inner = base64.b64encode(orjson.dumps(obj)).decode()
    return event("chunk", {"bytes": inner, "p": "abcdefgh"})


CLAUDE = [
    {"type": "message_start", "message": {"id": "m", "model": "c", "usage": {"input_tokens": 3}}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}},
    {
        "type": "message_stop",
        "amazon-bedrock-invocationMetrics": {"inputTokenCount": 3, "outputTokenCount": 2},
    },
]


def test_claude_on_bedrock_parses_each_chunk_event_exactly_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parsed: list[Any] = []

    def counting(real: Any) -> Any:
        def loads(data: Any) -> Any:
            value = real(data)
            parsed.append(value)
            return value

        return loads

    # Every JSON parser the path could reach, bound at import or looked up at call time.
    monkeypatch.setattr(bedrock_stream, "_loads", counting(orjson.loads), raising=False)
    monkeypatch.setattr(anthropic_decode, "_loads", counting(anthropic_decode._loads))
    monkeypatch.setattr(orjson, "loads", counting(orjson.loads))
    monkeypatch.setattr(json, "loads", counting(json.loads))
    frames = list(iter_eventstream(b"".join(_chunk(obj) for obj in CLAUDE)))
    decoder = BedrockAnthropicDecoder(provider="anthropic-bedrock")
    events: list[StreamEvent] = []
    for message, obj in zip(frames, CLAUDE, strict=True):
        parsed.clear()
        events.extend(decoder.feed_frame(message))
        inner = [value for value in parsed if value == obj]
        assert len(inner) == 1, f"{obj['type']}: its event parsed {len(inner)} times"
        assert len(parsed) == 2, f"{obj['type']}: {len(parsed)} parses (the frame's, the event's)"
    events.extend(decoder.close())
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hi"
    finish = events[-1]
    assert isinstance(finish, Finish) and finish.provider_data is not None
    assert finish.provider_data["bedrock"]["invocation_metrics"]["outputTokenCount"] == 2


# -- the loop: typed frames to the decoder, and a plug-in decoder from before ------------------


class _PairDecoder:
    """A plug-in decoder written against ``feed(event, data)`` for an event stream."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def feed(self, kind: str, data: str) -> list[StreamEvent]:
        self.seen.append((kind, data))
        if kind == "contentBlockDelta":
            return [TextDelta(orjson.loads(data)["delta"]["text"])]
        if kind.startswith("exception:"):
            raise RateLimitError(data, error_type=kind.partition(":")[2])
        return []

    def close(self) -> list[StreamEvent]:
        return [Finish(reason="stop", raw_reason="end_turn", usage=Usage(1, 1))]


class _TypedDecoder(_PairDecoder):
    def __init__(self) -> None:
        super().__init__()
        self.frames: list[EventMessage] = []

    def feed_frame(self, message: EventMessage) -> list[StreamEvent]:
        self.frames.append(message)
        return self.feed(message.event_type, message.payload.decode())


class _Provider(FakeProvider):
    framing = "aws-eventstream"

    def __init__(self, decoder: Any) -> None:
        super().__init__()
        self.decoder = decoder

    def new_decoder(self, request: ChatRequest) -> Any:
        return self.decoder


async def _stream(decoder: Any, content: bytes) -> list[StreamEvent]:
    def handler(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "application/vnd.amazon.eventstream"}
        return httpx.Response(200, headers=headers, stream=ChunkedBody([content]))

    provider = _Provider(decoder)
    request = ChatRequest(model="m", messages=[lb.ChatMessage.user("hi")])
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        return [
            ev
            async for ev in stream_events(
                http=http,
                provider=provider,
                request=provider.build_request(request),
                new_decoder=lambda: provider.new_decoder(request),
                retry=RetryPolicy(max_attempts=1),
            )
        ]


DELTA = event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hé"}})


@pytest.mark.anyio
async def test_the_loop_hands_a_typed_decoder_the_messages_as_they_are() -> None:
    decoder = _TypedDecoder()
    events = await _stream(decoder, DELTA)
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Hé"]
    (message,) = decoder.frames
    assert isinstance(message.payload, bytes) and message.event_type == "contentBlockDelta"


@pytest.mark.anyio
async def test_a_plug_in_decoder_of_event_streams_still_gets_event_and_data() -> None:
    decoder = _PairDecoder()
    with pytest.raises(RateLimitError) as info:
        await _stream(decoder, DELTA + exception("throttlingException", "slow down"))
    assert decoder.seen == [
        ("contentBlockDelta", '{"contentBlockIndex":0,"delta":{"text":"Hé"}}'),
        ("exception:throttlingException", '{"message":"slow down"}'),
    ]
    assert info.value.partial is not None and info.value.partial.text == "Hé"


@pytest.mark.anyio
async def test_the_tool_fallback_wraps_an_ndjson_decoder_and_finds_its_calls() -> None:
    lines = [
        {"message": {"role": "assistant", "content": "<function_call>"}, "done": False},
        {
            "message": {"content": '{"name": "f", "arguments": {"x": 1}}</function_call>'},
            "done": False,
        },
        {"message": {"content": ""}, "done": True, "done_reason": "stop"},
    ]
    content = b"".join(
        orjson.dumps({"model": "m", "created_at": "2026-01-02T03:04:05Z", **line}) + b"\n"
        for line in lines
    )

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, headers={"content-type": "application/x-ndjson"}, content=content
        )

    tool = lb.ToolSpec.from_json_schema("f", "", {"type": "object", "properties": {}})
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        client = lb.Client(http_client=http, providers={"ollama-native": {"base_url": "http://o"}})
        response = await client.complete(
            "ollama-native:m", [lb.ChatMessage.user("hi")], tools=[tool], tool_mode="prompt"
        )
    assert [(c.name, c.arguments) for c in response.tool_calls] == [("f", {"x": 1})]


def test_a_line_says_whether_its_line_end_came() -> None:
    assert Line(b"{}").pair() == ("", "{}")
    assert Line(b"{", terminated=False).pair() == ("unterminated", "{")
