"""Issue 34, item 11 (and the ``Recording`` repr of item 13): recording a gzip-encoded response
keeps what the decoder read, decompressed and redacted, and a replay serves it back; a
``Recording``'s repr shows no credential the server echoed. A real loopback server, on asyncio,
uvloop and trio."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

import anyio
import httpx
import orjson
import pytest
from anyio.abc import SocketStream

import llmbridge as lb
from llmbridge.testing import RecordingTransport, record_fixture, replay_client
from tests.fakes import chat_sse
from tests.loopback import chunk, read_request, serve

pytestmark = pytest.mark.anyio

KEY = "sk-proj-ECHOED-key-0123456789abcdef"


def _deltas(key: str) -> list[dict[str, str]]:  # the streamed text, the key echoed in it
    return [{"content": t} for t in ["Hello, ", f"your key is {key}", "."]]


def _bearer(head: bytes) -> str:
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"authorization":
            return value.strip().decode().partition(" ")[2]
    return ""


def _encoder(encoding: str) -> zlib._Compress:
    wbits = {"gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}[encoding]
    return zlib.compressobj(wbits=wbits)


def _encoded_server(encoding: str):  # type: ignore[no-untyped-def]
    async def script(stream: SocketStream) -> None:
        head, _ = await read_request(stream)
        key = _bearer(head)
        body = chat_sse(*_deltas(key), model="m")
        encoder = _encoder(encoding)
        await stream.send(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            + f"content-encoding: {encoding}\r\n".encode()
            + f"x-echo-key: {key}\r\ntransfer-encoding: chunked\r\n\r\n".encode()
        )
        third = len(body) // 3
        for piece in (body[:third], body[third : 2 * third], body[2 * third :]):
            data = encoder.compress(piece) + encoder.flush(zlib.Z_SYNC_FLUSH)
            await stream.send(chunk(data))
            await anyio.sleep(0.01)
        await stream.send(chunk(encoder.flush()) + b"0\r\n\r\n")

    return script


def _options(url: str) -> dict[str, object]:
    return {"providers": {"openai-compatible": {"base_url": f"{url}/v1", "api_key": KEY}}}


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
async def test_an_encoded_response_is_recorded_decoded_redacted_and_replays(
    tmp_path: Path, encoding: str
) -> None:
    path = tmp_path / "gz"
    messages = [lb.ChatMessage.user("hi")]
    with anyio.fail_after(20):
        async with serve(_encoded_server(encoding)) as recorded_at:
            url = recorded_at
            fixture = await record_fixture(
                path, "openai-compatible:m", messages, client_options=_options(url)
            )
    assert fixture.events is not None
    text = "".join(e.text for e in fixture.events if isinstance(e, lb.TextDelta))
    assert text == "Hello, your key is <redacted>."
    written = b"".join(p.read_bytes() for p in path.rglob("*"))
    assert KEY.encode() not in written
    body = (path / "response.sse").read_bytes()
    assert body.startswith(b"data: {") and b"your key is <redacted>" in body  # plain SSE
    meta = orjson.loads((path / "response.json").read_bytes())
    assert "content-encoding" not in meta["headers"]
    assert KEY not in str(meta["headers"])

    # the replay serves what was read: same events, decoded by the same decoder
    async with replay_client(path) as http:
        client = lb.Client(http_client=http, **_options(url))  # type: ignore[arg-type]
        replayed = await client.complete("openai-compatible:m", messages)
    assert replayed.text == text


async def test_the_recording_holds_what_the_decoder_read_at_its_boundaries() -> None:
    with anyio.fail_after(20):
        async with serve(_encoded_server("gzip")) as url:
            recorder = RecordingTransport()
            async with httpx.AsyncClient(transport=recorder) as http:
                client = lb.Client(http_client=http, **_options(url))  # type: ignore[arg-type]
                response = await client.complete("openai-compatible:m", [lb.ChatMessage.user("x")])
    assert response.text == f"Hello, your key is {KEY}."  # the app itself sees the real text
    recording = recorder.recordings[-1]
    body = b"".join(recording.chunks)
    assert body == chat_sse(*_deltas(KEY), model="m")  # decompressed, exact
    assert len(recording.chunks) >= 2  # the boundaries it arrived in, not one blob
    assert gzip.compress(body) != body
    shown = repr(recording) + repr(recorder.recordings)
    assert KEY not in shown, shown  # item 13: echoed header and body scrubbed in the repr
    assert "<redacted>" in shown and "your key is" in shown


def _bomb_server(decoded: bytes):  # type: ignore[no-untyped-def]
    """One small gzip chunk that inflates to all of ``decoded`` (a bomb, in one network read)."""

    async def script(stream: SocketStream) -> None:
        await read_request(stream)
        data = gzip.compress(decoded, compresslevel=9)
        await stream.send(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-encoding: gzip\r\n"
            + f"content-length: {len(data)}\r\n\r\n".encode()
            + data
        )

    return script


async def test_a_gzip_bomb_is_recorded_a_piece_at_a_time_with_the_loop_turning() -> None:
    """Issue 49, item 1 for the recorder: a gzip read that inflates to megabytes is inflated a
    piece at a time (as the live readers do), never whole, and the loop turns between pieces."""
    from llmbridge.stream.pieces import PIECE_BYTES
    from tests.heartbeat import Heartbeat

    body = b": keep-alive\n\n" * (4 * 1024 * 1024 // 14) + chat_sse({"content": "done"}, model="m")
    beat = Heartbeat()
    with anyio.fail_after(60):
        async with serve(_bomb_server(body)) as url, anyio.create_task_group() as tg:
            tg.start_soon(beat.spin)
            recorder = RecordingTransport()
            async with httpx.AsyncClient(transport=recorder) as http:
                client = lb.Client(http_client=http, **_options(url))  # type: ignore[arg-type]
                response = await client.complete("openai-compatible:m", [lb.ChatMessage.user("x")])
            tg.cancel_scope.cancel()
    assert response.text == "done"
    chunks = recorder.recordings[-1].chunks
    assert b"".join(chunks) == body  # decompressed, exact
    assert max(map(len, chunks)) <= PIECE_BYTES  # never the whole inflated read at once
    assert beat.turns >= len(body) // PIECE_BYTES // 2  # the loop ran between pieces
