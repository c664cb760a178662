"""A loopback chat server for the auth tests: records every request, answers as told."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from anyio.abc import SocketStream

from tests.loopback import read_request, serve

CHAT_SSE = (
    b'data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,'
    b'"delta":{"role":"assistant","content":"hi"},"finish_reason":null}]}\n\n'
    b'data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,'
    b'"delta":{},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)
REASONS = {
    200: "OK",
    301: "Moved Permanently",
    302: "Found",
    307: "Temporary Redirect",
    308: "Permanent Redirect",
    401: "Unauthorized",
    403: "Forbidden",
    500: "Internal Server Error",
}


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Answer:
    status: int = 200
    body: bytes = CHAT_SSE
    content_type: str = "text/event-stream"
    headers: dict[str, str] = field(default_factory=dict)
    """More response headers (a redirect's ``location``)."""


Answerer = Callable[[Seen], Awaitable[Answer] | Answer]


@asynccontextmanager
async def chat_server(answer: Answerer | None = None) -> AsyncIterator[tuple[str, list[Seen]]]:
    """Serve ``answer(request)`` for every request (keep-alive); yield the URL and the log."""
    seen: list[Seen] = []

    async def script(stream: SocketStream) -> None:
        while True:
            head, body = await read_request(stream)
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            request = Seen(method, path, headers, body)
            seen.append(request)
            result = Answer() if answer is None else answer(request)
            if not isinstance(result, Answer):
                result = await result
            await stream.send(
                (
                    f"HTTP/1.1 {result.status} {REASONS.get(result.status, 'X')}\r\n"
                    f"content-type: {result.content_type}\r\ncontent-length: {len(result.body)}\r\n"
                    + "".join(f"{k}: {v}\r\n" for k, v in result.headers.items())
                    + "\r\n"
                ).encode()
                + result.body
            )

    async with serve(script) as url:
        yield url, seen


def unauthorized(message: str = "invalid token") -> Answer:
    return Answer(
        401,
        b'{"error":{"message":"' + message.encode() + b'","type":"invalid_request_error"}}',
        "application/json",
    )


def on_get(tokens: Any, calls: int, then: Callable[[], object]) -> None:
    """Call ``then()`` when the ``calls``-th call of ``tokens.get`` (a ``SharedRefresh``,
    patched on the instance) begins. ``get`` runs to its wait without yielding, so whoever
    ``then`` wakes runs only once that caller waits on the fetch in flight (no timing)."""
    get = tokens.get
    seen = 0

    async def counted(**kwargs: Any) -> Any:
        nonlocal seen
        seen += 1
        if seen == calls:
            then()
        return await get(**kwargs)

    tokens.get = counted
