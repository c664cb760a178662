"""Load: 200 responses streamed at once from a loopback server through one ``Client``.

Every stream carries its own text (built from its request) in many small chunks, with a tool
call, so a mix-up between connections or a lost chunk shows as a wrong event. Bounded: the
whole test must finish within 30 s on a slow CI machine.
"""

from __future__ import annotations

import anyio
import anyio.lowlevel
import orjson
import pytest
from anyio.abc import SocketStream

import llmbridge as lb
from llmbridge.testing import decode_body
from tests.loopback import SSE_HEAD, chunk, serve
from tests.reliability.reliability_support import read_http_request

pytestmark = pytest.mark.anyio

STREAMS = 200


def body_for(tag: str) -> bytes:
    """An OpenAI Chat Completions stream whose every piece depends on ``tag``."""
    base = {"id": f"chatcmpl-{tag}", "object": "chat.completion.chunk", "created": 1, "model": "m"}

    def data(delta: dict[str, object], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return b"data: " + orjson.dumps({**base, "choices": [choice]}) + b"\n\n"

    words = [f"{tag}-word{i} " for i in range(20)]
    call = {"index": 0, "id": f"call_{tag}", "type": "function"}
    parts = [data({"role": "assistant", "content": ""})]
    parts += [data({"content": w}) for w in words]
    parts.append(data({"tool_calls": [{**call, "function": {"name": "echo", "arguments": ""}}]}))
    args = orjson.dumps({"tag": tag}).decode()
    for piece in (args[:5], args[5:]):
        parts.append(data({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}))
    parts.append(data({}, "tool_calls"))
    parts.append(b"data: [DONE]\n\n")
    return b"".join(parts)


async def script(stream: SocketStream) -> None:
    while True:
        _, raw = await read_http_request(stream)
        tag = orjson.loads(raw)["messages"][-1]["content"]
        body = body_for(tag)
        await stream.send(SSE_HEAD)
        for i in range(0, len(body), 200):  # many small writes, interleaved with other streams
            await stream.send(chunk(body[i : i + 200]))
            await anyio.lowlevel.checkpoint()
        await stream.send(b"0\r\n\r\n")


async def test_two_hundred_concurrent_streams_are_each_exact() -> None:
    from llmbridge.providers.openai import ChatCompletionsDecoder

    results: dict[str, list[lb.StreamEvent]] = {}
    async with serve(script) as url:
        async with lb.Client(providers={"openai": {"api_key": "k", "base_url": url}}) as client:

            async def one(i: int) -> None:
                tag = f"s{i:03d}"
                events = [e async for e in client.stream("openai:m", [lb.ChatMessage.user(tag)])]
                results[tag] = events

            with anyio.fail_after(300):  # a hang guard: under load 8, 200 streams outlasted 30 s
                async with anyio.create_task_group() as tg:
                    for i in range(STREAMS):
                        tg.start_soon(one, i)

    assert len(results) == STREAMS
    for tag, events in results.items():
        expected = decode_body(ChatCompletionsDecoder(provider="openai"), [body_for(tag)])
        assert events == expected, f"stream {tag} differs"
        calls = [e for e in events if isinstance(e, lb.ToolCallEnd)]
        assert [c.arguments for c in calls] == [{"tag": tag}]
