"""The example chat app without a browser: ``example.json`` says what the recorded conversation
answers, the page has the selectors it names, and the back-end streams turn 1 (a tool call, its
result, the answer) from a ``useChat`` body, replaying its recordings; a malformed body is a 400."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import anyio
import httpx
import orjson

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "examples" / "chat-app"


def _load(name: str) -> Any:
    import sys

    sys.path.insert(0, str(APP))  # server.py imports its neighbour conversation.py
    try:
        spec = importlib.util.spec_from_file_location(f"chat_app_{name}", APP / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(APP))


def test_example_json_matches_the_recording_and_the_page() -> None:
    example = json.loads((APP / "example.json").read_text())
    assert example["prompts"] == _load("conversation").PROMPTS
    page = (APP / "web" / "src" / "App.jsx").read_text()
    assert example["input"] == "#prompt" and 'id="prompt"' in page
    assert example["submit"] == "#send" and 'id="send"' in page
    assert "$PORT" in example["start"] and example["url"] == "http://127.0.0.1:$PORT/"


async def _post(app: Any, body: Any) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://app") as http:
        return await http.post("/api/chat", json=body)


def test_the_back_end_streams_turn_one_from_its_recordings() -> None:
    server = _load("server")
    text = _load("conversation").PROMPTS[0]
    body = {"messages": [{"id": "u", "role": "user", "parts": [{"type": "text", "text": text}]}]}
    response = anyio.run(_post, server.app, body)
    assert response.status_code == 200
    assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
    datas = [line[6:] for line in response.text.split("\n") if line.startswith("data: ")]
    assert datas[-1] == "[DONE]"
    chunks = [orjson.loads(d) for d in datas[:-1]]
    kinds = [c["type"] for c in chunks]
    assert kinds.count("start-step") == 2  # the call, then the answer
    outputs = [c["output"] for c in chunks if c["type"] == "tool-output-available"]
    assert outputs and all(o["city"] == "Paris" for o in outputs)
    answer = "".join(c["delta"] for c in chunks if c["type"] == "text-delta")
    assert "Paris" in answer and "error" not in kinds


def test_a_malformed_body_is_a_400() -> None:
    server = _load("server")
    response = anyio.run(_post, server.app, {"messages": [{"role": "user"}]})
    assert response.status_code == 400 and "messages[0]" in response.json()["error"]
