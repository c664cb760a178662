"""The chat app's back-end: Starlette serving the built page and ``POST /api/chat``, which reads
``useChat``'s body into ``ChatMessage``s, runs the tool loop (``Client.run``) and streams it back
as the AI SDK UI message stream.

    python server.py --port 8000                 # replays the recorded conversation (no key)
    CHAT_APP_BASE_URL=http://127.0.0.1:8391/v1 python server.py --port 8000   # a live server

With no ``CHAT_APP_BASE_URL`` each turn replays its recorded model calls (``fixtures/``,
``conversation.turn_fixtures``); a replayed request must be the recorded one byte for byte, so
a history the page sends back wrong fails loudly. ``CHAT_APP_LOG=file`` appends each turn's
``ChatMessage``s to ``file`` (one JSON line a turn) for tests.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import orjson
from conversation import HERE, MODEL, OPTIONS, get_weather, prompt, turn_fixtures
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import llmbridge as lb
from llmbridge.testing import ReplayTransport, load_fixture
from llmbridge.ui import ai_sdk
from llmbridge.ui.starlette import ai_sdk_response

BASE_URL = os.environ.get("CHAT_APP_BASE_URL")
LOG = os.environ.get("CHAT_APP_LOG")


def _client(messages: list[lb.ChatMessage]) -> lb.Client:
    if BASE_URL:
        return lb.Client(providers={"llamacpp": {"base_url": BASE_URL}})
    fixtures = [load_fixture(path) for path in turn_fixtures(messages)]
    if not fixtures:
        raise lb.UsageError("the recorded conversation has two turns: restart to replay again")
    return lb.Client(
        http_client=httpx.AsyncClient(transport=ReplayTransport(fixtures)),
        providers={"llamacpp": fixtures[0].provider_config},  # the recorded base URL
    )


async def _answer(client: lb.Client, messages: list[lb.ChatMessage]) -> AsyncIterator[Any]:
    async with client:
        loop = client.run(MODEL, prompt(messages), tools=[get_weather], **OPTIONS)
        try:
            async for event in loop:
                yield event
        finally:
            await loop.aclose()


async def chat(request: Request) -> Response:
    try:
        messages = ai_sdk.to_messages(await request.json())
        client = _client(messages)
    except (lb.UsageError, ValueError) as exc:
        return JSONResponse({"error": str(exc)}, status_code=400)
    if LOG:
        line = [m.model_dump(mode="json", exclude_none=True) for m in messages]
        async with await anyio.open_file(LOG, "ab") as log:
            await log.write(orjson.dumps(line) + b"\n")
    return ai_sdk_response(_answer(client, messages))


app = Starlette(
    routes=[
        Route("/api/chat", chat, methods=["POST"]),
        Mount("/", StaticFiles(directory=HERE / "web" / "dist", html=True, check_dir=False)),
    ]
)


if __name__ == "__main__":
    import uvicorn

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8000)
    uvicorn.run(app, host="127.0.0.1", port=parser.parse_args().port, log_level="warning")
