"""Fallback models over real sockets, on asyncio, uvloop and trio: a refused connection and a
connection dropped midway move to the next model. (That the failed model's response is closed
before the switch is tested in-process, in tests/test_model_chain.py.)"""

from __future__ import annotations

import anyio
import pytest
from anyio.abc import SocketStream

import llmbridge as lb
from llmbridge.providers import ProviderConfig
from llmbridge.stream import RetryPolicy
from tests.fakes import FakeProvider, sse_body
from tests.loopback import SSE_HEAD, chunk, closed_port_url, read_request, serve

pytestmark = pytest.mark.anyio
USER = [lb.ChatMessage.user("hi")]
FAST = RetryPolicy(max_attempts=2, initial_delay=0.001, max_delay=0.002)


async def _answer(stream: SocketStream) -> None:
    await read_request(stream)
    body = sse_body({"text": "Hel"}, {"text": "lo"}, {"finish": "stop"})
    await stream.send(SSE_HEAD + chunk(body) + chunk(b""))


async def _drop_midway(stream: SocketStream) -> None:
    await read_request(stream)
    await stream.send(SSE_HEAD + chunk(sse_body({"text": "half"})))
    await stream.send(b'7f\r\ndata: {"te')  # promise 127 bytes, send a few, then reset


def _model(url: str) -> tuple[FakeProvider, str]:
    return FakeProvider(ProviderConfig(base_url=url)), "m"


async def test_a_refused_connection_falls_back_after_its_retries() -> None:
    refused = await closed_port_url()
    async with serve(_answer) as url, lb.Client(retry=FAST) as client:
        with anyio.fail_after(10):
            response = await client.complete([_model(refused), _model(url)], USER)
    assert response.text == "Hello"
    assert response.warnings[0].startswith("fallback: fake:m failed (ConnectionError")


async def test_a_dropped_stream_restarts_on_the_next_model() -> None:
    async with serve(_drop_midway) as bad, serve(_answer) as good, lb.Client() as client:
        events: list[lb.StreamEvent] = []
        with anyio.fail_after(10):
            async with client.stream([_model(bad), _model(good)], USER, restart=True) as stream:
                async for event in stream:
                    events.append(event)
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["TextDelta", "ModelSwitch", "StreamStart", "TextDelta", "TextDelta", "Finish"]
    switch = events[1]
    assert isinstance(switch, lb.ModelSwitch)
    assert isinstance(switch.error, lb.StreamTruncatedError | lb.ConnectionError)
    assert lb.accumulate(events).text == "Hello"


async def test_without_restart_the_dropped_stream_is_the_error() -> None:
    async with serve(_drop_midway) as bad, serve(_answer) as good, lb.Client() as client:
        with anyio.fail_after(10), pytest.raises(lb.LLMBridgeError) as info:
            await client.complete([_model(bad), _model(good)], USER)
    assert not isinstance(info.value, lb.AllModelsFailedError)
    assert info.value.partial is not None and info.value.partial.text == "half"
