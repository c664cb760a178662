"""A stream that carries a planning warning (in ``Prepared.warnings``, stamped by the loop)
keeps what the bare decoder keeps: a broken stream's partial response still has the held
compaction item, and a broken background response still resumes where it stood."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

import llmbridge as lb
from tests.fakes import sse_body

pytestmark = pytest.mark.anyio

MODEL = "openai-responses:gpt-5"
KEYS = {"openai-responses": {"api_key": "sk-test"}}
DEFERRED = lb.ToolSpec.from_json_schema("lookup", "Look a word up.", {"type": "object"})
WARNING = "defer_loading=True but no ToolSearch"


def _tools() -> list[lb.ToolSpec]:
    """A deferred tool with no ToolSearch: sent as ordinary, with a warning on the stream."""
    return [DEFERRED.deferred(True)]


def _message(text: str) -> list[dict[str, Any]]:
    item = {"id": "msg_0", "type": "message", "role": "assistant"}
    done = {**item, "content": [{"type": "output_text", "text": text, "annotations": []}]}
    return [
        {"type": "response.output_item.added", "output_index": 0, "item": {**item, "content": []}},
        {"type": "response.output_text.delta", "output_index": 0, "delta": text},
        {"type": "response.output_item.done", "output_index": 0, "item": done},
    ]


class _Broken(httpx.AsyncByteStream):
    """``body``, then a reset connection."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.body
        raise httpx.ReadError("connection reset")


def _answer(body: bytes, *, broken: bool) -> httpx.Response:
    stream = _Broken(body) if broken else httpx.ByteStream(body)
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=stream)


async def test_a_warned_broken_stream_keeps_the_held_compaction_in_the_partial(
    anyio_backend: Any,
) -> None:
    compaction = {"id": "cmp_1", "type": "compaction", "encrypted_content": "D"}
    created = {"type": "response.created", "response": {"id": "resp_1", "model": "gpt-5"}}
    done = {"type": "response.output_item.done", "output_index": 1, "item": compaction}
    body = sse_body(created, *_message("Hi."), done)
    http = httpx.AsyncClient(transport=httpx.MockTransport(lambda r: _answer(body, broken=True)))
    async with lb.Client(
        http_client=http, providers=KEYS, retry=lb.RetryPolicy(max_attempts=1)
    ) as c:
        with pytest.raises(lb.LLMBridgeError) as info:
            await c.complete(MODEL, [lb.ChatMessage.user("hi")], tools=_tools())
    partial = info.value.partial
    assert partial is not None and partial.text == "Hi."
    assert any(WARNING in w for w in partial.warnings)
    assert [p.data for p in partial.compactions] == [compaction]


def _numbered(payloads: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**p, "sequence_number": i} for i, p in enumerate(payloads)]


async def test_a_warned_background_stream_resumes_where_it_broke(anyio_backend: Any) -> None:
    created = {"type": "response.created",
               "response": {"id": "resp_1", "model": "gpt-5", "status": "in_progress"}}  # fmt: skip
    completed = {"type": "response.completed",
                 "response": {"id": "resp_1", "status": "completed", "output": []}}  # fmt: skip
    added, _, done = _message("Hello.")
    deltas = [
        {"type": "response.output_text.delta", "output_index": 0, "delta": d}
        for d in ("Hel", "lo.")
    ]
    events = _numbered([created, added, *deltas, done, completed])
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.method == "POST":  # broken after the first delta
            return _answer(sse_body(*events[:3]), broken=True)
        after = int(request.url.params["starting_after"])
        return _answer(sse_body(*events[after + 1 :]), broken=False)

    http = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    async with lb.Client(
        http_client=http, providers=KEYS, retry=lb.RetryPolicy(initial_delay=0)
    ) as c:
        got = [
            e
            async for e in c.stream(
                MODEL, [lb.ChatMessage.user("hi")], tools=_tools(), background=True
            )
        ]
    assert "".join(e.text for e in got if isinstance(e, lb.TextDelta)) == "Hello."
    starts = [e for e in got if isinstance(e, lb.StreamStart)]
    assert len(starts) == 1 and any(WARNING in w for w in starts[0].warnings)
    assert [r.method for r in seen] == ["POST", "GET"]
    assert seen[1].url.params["starting_after"] == "2"
