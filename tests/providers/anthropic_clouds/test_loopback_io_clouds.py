"""Claude on clouds over a real socket, on asyncio, uvloop and trio.

``anthropic-bedrock``: an InvokeModelWithResponseStream body (binary AWS event stream whose
``chunk`` frames carry Anthropic events), served in small chunks; an exception frame mid-stream
is a typed error with the partial kept; a throttled first attempt (``x-amzn-ErrorType``) is
retried. ``anthropic-vertex``: the ``:streamRawPredict`` SSE body, the token from an async
``token_provider`` reaching the request as a bearer token, never a key header.
"""

from __future__ import annotations

import base64
from typing import Any

import anyio
import httpx
import orjson
import pytest
from anyio.abc import SocketStream

import llmbridge as lb
from tests.loopback import chunk, read_request, serve

pytest.importorskip("botocore")
import anyio.lowlevel

from tests.fakes import named_sse
from tests.providers.bedrock.frames import event, exception

pytestmark = pytest.mark.anyio

KEY = "bedrock-loopback-key-0123456789"
TOKEN = "vertex-loopback-token-0123456789"
MODEL = "us.anthropic.claude-haiku-4-5-20251001-v1:0"

ANTHROPIC_EVENTS: list[dict[str, Any]] = [
    {"type": "message_start", "message": {"id": "msg_1", "model": "claude-haiku-4-5",
     "role": "assistant", "content": [], "usage": {"input_tokens": 12, "output_tokens": 1}}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": " there"}},
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}},
    {"type": "message_stop", "amazon-bedrock-invocationMetrics": {"inputTokenCount": 12}},
]  # fmt: skip


def _chunk_frame(payload: dict[str, Any]) -> bytes:
    data = base64.b64encode(orjson.dumps(payload)).decode()
    return event("chunk", {"bytes": data, "p": "abcdefgh"})


def _head(status: str, ctype: str, extra: str = "") -> bytes:
    return (
        f"HTTP/1.1 {status}\r\ncontent-type: {ctype}\r\n{extra}transfer-encoding: chunked\r\n\r\n"
    ).encode()


async def _send_split(stream: SocketStream, body: bytes, size: int = 7) -> None:
    for at in range(0, len(body), size):
        await stream.send(chunk(body[at : at + size]))
    await stream.send(b"0\r\n\r\n")


async def test_bedrock_eventstream_over_a_socket() -> None:
    seen: list[tuple[bytes, bytes]] = []
    body = b"".join(_chunk_frame(p) for p in ANTHROPIC_EVENTS)

    async def script(stream: SocketStream) -> None:
        seen.append(await read_request(stream))
        await stream.send(_head("200 OK", "application/vnd.amazon.eventstream"))
        await _send_split(stream, body)

    async with serve(script) as url, httpx.AsyncClient() as http:
        providers = {"anthropic-bedrock": {"api_key": KEY, "base_url": url}}
        client = lb.Client(http_client=http, providers=providers)
        events = [e async for e in client.stream(f"anthropic-bedrock:{MODEL}",
                                                 [lb.ChatMessage.user("hi")], max_tokens=64)]  # fmt: skip
    resp = lb.accumulate(events)
    assert resp.text == "Hello there" and resp.finish_reason == "stop"
    assert resp.usage is not None and (resp.usage.input_tokens, resp.usage.output_tokens) == (12, 3)
    head, sent = seen[0]
    assert head.startswith(f"POST /model/{MODEL}/invoke-with-response-stream ".encode())
    assert f"authorization: Bearer {KEY}".encode() in head.lower().replace(b"bearer", b"Bearer")
    payload = orjson.loads(sent)
    assert "model" not in payload and "stream" not in payload
    assert payload["anthropic_version"] == "2026-10-21"


async def test_bedrock_exception_frame_midway_keeps_the_partial() -> None:
    body = b"".join(_chunk_frame(p) for p in ANTHROPIC_EVENTS[:3])
    body += exception("modelStreamErrorException", "the model stream broke")

    async def script(stream: SocketStream) -> None:
        await read_request(stream)
        await stream.send(_head("200 OK", "application/vnd.amazon.eventstream"))
        await _send_split(stream, body, size=11)

    async with serve(script) as url, httpx.AsyncClient() as http:
        providers = {"anthropic-bedrock": {"api_key": KEY, "base_url": url}}
        client = lb.Client(http_client=http, providers=providers)
        with pytest.raises(lb.ServerError, match="the model stream broke") as info:
            await client.complete(f"anthropic-bedrock:{MODEL}", [lb.ChatMessage.user("hi")])
    assert info.value.partial is not None and info.value.partial.text == "Hello"
    assert info.value.error_type == "modelStreamErrorException"


async def test_bedrock_throttled_first_attempt_is_retried() -> None:
    attempts = 0
    body = b"".join(_chunk_frame(p) for p in ANTHROPIC_EVENTS)

    async def script(stream: SocketStream) -> None:
        nonlocal attempts
        await read_request(stream)
        attempts += 1
        if attempts == 1:
            error = b'{"message":"Too many requests, please wait before trying again."}'
            await stream.send(_head("429 Too Many Requests", "application/json",
                                    "x-amzn-errortype: ThrottlingException:http://internal/\r\n"
                                    "retry-after: 0\r\n"))  # fmt: skip
            await _send_split(stream, error, size=len(error))
            return
        await stream.send(_head("200 OK", "application/vnd.amazon.eventstream"))
        await _send_split(stream, body, size=64)

    async with serve(script) as url, httpx.AsyncClient() as http:
        providers = {"anthropic-bedrock": {"api_key": KEY, "base_url": url}}
        client = lb.Client(http_client=http, providers=providers)
        resp = await client.complete(f"anthropic-bedrock:{MODEL}", [lb.ChatMessage.user("hi")])
    assert resp.text == "Hello there" and attempts == 2


async def test_bedrock_throttling_error_is_typed() -> None:
    async def script(stream: SocketStream) -> None:
        await read_request(stream)
        error = b'{"message":"Too many requests"}'
        await stream.send(_head("429 Too Many Requests", "application/json",
                                "x-amzn-errortype: ThrottlingException:http://internal/\r\n"
                                "x-amzn-requestid: req-123\r\n"))  # fmt: skip
        await _send_split(stream, error, size=len(error))

    async with serve(script) as url, httpx.AsyncClient() as http:
        providers = {"anthropic-bedrock": {"api_key": KEY, "base_url": url}}
        client = lb.Client(
            http_client=http, providers=providers, retry=lb.RetryPolicy(max_attempts=1)
        )
        with pytest.raises(lb.RateLimitError) as info:
            await client.complete(f"anthropic-bedrock:{MODEL}", [lb.ChatMessage.user("hi")])
    error = info.value
    assert error.error_type == "ThrottlingException" and error.request_id == "req-123"
    assert error.provider_message == "Too many requests" and KEY not in str(error)


async def test_vertex_sse_with_an_async_token_provider() -> None:
    seen: list[tuple[bytes, bytes]] = []
    calls = 0

    async def token() -> str:
        nonlocal calls
        calls += 1
        await anyio.lowlevel.checkpoint()
        return TOKEN

    async def script(stream: SocketStream) -> None:
        seen.append(await read_request(stream))
        await stream.send(_head("200 OK", "text/event-stream"))
        await _send_split(stream, named_sse(*ANTHROPIC_EVENTS), size=13)

    async with serve(script) as url, httpx.AsyncClient() as http:
        options = {"project": "proj-1", "location": "europe-west1", "token_provider": token,
                   "base_url": f"{url}/v1"}  # fmt: skip
        client = lb.Client(http_client=http, providers={"anthropic-vertex": options})
        resp = await client.complete(
            "anthropic-vertex:claude-haiku-4-5@20251001", [lb.ChatMessage.user("hi")]
        )
    assert resp.text == "Hello there" and calls == 1
    head, sent = seen[0]
    path = "/v1/projects/proj-1/locations/europe-west1/publishers/anthropic/models/"
    assert head.startswith(f"POST {path}claude-haiku-4-5@20251001:streamRawPredict ".encode())
    headers = head.decode().lower()
    assert f"authorization: bearer {TOKEN}".lower() in headers
    assert "x-api-key" not in headers and "anthropic-version" not in headers
    payload = orjson.loads(sent)
    assert payload["stream"] is True and "model" not in payload
