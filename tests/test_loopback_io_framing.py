"""Every framing (SSE, AWS event stream, NDJSON) over a real socket on 127.0.0.1, on asyncio,
uvloop and trio, against hostile bodies (issue 49, items 1, 2 and 17):

* a gzip body of many frames, sent in one go, is inflated and framed a piece at a time with the
  loop given a turn between pieces (``tests.heartbeat.Heartbeat.spin`` counts the turns: a
  reader that inflates the whole read at once lets it turn about never);
* a chunked body left early (``break``, an error event, non-JSON data, an oversized event)
  with frames still buffered closes every one of httpx's async generators: none is left for
  the garbage collector (under trio: ``ResourceWarning: Async generator
  'httpx._client.BoundAsyncStream.__aiter__' was garbage collected``).
"""

from __future__ import annotations

import gc
import gzip
import warnings
from dataclasses import dataclass

import anyio
import orjson
import pytest
from anyio.abc import SocketStream

import llmbridge as lb
from llmbridge.stream.bounded import PIECE_BYTES
from tests.fakes import sse_body
from tests.heartbeat import Heartbeat
from tests.loopback import chunk, read_request, serve
from tests.providers.bedrock.frames import converse, event, exception

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("young_heap")]


@dataclass(frozen=True)
class Wire:
    """One framing as a server speaks it: the model, the content type, a start, a text delta,
    the end, and the frames that end a stream badly."""

    model: str
    content_type: bytes
    start: bytes
    end: bytes
    error: bytes
    not_json: bytes
    oversized: bytes

    def delta(self, text: str) -> bytes:
        return _DELTAS[self.model](text)


def _sse_delta(text: str) -> bytes:
    return sse_body({"choices": [{"index": 0, "delta": {"content": text}}]})


def _es_delta(text: str) -> bytes:
    return event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": text}})


def _line(**fields: object) -> bytes:
    return orjson.dumps({"model": "m", "created_at": "2026-01-02T03:04:05Z", **fields}) + b"\n"


def _nd_delta(text: str) -> bytes:
    return _line(message={"role": "assistant", "content": text}, done=False)


SSE = "openai-compatible:m"
BEDROCK = "bedrock:m"
OLLAMA = "ollama-native:m"
_DELTAS = {SSE: _sse_delta, BEDROCK: _es_delta, OLLAMA: _nd_delta}
WIRES = {
    "sse": Wire(
        SSE,
        b"text/event-stream",
        start=b"",
        end=sse_body({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        + b"data: [DONE]\n\n",
        error=sse_body({"error": {"message": "boom", "type": "server_error"}}),
        not_json=b"data: {not json\n\n",
        oversized=b"data: " + b"y" * 5000 + b"\n\n",
    ),
    "aws-eventstream": Wire(
        BEDROCK,
        b"application/vnd.amazon.eventstream",
        start=event("messageStart", {"role": "assistant"}),
        end=converse(("contentBlockStop", {"contentBlockIndex": 0}), ("messageStop", {})),
        error=exception("modelStreamErrorException", "boom"),
        not_json=event("contentBlockDelta", b"{not json"),
        oversized=_es_delta("y" * 5000),
    ),
    "ndjson": Wire(
        OLLAMA,
        b"application/x-ndjson",
        start=b"",
        end=_line(message={"role": "assistant", "content": ""}, done=True, done_reason="stop"),
        error=_line(error="boom"),
        not_json=b"{not json\n",
        oversized=_nd_delta("y" * 5000),
    ),
}


def _client(url: str, **options: object) -> lb.Client:
    providers = {
        "openai-compatible": {"base_url": url},
        "bedrock": {"api_key": "test-key", "region": "us-east-1", "base_url": url},
        "ollama-native": {"base_url": url},
    }
    return lb.Client(providers=providers, **options)  # type: ignore[arg-type]


def _head(wire: Wire, *headers: bytes) -> bytes:
    lines = [b"HTTP/1.1 200 OK", b"content-type: " + wire.content_type, *headers]
    return b"\r\n".join(lines) + b"\r\n\r\n"


async def _until_closed(stream: SocketStream) -> None:
    while True:
        await stream.receive()  # ends (EndOfStream) when the client hangs up


# -- a gzip body of many frames: a piece at a time, the loop turning between pieces ----------


@pytest.mark.parametrize("framing", list(WIRES))
async def test_a_gzip_body_is_framed_a_piece_at_a_time_with_the_loop_turning(framing: str) -> None:
    wire = WIRES[framing]
    text = "x" * 1000
    raw = wire.start + wire.delta(text) * 4000 + wire.end  # 4+ MiB of frames, ~20 KB of gzip
    packed = gzip.compress(raw)

    async def script(stream: SocketStream) -> None:
        await read_request(stream)
        length = b"content-length: %d" % len(packed)
        await stream.send(_head(wire, b"content-encoding: gzip", length) + packed)
        await _until_closed(stream)

    heartbeat = Heartbeat()
    texts: list[str] = []
    async with serve(script) as url, _client(url) as client, anyio.create_task_group() as tg:
        tg.start_soon(heartbeat.spin)
        turns = 0
        async with client.stream(wire.model, [lb.ChatMessage.user("hi")]) as stream:
            async for ev in stream:
                if isinstance(ev, lb.TextDelta):
                    if not texts:
                        turns = heartbeat.turns
                    texts.append(ev.text)
        turns = heartbeat.turns - turns
        tg.cancel_scope.cancel()
    assert texts == [text] * 4000
    pieces = len(raw) // PIECE_BYTES
    assert turns >= pieces // 2, f"the loop turned {turns} times in {pieces} pieces"


# -- leaving a chunked body early closes httpx's generators ----------------------------------


ENDINGS = ["break", "error", "not_json", "oversized"]


async def _leave_early(wire: Wire, ending: str) -> None:
    bad = b"" if ending == "break" else getattr(wire, ending)
    frames = [wire.start, wire.delta("partial "), bad] + [wire.delta("x")] * 50
    body = b"".join(chunk(f) for f in frames if f)  # many chunks in one write: h11 buffers them

    async def script(stream: SocketStream) -> None:
        await read_request(stream)
        await stream.send(_head(wire, b"transfer-encoding: chunked") + body)
        await _until_closed(stream)

    async with serve(script) as url, _client(url, max_event_bytes=4096) as client:
        texts: list[str] = []
        failed: lb.LLMBridgeError | None = None
        try:
            async with client.stream(wire.model, [lb.ChatMessage.user("hi")]) as stream:
                async for ev in stream:
                    if isinstance(ev, lb.TextDelta):
                        texts.append(ev.text)
                        if ending == "break":
                            break
        except lb.LLMBridgeError as exc:
            failed = exc
        assert texts[0] == "partial "
        if ending == "break":
            assert failed is None
        else:
            assert failed is not None and failed.partial is not None
            assert failed.partial.text == "partial "


@pytest.mark.parametrize("ending", ENDINGS)
@pytest.mark.parametrize("framing", list(WIRES))
async def test_leaving_a_chunked_body_early_closes_every_generator(
    framing: str, ending: str
) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        await _leave_early(WIRES[framing], ending)
        gc.collect()
        await anyio.lowlevel.checkpoint()
        gc.collect()
    left = [str(w.message)[:90] for w in caught if issubclass(w.category, ResourceWarning)]
    assert left == []
