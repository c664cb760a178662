"""Record the chat app's two-turn conversation against a real OpenAI-compatible server.

    ../../../shared/tools/llama-server/serve --port 8391      # llama.cpp's server, a real model
    python record.py http://127.0.0.1:8391/v1

Each model call of each turn is saved as a fixture (``fixtures/turn<N>/step<M>``), keys
redacted: turn 1 calls the tool and then answers, turn 2 continues the same history. The tool
loop here is ``Client.run``'s own, with the back-end's prompt, tool and options
(``conversation.py``), so the replayed requests are the ones the back-end builds.
"""

from __future__ import annotations

import shutil
import sys
from typing import Any

import anyio
import httpx
from conversation import FIXTURES, MODEL, OPTIONS, PROMPTS, get_weather, prompt

import llmbridge as lb
from llmbridge.testing import RecordingTransport
from llmbridge.testing.fixtures import Fixture
from llmbridge.testing.record import replayable_config

TOOLS = [lb.ToolSpec.from_function(get_weather)]


async def record(base_url: str) -> None:
    shutil.rmtree(FIXTURES, ignore_errors=True)
    history: list[lb.ChatMessage] = []
    providers: dict[str, Any] = {"llamacpp": {"base_url": base_url}}
    for turn, text in enumerate(PROMPTS, start=1):
        history.append(lb.ChatMessage.user(text))
        recorder = RecordingTransport()
        async with httpx.AsyncClient(transport=recorder, timeout=120) as http:
            client = lb.Client(http_client=http, providers=providers)
            name = MODEL.partition(":")[2]
            loop = client.run(MODEL, prompt(history), tools=TOOLS, **OPTIONS)
            requests = []
            async for event in loop:
                if isinstance(event, lb.StreamStart):  # a model call begins: what it was sent
                    sent = list(loop.messages)
                    requests.append(client.build_request(name, sent, tools=TOOLS, **OPTIONS))
        history.extend(loop.new_messages)
        for step, recording in enumerate(recorder.recordings, start=1):
            path = FIXTURES / f"turn{turn}" / f"step{step}"
            body = b"".join(recording.chunks)
            Fixture(
                path=path,
                model=MODEL,
                request=requests[step - 1],
                provider_config=replayable_config(providers["llamacpp"]),
                http_request=recording.request,
                status=recording.status,
                headers=recording.headers,
                body=body,
                chunks=[len(c) for c in recording.chunks],
                events=None,
            ).save()
            print(f"recorded {path.relative_to(FIXTURES.parent)}: {len(body)} bytes")
        print(f"turn {turn}: {loop.stop_reason}, {loop.response.text if loop.response else ''!r}")


if __name__ == "__main__":
    anyio.run(record, sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8391/v1")
