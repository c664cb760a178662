"""A tiny provider and HTTP helpers for testing the core without any real provider.

Wire format of the fake provider: each SSE ``data:`` is JSON ``{"text": ...}``,
``{"finish": reason}``, or ``{"error": {...}}``; the stream must end with a finish.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import httpx
import orjson

from llmbridge import Finish, TextDelta, Usage
from llmbridge.errors import (
    APIError,
    ContextLengthError,
    InvalidRequestError,
    MalformedStreamError,
    OverloadedError,
    RateLimitError,
    ServerError,
    StreamTruncatedError,
)
from llmbridge.events import StreamEvent
from llmbridge.providers import Capabilities, HttpRequest, ProviderConfig
from llmbridge.providers.http_errors import api_error, error_from_body
from llmbridge.types import ChatRequest

FAKE_ERRORS: dict[str, type[APIError]] = {
    "invalid_request_error": InvalidRequestError,
    "context_length_exceeded": ContextLengthError,
    "rate_limit_error": RateLimitError,
    "server_error": ServerError,
    "overloaded_error": OverloadedError,
}
"""The fake wire's error vocabulary (what a provider's ``errors.py`` declares as ``ERRORS``)."""


class FakeDecoder:
    def __init__(self) -> None:
        self.done = False

    def feed(self, event: str, data: str) -> list[StreamEvent]:
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise MalformedStreamError(f"not JSON: {data[:40]!r}") from exc
        if "error" in obj:
            raise api_error(provider="fake", status=None, error=obj, errors=FAKE_ERRORS)
        if "finish" in obj:
            self.done = True
            return [Finish(reason=obj["finish"], raw_reason=obj["finish"], usage=Usage(3, 2))]
        return [TextDelta(obj["text"])]

    def close(self) -> list[StreamEvent]:
        if not self.done:
            raise StreamTruncatedError("no finish")
        return []


class FakeProvider:
    name = "fake"

    def __init__(self, config: ProviderConfig | None = None, *, native_tools: bool = True) -> None:
        config = config or ProviderConfig()
        self._key = config.key("FAKE_API_KEY", provider="fake", required=False)
        self.base_url = config.base_url or "https://fake.test/v1"
        self.native_tools = native_tools

    def capabilities(self, model: str) -> Capabilities:
        return Capabilities(native_tools=self.native_tools)

    def build_request(self, request: ChatRequest) -> HttpRequest:
        headers = {"content-type": "application/json"}
        if self._key is not None:
            headers["authorization"] = f"Bearer {self._key.reveal()}"
        body: dict[str, Any] = {
            "model": request.model,
            "messages": [{"role": m.role, "text": m.text} for m in request.messages],
        }
        return HttpRequest("POST", f"{self.base_url}/chat", headers, body)

    def new_decoder(self, request: ChatRequest) -> FakeDecoder:
        return FakeDecoder()

    def map_error(self, *, status: int, headers: Mapping[str, str], body: bytes) -> APIError:
        return error_from_body(
            provider="fake", status=status, headers=headers, body=body, errors=FAKE_ERRORS
        )


def _json(value: Any) -> bytes:
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:  # an integer past 64 bits, say: what the stdlib writes
        return json.dumps(value).encode()


def sse_body(*events: Any, named: bool = False, done: bool = False, crlf: bool = False) -> bytes:
    """The one SSE body builder: an event per item, a JSON object as ``data: <json>`` (after
    ``event: <its "type">`` when ``named``: the Anthropic and Responses framing) and ``bytes`` as
    they are; then ``data: [DONE]`` when ``done``; ``crlf``: CRLF line ends (Gemini's)."""
    end = b"\r\n" if crlf else b"\n"
    out = []
    for event in events:
        if isinstance(event, bytes):
            out.append(event)
            continue
        head = b"event: " + str(event.get("type")).encode() + end if named else b""
        out.append(head + b"data: " + _json(event) + end + end)
    if done:
        out.append(b"data: [DONE]" + end + end)
    return b"".join(out)


def named_sse(*events: dict[str, Any]) -> bytes:
    """SSE events named by their ``type`` (the Anthropic and Responses framing)."""
    return sse_body(*events, named=True)


def chat_sse(*deltas: dict[str, Any], finish: str = "stop", **fields: Any) -> bytes:
    """An OpenAI Chat Completions stream: a chunk per ``delta``, a chunk with ``finish`` as its
    reason, then ``[DONE]``; ``fields`` go into every chunk (``model``, ``usage``, ...)."""

    def chunk(delta: dict[str, Any], reason: str | None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": reason}
        return {"id": "c", "object": "chat.completion.chunk", **fields, "choices": [choice]}

    chunks = [chunk(d, None) for d in deltas] + [chunk({}, finish)]
    return sse_body(*chunks, done=True)


class ChunkedBody(httpx.AsyncByteStream):
    """A response body served in given chunks; records whether it was closed."""

    def __init__(self, chunks: list[bytes], *, hang_after: int | None = None) -> None:
        self.chunks = chunks
        self.closed = False
        self.hang_after = hang_after

    async def __aiter__(self) -> AsyncIterator[bytes]:
        import anyio

        for i, chunk in enumerate(self.chunks):
            if self.hang_after is not None and i >= self.hang_after:
                await anyio.sleep_forever()
            yield chunk

    async def aclose(self) -> None:
        self.closed = True


def sse_response(body: bytes | list[bytes], status: int = 200, **headers: str) -> httpx.Response:
    chunks = body if isinstance(body, list) else [body]
    return httpx.Response(
        status, headers={"content-type": "text/event-stream", **headers}, stream=ChunkedBody(chunks)
    )


def mock_client(handler: Callable[[httpx.Request], httpx.Response]) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


class RecordingServer:
    """An ``httpx.MockTransport`` handler answering every request with ``body`` as SSE and
    keeping each request's JSON body in ``sent``."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.sent: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(orjson.loads(request.content))
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=self.body)


class FakeClock:
    """Wall-clock time that a test moves on by hand, in place of a module's ``time``:
    ``monkeypatch.setattr("llmbridge.auth.bearer.time", clock)``. ``time()`` is the fake
    (starting at the real now); every other ``time`` function is the real one."""

    def __init__(self, now: float | None = None) -> None:
        self.now = time.time() if now is None else now

    def time(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


def decode_checked(new: Callable[[], Any], body: bytes) -> tuple[list[StreamEvent], Any]:
    """``body`` through a fresh decoder from ``new``: split anywhere (up to 40 cuts) it decodes
    the same, the events keep the contract, and what came before an error comes with it. The
    edge tests of the decoders (tests/MUTATION.md) read every body this way."""
    from llmbridge.testing import assert_split_invariant, check_invariants, decode_collect

    assert_split_invariant(new, body, max_splits=40)
    events, error = decode_collect(new(), [body])
    check_invariants(events, complete=error is None)
    return events, error
