"""A ``Client``'s pools and streams over their lifetime (issue 34, items 14-17).

* 14: one ``Client`` used on several event loops (asyncio, uvloop, trio; one after another, or
  alive at once in two threads): ``aclose()`` closes every loop's pool. A thread-run server
  counts the connections still open from the client side; none may be left, and no "unclosed
  transport" ``ResourceWarning`` may appear.
* 15: a stream made before ``Client.aclose()`` and iterated after it is a ``UsageError`` (it
  used to open a new pool nobody closed).
* 16: ``aclose()`` on a stream from a second task while the first awaits its next event: a
  ``UsageError``, never a bare ``RuntimeError``; the stream still closes once the read ends.
* 17: under trio, a stream left mid-body and dropped emits no "async generator ... garbage
  collected" warning (as on asyncio).
"""

from __future__ import annotations

import asyncio
import gc
import socket
import sys
import threading
import warnings
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from anyio.abc import SocketStream

import llmbridge as lb
from tests.fakes import sse_body
from tests.loopback import (
    SSE_HEAD,
    Script,
    ThreadedServer,
    chunk,
    read_request,
    read_requests,
    serve,
)

pytestmark = pytest.mark.usefixtures("fake_registered", "young_heap")
MESSAGES = [lb.ChatMessage.user("hi")]
BODY = SSE_HEAD + chunk(sse_body({"text": "ok"}, {"finish": "stop"})) + b"0\r\n\r\n"
RUNS: dict[str, tuple[str, dict[str, Any]]] = {
    "asyncio": ("asyncio", {}),
    "uvloop": ("asyncio", {"use_uvloop": True}),
    "trio": ("trio", {}),
}


def _answer_each(conn: socket.socket) -> None:
    """A short stream for every request, the connection kept alive."""
    for _ in read_requests(conn):
        conn.sendall(BODY)


@pytest.fixture
def server() -> Iterator[ThreadedServer]:
    srv = ThreadedServer(_answer_each)
    yield srv
    srv.close()


def _run(name: str, fn: Any) -> Any:
    backend, options = RUNS[name]
    if name == "uvloop":
        pytest.importorskip("uvloop")
    return anyio.run(fn, backend=backend, backend_options=options)


def _transport_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    return [
        str(w.message)
        for w in caught
        if issubclass(w.category, ResourceWarning)
        and ("transport" in str(w.message) or "TCPTransport" in str(w.message))
    ]


@pytest.mark.parametrize(
    "runs",
    [
        ("asyncio", "asyncio", "asyncio"),
        ("trio", "asyncio", "trio"),
        ("uvloop", "trio", "asyncio"),
        ("asyncio", "uvloop", "uvloop"),
    ],
    ids="-".join,
)
def test_one_client_on_several_loops_leaves_no_connection_open(
    server: ThreadedServer, runs: tuple[str, ...]
) -> None:
    client = lb.Client(providers={"fake": {"base_url": server.url}})

    async def use() -> None:
        for _ in range(2):
            assert (await client.complete("fake:m", MESSAGES)).text == "ok"

    async def use_and_close() -> None:
        await use()
        await client.aclose()

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for name in runs[:-1]:
            _run(name, use)
        _run(runs[-1], use_and_close)
        gc.collect()
    assert server.wait_all_closed() == 0, "a loop's connection was left open"
    assert _transport_warnings(caught) == []


@pytest.mark.parametrize("other", ["asyncio", "trio"])
def test_aclose_closes_the_pool_of_a_loop_alive_in_another_thread(
    server: ThreadedServer, other: str
) -> None:
    client = lb.Client(providers={"fake": {"base_url": server.url}})
    used, stop = threading.Event(), threading.Event()

    async def other_loop() -> None:
        assert (await client.complete("fake:m", MESSAGES)).text == "ok"
        used.set()
        while not stop.is_set():  # noqa: ASYNC110  (a threading.Event, set from another thread)
            await anyio.sleep(0.01)  # alive, idle, its connection pooled

    thread = threading.Thread(target=_run, args=(other, other_loop), daemon=True)
    thread.start()
    assert used.wait(10)

    async def here() -> None:
        assert (await client.complete("fake:m", MESSAGES)).text == "ok"
        await client.aclose()

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _run("asyncio", here)
            assert server.wait_all_closed() == 0, "the other loop's pool stayed open"
    finally:
        stop.set()
        thread.join(10)
    gc.collect()
    assert _transport_warnings(caught) == []


def test_a_loop_closed_without_finalizing_leaves_no_noise(server: ThreadedServer) -> None:
    client = lb.Client(providers={"fake": {"base_url": server.url}})
    loop = asyncio.new_event_loop()
    loop.run_until_complete(client.complete("fake:m", MESSAGES))
    loop.close()  # no shutdown_asyncgens: nothing can close that pool now

    unraisable: list[Any] = []
    hook = sys.unraisablehook
    sys.unraisablehook = unraisable.append
    try:

        async def again() -> None:
            assert (await client.complete("fake:m", MESSAGES)).text == "ok"
            await client.aclose()

        _run("asyncio", again)
        gc.collect()
    finally:
        sys.unraisablehook = hook
    assert [u.exc_value for u in unraisable] == []


# -- 15, 16, 17: streams against a closing client -----------------------------------------------


async def _slow(stream: SocketStream) -> None:
    await read_request(stream)
    await stream.send(SSE_HEAD + chunk(sse_body({"text": "first"})))
    await anyio.sleep(0.3)
    await stream.send(chunk(sse_body({"text": "second"}, {"finish": "stop"})) + b"0\r\n\r\n")
    await anyio.sleep(10)


@pytest.mark.anyio
async def test_a_stream_made_before_aclose_and_read_after_it_is_a_usage_error() -> None:
    requests = 0

    async def count(stream: SocketStream) -> None:
        nonlocal requests
        requests += 1
        await _slow(stream)

    async with serve(count) as url:
        client = lb.Client(providers={"fake": {"base_url": url}})
        stream = client.stream("fake:m", MESSAGES)
        await client.aclose()
        with pytest.raises(lb.UsageError, match="closed"):
            await stream.__anext__()
        assert client._http._by_loop == {} and requests == 0


def _held(go_on: anyio.Event) -> Script:
    """``_slow`` with the rest of the body held back until ``go_on`` is set."""

    async def script(stream: SocketStream) -> None:
        await read_request(stream)
        await stream.send(SSE_HEAD + chunk(sse_body({"text": "first"})))
        await go_on.wait()
        await stream.send(chunk(sse_body({"text": "second"}, {"finish": "stop"})) + b"0\r\n\r\n")
        await anyio.sleep(10)

    return script


@pytest.mark.anyio
async def test_aclose_from_a_second_task_while_the_first_reads_is_a_usage_error() -> None:
    go_on = anyio.Event()  # the reader is mid-read until the aclose was tried, however slow
    async with (
        serve(_held(go_on)) as url,
        lb.Client(providers={"fake": {"base_url": url}}) as client,
    ):
        stream = client.stream("fake:m", MESSAGES)
        assert isinstance(await stream.__anext__(), lb.TextDelta)  # "first"
        seen: list[Any] = []
        waiting = anyio.Event()

        async def reader() -> None:
            waiting.set()
            seen.extend([e async for e in stream])

        async with anyio.create_task_group() as tg:
            tg.start_soon(reader)
            await waiting.wait()
            await anyio.sleep(0.05)  # the reader awaits the next event now (none comes yet)
            with pytest.raises(lb.UsageError, match="another task"):
                await stream.aclose()
            go_on.set()
        assert [type(e) for e in seen] == [lb.TextDelta, lb.Finish]
        await stream.aclose()  # once the read ended, closing is fine


@pytest.mark.anyio
async def test_a_stream_dropped_mid_body_emits_no_async_generator_warning() -> None:
    gc.collect()  # what earlier tests left is not this test's
    async with serve(_slow) as url, lb.Client(providers={"fake": {"base_url": url}}) as client:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            shapes: list[tuple[Any, bool]] = [
                ("fake:m", False),
                ("fake:m", True),  # partial values: one more generator around it
                (["fake:m", "fake:n"], False),  # a fallback chain around it
            ]
            for model, partials in shapes:
                stream = client.stream(model, MESSAGES, partial_tool_arguments=partials)
                async for _event in stream:
                    break  # left mid-body, never closed: dropped
                del stream
                for _ in range(2):
                    gc.collect()
                    await anyio.sleep(0.02)
    names = [str(w.message) for w in caught if "garbage collected" in str(w.message)]
    assert names == []


def _sets_on_hang_up(hung_up: anyio.Event) -> Script:
    """A server that sends one text event, then sets ``hung_up`` when the client hangs up."""

    async def notices_the_close(stream: SocketStream) -> None:
        await read_request(stream)
        await stream.send(SSE_HEAD + chunk(sse_body({"text": "first"})))
        try:
            await stream.receive()
        except (anyio.EndOfStream, anyio.BrokenResourceError):
            hung_up.set()

    return notices_the_close


@pytest.mark.anyio
async def test_closing_a_tool_loop_mid_turn_closes_that_turns_response() -> None:
    hung_up = anyio.Event()
    async with serve(_sets_on_hang_up(hung_up)) as url:
        async with lb.Client(providers={"fake": {"base_url": url}}) as client:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                loop = client.run("fake:m", MESSAGES, tools=[])
                async for _event in loop:
                    break
                await loop.aclose()
                with anyio.fail_after(30):
                    await hung_up.wait()  # closed now, not when the turn is collected
                del loop
                gc.collect()
                await anyio.sleep(0.02)
    assert [str(w.message) for w in caught if "garbage collected" in str(w.message)] == []


@pytest.mark.anyio
async def test_a_tool_loop_dropped_mid_turn_is_closed_quietly() -> None:
    hung_up = anyio.Event()
    async with serve(_sets_on_hang_up(hung_up)) as url:
        async with lb.Client(providers={"fake": {"base_url": url}}) as client:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                loop = client.run("fake:m", MESSAGES, tools=[])
                async for _event in loop:
                    break
                del loop  # never closed
                gc.collect()
                with anyio.fail_after(30):
                    await hung_up.wait()
                gc.collect()
                await anyio.sleep(0.02)
    assert [str(w.message) for w in caught if "garbage collected" in str(w.message)] == []
