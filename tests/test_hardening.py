"""Errors that are always ours, Ctrl-C in the blocking client, one notion of a tool everywhere."""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

import llmbridge as lb
from tests.fakes import mock_client, sse_body, sse_response
from tests.loopback import SSE_HEAD, ThreadedServer, chunk

pytestmark = pytest.mark.usefixtures("fake_registered")
MESSAGES = [lb.ChatMessage.user("hi")]


def _ok(request: httpx.Request) -> httpx.Response:
    return sse_response(sse_body({"text": "ok"}, {"finish": "stop"}))


# -- errors that are always ours -------------------------------------------------------------


@pytest.mark.anyio
async def test_a_lone_surrogate_in_text_is_a_usage_error_that_says_what_to_do() -> None:
    async with mock_client(_ok) as http:
        client = lb.Client(http_client=http)
        with pytest.raises(lb.UsageError, match="valid Unicode") as info:
            await client.complete("fake:m", [lb.ChatMessage.user("broken \ud83d emoji")])
    assert isinstance(info.value, lb.LLMBridgeError)


@pytest.mark.anyio
async def test_a_closed_client_says_so() -> None:
    async with mock_client(_ok) as http:
        client = lb.Client(http_client=http)
        assert (await client.complete("fake:m", MESSAGES)).text == "ok"
        await client.aclose()
        with pytest.raises(lb.UsageError, match="closed"):
            await client.complete("fake:m", MESSAGES)
        with pytest.raises(lb.UsageError, match="closed"):
            client.stream("fake:m", MESSAGES)


def test_a_closed_sync_client_says_so() -> None:
    client = lb.SyncClient(http_client=mock_client(_ok))
    assert client.complete("fake:m", MESSAGES).text == "ok"
    client.close()
    client.close()  # twice is fine
    with pytest.raises(lb.UsageError, match="closed"):
        client.complete("fake:m", MESSAGES)
    with pytest.raises(lb.UsageError, match="closed"):
        list(client.stream("fake:m", MESSAGES))


def test_a_wrong_tool_type_is_a_usage_error_and_still_a_type_error() -> None:
    client = lb.Client(http_client=mock_client(_ok))
    with pytest.raises(lb.UsageError, match="tools= takes") as info:
        client.stream("fake:m", MESSAGES, tools=[42])
    assert isinstance(info.value, TypeError)


# -- one notion of a tool --------------------------------------------------------------------


def test_registry_takes_plain_functions_as_the_client_does() -> None:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    registry = lb.ToolRegistry()
    registry.register(add)
    assert [s.name for s in registry.specs()] == ["add"]
    assert registry.call("add", {"a": 2, "b": 3}) == 5
    with pytest.raises(lb.UsageError, match="already registered"):
        registry.register(add)
    with pytest.raises(lb.UsageError, match="cannot register"):
        registry.register(42)
    with pytest.raises(lb.UsageError, match="cannot name a tool"):
        registry.register(lambda a: a)


# -- Ctrl-C in SyncClient.stream -----------------------------------------------------------


class Stalling:
    """Sends one SSE event, then stalls; records when the client closes the connection."""

    def __init__(self) -> None:
        self.closed_by_client = threading.Event()

    def __call__(self, conn: socket.socket) -> None:
        conn.recv(65536)
        conn.sendall(SSE_HEAD + chunk(sse_body({"text": "first"})))
        conn.settimeout(20)
        try:
            while conn.recv(65536):
                pass
        except OSError:
            pass
        self.closed_by_client.set()


@pytest.fixture
def stalling() -> Iterator[tuple[ThreadedServer, Stalling]]:
    handler = Stalling()
    server = ThreadedServer(handler)
    yield server, handler
    server.close()


@pytest.mark.usefixtures("ctrl_c")  # a KeyboardInterrupt, however the run was started
def test_ctrl_c_in_sync_stream_reaches_the_caller_and_closes_the_stream(
    stalling: tuple[ThreadedServer, Stalling],
) -> None:
    server, handler = stalling
    client = lb.SyncClient(providers={"fake": {"base_url": server.url}})
    seen: list[lb.StreamEvent] = []
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        for event in client.stream("fake:m", MESSAGES):
            seen.append(event)
            threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()  # Ctrl-C
    assert [e.text for e in seen if isinstance(e, lb.TextDelta)] == ["first"]
    assert handler.closed_by_client.wait(30), "the stream was left running"
    assert time.monotonic() - start < 10
    client.close()


def test_an_unknown_option_names_the_ones_that_exist() -> None:
    client = lb.Client(http_client=mock_client(_ok))
    with pytest.raises(lb.UsageError, match="unknown option.*seedz.*max_tokens"):
        client.stream("fake:m", MESSAGES, seedz=1)


@pytest.mark.parametrize(
    "misuse",
    [
        lambda: lb.ToolSpec.from_function(lambda *args: None, name="star_args"),
        lambda: lb.ToolSpec.from_mcp({"description": "no name"}),
        lambda: lb.Client().run("fake:m", MESSAGES, tools=[], max_steps=0),
    ],
    ids=["star-args", "mcp-without-name", "max-steps-0"],
)
def test_local_misuse_is_a_typed_error(misuse: object) -> None:
    with pytest.raises(lb.UsageError):
        misuse()  # type: ignore[operator]
