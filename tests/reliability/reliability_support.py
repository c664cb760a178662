"""Shared pieces of the reliability suite: one base fixture per provider, a loopback server
that replays raw bytes and then misbehaves on cue, a transport that redirects any provider URL
to it, and the expected-prefix computation ("every event that arrived is yielded").

Not a test module (no ``test_`` prefix); the test files import it as ``tests.reliability...``.
"""

from __future__ import annotations

import socket
import ssl
import struct
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import anyio
import httpx
import orjson
from anyio.abc import SocketAttribute, SocketStream

import llmbridge as lb
from llmbridge.events import StreamEvent
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.base import Provider
from llmbridge.testing import Fixture, iter_sse, load_fixture, merge_deltas
from llmbridge.testing.prepared import prepared_decoder
from tests.loopback import chunk, serve
from tests.loopback import read_request as read_http_request

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
API_KEY = "sk-reliability-SECRET-7f3a9c21e4b8d6"

# One successful streamed fixture per provider: each carries text or reasoning deltas.
BASES: dict[str, str] = {
    "anthropic": "anthropic/text",
    "azure": "azure/deployment_plain_text",
    "deepseek": "deepseek/reasoning_content",
    "gemini": "gemini/text",
    "groq": "groq/whole_call_one_chunk",
    "mistral": "mistral/thinking_parts_and_tool_call",
    "ollama": "ollama/tool_call_stop_reason",
    "openai": "openai/plain_text",
    "openai-compatible": "openai-compatible/first_index_one_null_args",
    "openai-responses": "openai-responses/text",
    "openrouter": "openrouter/reasoning_details_keepalive",
    "vertex": "vertex/text_global",
}
PROVIDERS = sorted(BASES)

# Wire family of each provider (for hand-built bodies such as 1,000 tool calls).
FAMILY: dict[str, str] = {
    **{name: "chat" for name in PROVIDERS},
    "anthropic": "anthropic",
    "gemini": "gemini",
    "vertex": "gemini",
    "openai-responses": "responses",
}


@cache
def base_fixture(provider: str) -> Fixture:
    return load_fixture(FIXTURES / BASES[provider])


def provider_options(fx: Fixture) -> dict[str, Any]:
    return {**fx.provider_config, "api_key": API_KEY}


def build_provider(fx: Fixture) -> Provider:
    return create_provider(fx.provider, ProviderConfig.from_mapping(provider_options(fx)))


def make_client(fx: Fixture, http: Any, *, attempts: int = 1) -> tuple[lb.Client, Provider]:
    client = lb.Client(
        http_client=http,
        providers={fx.provider: provider_options(fx)},
        retry=lb.RetryPolicy(max_attempts=attempts, initial_delay=0.001, max_delay=0.002),
    )
    provider, _ = client.resolve(fx.model)
    return client, provider


async def collect(
    client: lb.Client, provider: Provider, request: lb.ChatRequest
) -> tuple[list[StreamEvent], lb.LLMBridgeError | None]:
    events: list[StreamEvent] = []
    try:
        async for event in client.stream_request(provider, request):
            events.append(event)
    except lb.LLMBridgeError as exc:
        return events, exc
    return events, None


def prefix_events(fx: Fixture, data: bytes) -> list[StreamEvent]:
    """Events of the SSE events *completed* within ``data`` (no ``close()``): what arrived."""
    decoder = prepared_decoder(build_provider(fx), fx.request)()
    out: list[StreamEvent] = []
    for name, payload in iter_sse(data):
        out.extend(decoder.feed(name, payload))
    return out


def text_of(events: Sequence[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, lb.TextDelta))


def pool_is_clean(http: httpx.AsyncClient) -> bool:
    """No connection is left mid-response: every pooled connection is idle or closed."""
    pool = http._transport._pool  # type: ignore[attr-defined]
    return all(c.is_closed() or c.is_idle() for c in pool.connections)


# -- body surgery -------------------------------------------------------------------------------


def replace_delta(fx: Fixture, new_text: str) -> tuple[bytes, list[StreamEvent]]:
    """Swap the longest text/reasoning delta for ``new_text`` on the wire and in the goldens.

    The delta's JSON string must occur exactly once in the body (so the swap is unambiguous).
    """
    golden = fx.events or []
    candidates = sorted(
        (e for e in golden if isinstance(e, (lb.TextDelta, lb.ReasoningDelta)) and e.text),
        key=lambda e: -len(e.text),
    )
    for ev in candidates:
        quoted = orjson.dumps(ev.text)
        if fx.body.count(quoted) == 1:
            body = fx.body.replace(quoted, orjson.dumps(new_text))
            swapped = [
                type(e)(new_text, *_extra(e)) if e is ev else e  # type: ignore[call-arg]
                for e in golden
            ]
            return body, merge_deltas(swapped)
    raise AssertionError(f"{fx.name}: no delta to swap")


def _extra(ev: StreamEvent) -> tuple[Any, ...]:
    if isinstance(ev, lb.ReasoningDelta):
        return (ev.signature, ev.provider_data)
    return ()


def event_separator(body: bytes) -> bytes:
    return b"\r\n\r\n" if b"\r\n\r\n" in body else b"\n\n"


def with_keepalives(body: bytes, *, per_gap: int, comment: bytes = b": keep-alive") -> bytes:
    """Insert ``per_gap`` SSE comment lines before every event (and at the end)."""
    sep = event_separator(body)
    line_end = sep[: len(sep) // 2]
    flood = (comment + line_end) * per_gap + line_end
    return flood + body.replace(sep, sep + flood)


# -- loopback server ----------------------------------------------------------------------------


@dataclass
class Scene:
    """What the loopback server answers: status, headers, body chunks, then how it ends."""

    body: list[bytes]
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"content-type": "text/event-stream"})
    ending: str = "finish"  # finish | reset | hang | eof | short (content-length lie)
    requests: int = 0


def reset(stream: SocketStream) -> None:
    """Make the coming close a TCP RST (SO_LINGER 0): a real 'connection reset by peer'."""
    sock: socket.socket = stream.extra(SocketAttribute.raw_socket)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def _head(status: int, headers: dict[str, str], length: int | None) -> bytes:
    lines = [f"HTTP/1.1 {status} X"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    lines.append(
        f"content-length: {length}" if length is not None else "transfer-encoding: chunked"
    )
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def play(scene: Scene, stream: SocketStream) -> None:
    while True:
        await read_http_request(stream)
        scene.requests += 1
        if scene.ending == "short":
            full = b"".join(scene.body)
            await stream.send(_head(scene.status, scene.headers, len(full) + 100) + full)
            return
        await stream.send(_head(scene.status, scene.headers, None))
        for piece in scene.body:
            if piece:
                await stream.send(chunk(piece))
        if scene.ending == "finish":
            await stream.send(b"0\r\n\r\n")
            continue
        if scene.ending == "reset":
            reset(stream)
        elif scene.ending == "hang":
            await anyio.sleep(30)
        return  # "eof" / "reset": close the connection mid-body


# Building an SSL context loads the CA bundle (~40 ms): share one, loopback is plain HTTP anyway.
_SSL = ssl.create_default_context()


class RedirectTransport(httpx.AsyncHTTPTransport):
    """Send every request, whatever its provider URL, to the loopback server."""

    def __init__(self, base: str, **kwargs: Any) -> None:
        super().__init__(verify=_SSL, **kwargs)
        self._target = httpx.URL(base)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.url = request.url.copy_with(
            scheme="http", host=self._target.host, port=self._target.port
        )
        return await super().handle_async_request(request)


@asynccontextmanager
async def loopback(scene: Scene, *, read_timeout: float = 5.0) -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client whose every request reaches a loopback server playing ``scene``."""

    async def script(stream: SocketStream) -> None:
        await play(scene, stream)

    async with serve(script) as url:
        http = httpx.AsyncClient(
            transport=RedirectTransport(url), timeout=httpx.Timeout(5.0, read=read_timeout)
        )
        try:
            yield http
        finally:
            await http.aclose()


def split_every(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


Check = Callable[[list[StreamEvent], lb.LLMBridgeError | None], None]
