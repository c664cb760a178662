"""``bedrock:`` over a real socket on 127.0.0.1 (asyncio, uvloop, trio): an exception frame
mid-stream, a truncated frame, a bad CRC, throttling before the stream with and without a
retry delay, an HTML error page; the partial response is kept wherever events came."""

from __future__ import annotations

import time

import anyio
import pytest
from anyio.abc import SocketStream

import llmbridge as lb
from tests.loopback import chunk, fails_midway, http_error, read_request, serve
from tests.providers.bedrock.frames import converse, exception

pytestmark = pytest.mark.anyio

MODEL = "bedrock:us.amazon.nova-micro-v1:0"
HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: application/vnd.amazon.eventstream\r\n"
    b"x-amzn-requestid: rid-7\r\ntransfer-encoding: chunked\r\n\r\n"
)
START = converse(
    ("messageStart", {"role": "assistant"}),
    ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "partial "}}),
)
END = converse(
    ("contentBlockStop", {"contentBlockIndex": 0}),
    ("messageStop", {"stopReason": "end_turn"}),
    (
        "metadata",
        {
            "usage": {"inputTokens": 2, "outputTokens": 2, "totalTokens": 4},
            "metrics": {"latencyMs": 1},
        },
    ),
)


def _client(url: str, **kwargs: object) -> lb.Client:
    config = {"api_key": "test-key", "region": "us-east-1", "base_url": url}
    return lb.Client(providers={"bedrock": config}, **kwargs)  # type: ignore[arg-type]


async def _fails_midway(script_body: list[bytes], error: type[Exception]) -> lb.LLMBridgeError:
    return await fails_midway(_client, MODEL, HEAD, script_body, error)


async def test_a_whole_stream_over_a_socket() -> None:
    async def script(stream: SocketStream) -> None:
        head, _ = await read_request(stream)
        assert b"/model/us.amazon.nova-micro-v1%3A0/converse-stream" in head
        await stream.send(HEAD + chunk(START) + chunk(END) + b"0\r\n\r\n")

    async with serve(script) as url:
        client = _client(url)
        resp = await client.complete(MODEL, [lb.ChatMessage.user("hi")])
        await client.aclose()
    assert resp.text == "partial " and resp.request_id == "rid-7" and resp.finish_reason == "stop"


async def test_an_exception_frame_mid_stream_is_typed_with_the_partial() -> None:
    frame = exception("modelStreamErrorException", "The model stream failed")
    error = await _fails_midway([chunk(START), chunk(frame) + b"0\r\n\r\n"], lb.ServerError)
    assert error.provider_message == "The model stream failed"


async def test_a_truncated_frame_is_a_truncation_with_the_partial() -> None:
    cut = END[:20]
    await _fails_midway([chunk(START), chunk(cut) + b"0\r\n\r\n"], lb.StreamTruncatedError)


async def test_a_bad_crc_is_malformed_with_the_partial() -> None:
    bad = bytearray(END)
    bad[-1] ^= 0xFF  # the message CRC of the last frame (metadata); the two before it pass
    await _fails_midway([chunk(START), chunk(bytes(bad)) + b"0\r\n\r\n"], lb.MalformedStreamError)


@pytest.mark.parametrize("retry_after", [True, False])
async def test_throttling_before_the_stream_is_retried(retry_after: bool) -> None:
    attempts = 0
    times: list[float] = []

    async def script(stream: SocketStream) -> None:
        nonlocal attempts
        await read_request(stream)
        attempts += 1
        times.append(time.monotonic())
        if attempts == 1:
            extra = [b"retry-after: 0.6"] if retry_after else []
            await stream.send(
                http_error(
                    429,
                    "Too Many Requests",
                    b'{"message":"Too many requests, please wait before trying again."}',
                    b"content-type: application/json",
                    b"x-amzn-errortype: ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
                    *extra,
                )
            )
            return
        await stream.send(HEAD + chunk(START) + chunk(END) + b"0\r\n\r\n")

    policy = lb.RetryPolicy(max_attempts=2, initial_delay=0.05, jitter=0.0)
    async with serve(script) as url:
        client = _client(url, retry=policy)
        with anyio.fail_after(5):
            resp = await client.complete(MODEL, [lb.ChatMessage.user("hi")])
        await client.aclose()
    assert resp.text == "partial " and attempts == 2
    waited = times[1] - times[0]
    assert waited >= (0.6 if retry_after else 0.05)
    if not retry_after:
        assert waited < 0.5  # the policy's 0.05 s, with room for a loaded machine


async def test_an_html_error_page_is_a_typedhttp_error() -> None:
    async def script(stream: SocketStream) -> None:
        await read_request(stream)
        await stream.send(
            http_error(
                502,
                "Bad Gateway",
                b"<html><body><h1>502 Bad Gateway</h1></body></html>",
                b"content-type: text/html",
            )
        )

    async with serve(script) as url:
        client = _client(url, retry=lb.RetryPolicy(max_attempts=1))
        with pytest.raises(lb.ServerError, match="502 Bad Gateway") as info:
            await client.complete(MODEL, [lb.ChatMessage.user("hi")])
        await client.aclose()
    assert info.value.status == 502


async def test_a_200_html_page_is_not_an_event_stream() -> None:
    async def script(stream: SocketStream) -> None:
        await read_request(stream)
        page = b"<html>captive portal</html>"
        await stream.send(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: "
            + str(len(page)).encode()
            + b"\r\n\r\n"
            + page
        )

    async with serve(script) as url:
        client = _client(url, retry=lb.RetryPolicy(max_attempts=1))
        with pytest.raises(lb.MalformedStreamError, match="captive portal"):
            await client.complete(MODEL, [lb.ChatMessage.user("hi")])
        await client.aclose()


async def test_the_key_never_shows_in_anhttp_error(monkeypatch: pytest.MonkeyPatch) -> None:
    async def script(stream: SocketStream) -> None:
        head, _ = await read_request(stream)
        assert b"authorization: Bearer test-key" in head.lower().replace(b"bearer", b"Bearer")
        await stream.send(
            http_error(
                403,
                "Forbidden",
                b'{"message":"Bearer test-key is not allowed"}',
                b"x-amzn-errortype: AccessDeniedException",
            )
        )

    async with serve(script) as url:
        client = _client(url)
        with pytest.raises(lb.PermissionDeniedError) as info:
            await client.complete(MODEL, [lb.ChatMessage.user("hi")])
        await client.aclose()
    assert "test-key" not in str(info.value) and "test-key" not in repr(info.value.body)
