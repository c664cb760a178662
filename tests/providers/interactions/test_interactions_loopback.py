"""``gemini-interactions:`` over a real socket on asyncio, uvloop and trio: a streamed call, and a
background one whose connection drops midway and is resumed from its last event id."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import anyio.lowlevel
import pytest
from anyio.abc import SocketStream

import llmbridge as lb
from tests.loopback import SSE_HEAD, chunk, read_request, serve
from tests.providers.interactions.streams import INTERACTION_ID, sse

pytestmark = [pytest.mark.anyio, pytest.mark.io]

WORDS = ("Sockets", " carry", " every", " event", " once.")


def _events() -> list[dict[str, Any]]:
    head = {"id": INTERACTION_ID, "status": "in_progress", "model": "gemini-3-flash-preview"}
    events: list[dict[str, Any]] = [
        {"event_type": "interaction.created", "interaction": head},
        {"event_type": "step.start", "index": 0, "step": {"type": "thought"}},
        {"event_type": "step.delta", "index": 0,
         "delta": {"type": "thought_signature", "signature": "c2ln"}},
        {"event_type": "step.stop", "index": 0},
        {"event_type": "step.start", "index": 1, "step": {"type": "model_output"}},
        *({"event_type": "step.delta", "index": 1, "delta": {"type": "text", "text": w}}
          for w in WORDS),
        {"event_type": "step.stop", "index": 1},
        {"event_type": "interaction.completed",
         "interaction": {"id": INTERACTION_ID, "status": "completed",
                         "usage": {"total_input_tokens": 5, "total_output_tokens": 5,
                                   "total_thought_tokens": 2}}},
    ]  # fmt: skip
    return [{**e, "event_id": f"evt_{n}"} for n, e in enumerate(events)]


class Server:
    """POST: the events up to ``cut`` then the connection drops (``cut=None``: all, ended
    properly); GET: the events after ``last_event_id``."""

    def __init__(self, cut: int | None) -> None:
        self.events = _events()
        self.cut = cut
        self.heads: list[str] = []

    async def __call__(self, stream: SocketStream) -> None:
        head, _ = await read_request(stream)
        line = head.split(b"\r\n", 1)[0].decode()
        self.heads.append(head.decode())
        method, target = line.split(" ")[:2]
        events = self.events
        if method == "GET":
            after = parse_qs(urlsplit(target).query)["last_event_id"][0]
            events = events[int(after.removeprefix("evt_")) + 1 :]
        elif self.cut is not None:
            events = events[: self.cut]
        await stream.send(SSE_HEAD)
        for event in events:
            await stream.send(chunk(sse([event])))
            await anyio.lowlevel.checkpoint()
        if method == "GET" or self.cut is None:
            await stream.send(b"0\r\n\r\n")


async def _complete(server: Server, **options: Any) -> lb.ChatResponse[None]:
    async with serve(server) as url:
        keys = {"gemini-interactions": {"api_key": "AIza-loop", "base_url": url}}
        async with lb.Client(providers=keys, retry=lb.RetryPolicy(initial_delay=0)) as client:
            return await client.complete(
                "gemini-interactions:gemini-3-flash-preview", "Hi", **options
            )


async def test_a_streamed_call_over_a_socket() -> None:
    server = Server(cut=None)
    response = await _complete(server)
    assert response.text == "".join(WORDS)
    assert response.usage == lb.Usage(input_tokens=5, output_tokens=7, reasoning_tokens=2)
    assert response.finish_reason == "stop"
    (head,) = server.heads
    assert head.startswith("POST /v1/interactions ") and "api-revision: 2026-05-20" in head


async def test_a_dropped_background_stream_is_resumed_from_its_last_event_id() -> None:
    server = Server(cut=7)
    response = await _complete(server, background=True)
    assert response.text == "".join(WORDS)  # nothing lost, nothing twice
    assert [h.split(" ")[0] for h in server.heads] == ["POST", "GET"]
    assert "last_event_id=evt_6" in server.heads[1].split("\r\n", 1)[0]
