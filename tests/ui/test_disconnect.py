"""A browser that leaves mid-stream closes the model's connection: a Starlette app streams a
real socket's model stream (tests/loopback.py) through ``llmbridge.ui.starlette``; the ASGI
client disconnects after the first text, and the upstream server sees its connection closed
within a second. Both ASGI disconnect paths (a 2.4 server's failing ``send``, an older one's
``http.disconnect`` watcher), both protocols, on asyncio, uvloop and trio."""

from __future__ import annotations

import time
from typing import Any

import anyio
import httpx
import orjson
import pytest
from anyio.abc import SocketStream
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route

import llmbridge as lb
from llmbridge.ui.starlette import ag_ui_response, ai_sdk_response
from tests.fakes import sse_body
from tests.loopback import SSE_HEAD, chunk, read_request, serve

pytestmark = [pytest.mark.anyio, pytest.mark.io, pytest.mark.usefixtures("fake_registered")]


class Upstream:
    """A model server that streams a word every 50 ms until the client hangs up."""

    def __init__(self) -> None:
        self.closed_at: float | None = None
        self.closed = anyio.Event()

    async def script(self, stream: SocketStream) -> None:
        await read_request(stream)
        await stream.send(SSE_HEAD + chunk(sse_body({"text": "first "})))

        async def words() -> None:
            while True:
                await anyio.sleep(0.05)
                await stream.send(chunk(sse_body({"text": "more "})))

        async with anyio.create_task_group() as tg:
            tg.start_soon(words)
            try:
                while await stream.receive():
                    pass
            except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass
            finally:
                self.closed_at = time.monotonic()
                self.closed.set()
                tg.cancel_scope.cancel()


class Tracked:
    """The model stream, noting when it is closed."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.closed = False

    def __aiter__(self) -> Any:
        return self.inner.__aiter__()

    async def aclose(self) -> None:
        self.closed = True
        await self.inner.aclose()


def _app(client: lb.Client, protocol: str, streams: list[Tracked]) -> Starlette:
    async def chat(request: Request) -> Response:
        events = Tracked(client.stream("fake:m", [lb.ChatMessage.user("hi")]))
        streams.append(events)
        if protocol == "ai-sdk":
            return ai_sdk_response(events)
        return ag_ui_response(events, thread_id="t", run_id="r")

    return Starlette(routes=[Route("/chat", chat, methods=["POST"])])


@pytest.mark.parametrize("protocol", ["ai-sdk", "ag-ui"])
@pytest.mark.parametrize("spec", ["2.4", "2.3"])
async def test_a_client_that_leaves_closes_the_upstream_stream(protocol: str, spec: str) -> None:
    upstream = Upstream()
    left = anyio.Event()
    sent: list[bytes] = []
    left_at: float | None = None

    asked: list[bool] = []

    async def receive() -> dict[str, Any]:
        if not asked:
            asked.append(True)
            return {"type": "http.request", "body": b"{}", "more_body": False}
        await left.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal left_at
        if left.is_set():
            raise OSError("the client went away")  # what an ASGI 2.4 server does
        if message["type"] == "http.response.body":
            sent.append(message["body"])
            if b"first" in message["body"]:  # the page saw the first words, then left
                left_at = time.monotonic()
                left.set()

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": spec},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/chat",
        "raw_path": b"/chat",
        "query_string": b"",
        "headers": [(b"content-type", b"application/json")],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }
    async with serve(upstream.script) as url, httpx.AsyncClient() as http:
        client = lb.Client(http_client=http, providers={"fake": {"base_url": url}})
        streams: list[Tracked] = []
        app = _app(client, protocol, streams)
        with anyio.fail_after(10):
            try:
                await app(scope, receive, send)
            except ClientDisconnect:  # starlette's word for the failing send (ASGI 2.4)
                assert spec == "2.4"
            # closed by the response itself, not left to the garbage collector's finalizer
            assert streams[0].closed
            with anyio.fail_after(1):  # within a second of the browser leaving
                await upstream.closed.wait()
    assert left_at is not None and upstream.closed_at is not None
    assert upstream.closed_at - left_at < 1.0
    first = b"".join(sent).split(b"\n\n")[0]
    assert orjson.loads(first.removeprefix(b"data: "))["type"] in ("start", "RUN_STARTED")
