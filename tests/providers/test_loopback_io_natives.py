"""``ollama-native:`` (NDJSON) and ``cohere:`` (SSE) over a real socket on 127.0.0.1, on
asyncio, uvloop and trio: a whole stream, an error mid-stream, a body cut short (at a line end
and inside a line), a connection that breaks, an HTTP error before the stream (retried), the
NDJSON bound; the partial response is kept wherever events came."""

from __future__ import annotations

from functools import partial

import anyio
import orjson
import pytest
from anyio.abc import SocketStream

import llmbridge as lb
from tests.fakes import named_sse
from tests.loopback import SSE_HEAD, chunk, fails_midway, http_error, read_request, serve

pytestmark = pytest.mark.anyio

NDJSON_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: application/x-ndjson\r\ntransfer-encoding: chunked\r\n\r\n"
)
OLLAMA = "ollama-native:qwen3:8b"
COHERE = "cohere:command-a-03-2025"


def _line(**fields: object) -> bytes:
    return (
        orjson.dumps({"model": "qwen3:8b", "created_at": "2026-01-02T03:04:05Z", **fields}) + b"\n"
    )


THINK = _line(message={"role": "assistant", "content": "", "thinking": "hmm"}, done=False)
TEXT = _line(message={"role": "assistant", "content": "partial "}, done=False)
CALL = _line(
    message={
        "role": "assistant",
        "content": "",
        "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Quito"}}}],
    },
    done=False,
)
DONE = _line(
    message={"role": "assistant", "content": ""},
    done=True,
    done_reason="stop",
    prompt_eval_count=12,
    eval_count=7,
    eval_duration=99,
)


def _sse(kind: str, **data: object) -> bytes:
    return named_sse({"type": kind, **data})


C_START = _sse("message-start", id="r-1", delta={"message": {"role": "assistant"}}) + _sse(
    "content-delta", index=0, delta={"message": {"content": {"text": "partial "}}}
)
C_END = (
    _sse("content-end", index=0)
    + _sse(
        "message-end",
        delta={
            "finish_reason": "COMPLETE",
            "usage": {"tokens": {"input_tokens": 30, "output_tokens": 4}, "cached_tokens": 16},
        },
    )
    + b"data: [DONE]\n\n"
)


def _client(url: str, **kwargs: object) -> lb.Client:
    providers = {
        "ollama-native": {"base_url": url},
        "cohere": {"api_key": "test-key", "base_url": url},
    }
    return lb.Client(providers=providers, **kwargs)  # type: ignore[arg-type]


async def _fails_midway(
    model: str, head: bytes, pieces: list[bytes], error: type[Exception], *, end: bool = True
) -> lb.LLMBridgeError:
    body = [chunk(piece) for piece in pieces] + ([b"0\r\n\r\n"] if end else [])
    client = partial(_client, retry=lb.RetryPolicy(max_attempts=1))
    return await fails_midway(client, model, head, body, error)


async def test_ollama_a_whole_stream() -> None:
    async def script(stream: SocketStream) -> None:
        head, body = await read_request(stream)
        assert head.startswith(b"POST /api/chat ")
        assert orjson.loads(body)["stream"] is True
        await stream.send(NDJSON_HEAD)
        for piece in (THINK + TEXT[:17], TEXT[17:] + CALL, DONE):  # lines split across chunks
            await stream.send(chunk(piece))
        await stream.send(b"0\r\n\r\n")

    async with serve(script) as url:
        client = _client(url)
        with anyio.fail_after(5):
            resp = await client.complete(OLLAMA, [lb.ChatMessage.user("hi")])
        await client.aclose()
    assert (resp.text, resp.reasoning) == ("partial ", "hmm")
    assert [(c.name, c.arguments) for c in resp.tool_calls] == [("get_weather", {"city": "Quito"})]
    assert resp.finish_reason == "tool_calls"
    assert resp.usage == lb.Usage(input_tokens=12, output_tokens=7)


async def test_ollama_an_error_line_mid_stream() -> None:
    error = await _fails_midway(
        OLLAMA,
        NDJSON_HEAD,
        [TEXT, b'{"error":"model runner has unexpectedly stopped"}\n'],
        lb.ServerError,
    )
    assert error.provider_message == "model runner has unexpectedly stopped"


@pytest.mark.parametrize("cut", [0, 25])
async def test_ollama_a_body_cut_short(cut: int) -> None:
    tail = [DONE[:cut]] if cut else []
    await _fails_midway(OLLAMA, NDJSON_HEAD, [TEXT, *tail], lb.StreamTruncatedError)


async def test_ollama_a_broken_connection() -> None:
    await _fails_midway(OLLAMA, NDJSON_HEAD, [TEXT], lb.StreamTruncatedError, end=False)


async def test_ollama_an_endless_line_is_bounded() -> None:
    async def script(stream: SocketStream) -> None:
        await read_request(stream)
        await stream.send(NDJSON_HEAD + chunk(TEXT))
        for _ in range(40):
            await stream.send(chunk(b"x" * 1024))
        await stream.send(b"0\r\n\r\n")

    async with serve(script) as url:
        client = lb.Client(providers={"ollama-native": {"base_url": url}}, max_event_bytes=8192)
        with (
            anyio.fail_after(5),
            pytest.raises(lb.MalformedStreamError, match="max_event_bytes") as info,
        ):
            await client.complete(OLLAMA, [lb.ChatMessage.user("hi")])
        await client.aclose()
    assert info.value.partial is not None and info.value.partial.text == "partial "


async def test_ollama_a_missing_model_is_not_found() -> None:
    async def script(stream: SocketStream) -> None:
        await read_request(stream)
        body = b'{"error":"model \\"qwen3:8b\\" not found, try pulling it first"}'
        await stream.send(http_error(404, "Not Found", body, b"content-type: application/json"))

    async with serve(script) as url:
        client = _client(url)
        with pytest.raises(lb.NotFoundError, match="try pulling it first"):
            await client.complete(OLLAMA, [lb.ChatMessage.user("hi")])
        await client.aclose()


async def test_cohere_a_whole_stream() -> None:
    async def script(stream: SocketStream) -> None:
        head, _ = await read_request(stream)
        assert head.startswith(b"POST /v2/chat ")
        assert b"bearer test-key" in head.lower()
        await stream.send(
            SSE_HEAD + chunk(C_START[:30]) + chunk(C_START[30:] + C_END) + b"0\r\n\r\n"
        )

    async with serve(script) as url:
        client = _client(url)
        with anyio.fail_after(5):
            resp = await client.complete(COHERE, [lb.ChatMessage.user("hi")])
        await client.aclose()
    assert (resp.text, resp.finish_reason) == ("partial ", "stop")
    assert resp.usage == lb.Usage(input_tokens=30, output_tokens=4, cached_input_tokens=16)


async def test_cohere_a_body_without_message_end() -> None:
    await _fails_midway(COHERE, SSE_HEAD, [C_START], lb.StreamTruncatedError)


async def test_cohere_a_broken_connection() -> None:
    await _fails_midway(COHERE, SSE_HEAD, [C_START], lb.StreamTruncatedError, end=False)


async def test_cohere_a_malformed_event_mid_stream() -> None:
    await _fails_midway(
        COHERE,
        SSE_HEAD,
        [C_START, b"event: content-delta\ndata: {oops\n\n"],
        lb.MalformedStreamError,
    )


async def test_cohere_rate_limit_before_the_stream_is_retried() -> None:
    attempts = 0

    async def script(stream: SocketStream) -> None:
        nonlocal attempts
        await read_request(stream)
        attempts += 1
        if attempts == 1:
            body = b'{"id":"e","message":"You are using a Trial key, which is limited to 20 API calls / minute."}'
            await stream.send(
                http_error(
                    429,
                    "Too Many Requests",
                    body,
                    b"content-type: application/json",
                    b"retry-after: 0.05",
                )
            )
            return
        await stream.send(SSE_HEAD + chunk(C_START + C_END) + b"0\r\n\r\n")

    policy = lb.RetryPolicy(max_attempts=2, initial_delay=0.01, jitter=0.0)
    async with serve(script) as url:
        client = _client(url, retry=policy)
        with anyio.fail_after(5):
            resp = await client.complete(COHERE, [lb.ChatMessage.user("hi")])
        await client.aclose()
    assert resp.text == "partial " and attempts == 2


@pytest.mark.parametrize("model", [OLLAMA, COHERE])
async def test_a_key_echoed_back_never_shows(model: str) -> None:
    key = "sk-natives-0123456789abcdef"

    async def script(stream: SocketStream) -> None:
        head, _ = await read_request(stream)
        assert f"bearer {key}".encode() in head.lower()
        message = f"invalid api key {key}".encode()
        if model == OLLAMA:  # Ollama's error line, inside a 200 stream
            await stream.send(NDJSON_HEAD + chunk(TEXT) + chunk(b'{"error":"' + message + b'"}\n'))
            await stream.send(b"0\r\n\r\n")
        else:
            body = b'{"id":"e","message":"' + message + b'"}'
            await stream.send(
                http_error(401, "Unauthorized", body, b"content-type: application/json")
            )

    async with serve(script) as url:
        providers = {
            "ollama-native": {"base_url": url, "api_key": key},
            "cohere": {"base_url": url, "api_key": key},
        }
        client = lb.Client(providers=providers, retry=lb.RetryPolicy(max_attempts=1))
        with anyio.fail_after(5), pytest.raises(lb.APIError) as info:
            await client.complete(model, [lb.ChatMessage.user("hi")])
        await client.aclose()
    error = info.value
    texts = [
        str(error),
        repr(error),
        str(error.provider_message),
        repr(getattr(error, "body", None)),
    ]
    assert all(key not in text for text in texts), texts
    assert "invalid api key" in str(error)
