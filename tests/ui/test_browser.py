"""The example chat app in a real browser: Debian's Chromium, driven by playwright-core
(tests/ui/node/browser.mjs), against the example's own back-end (examples/chat-app/server.py,
replaying its two recorded turns). The page shows the streamed text, the tool calls with their
arguments and results, and the final answer; the second turn sends the history back, and the
back-end receives the conversation the first turn made (its replayed request is the recorded
one byte for byte, and its ``ChatMessage``s equal the tool loop's own).

Skips, saying why, without Chromium, Node, the npm packages or the built page (``.ci/run``'s ui
block installs and builds them).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.testing import ReplayTransport, load_fixture
from tests.ui.node_clients import NODE_DIR

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "examples" / "chat-app"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def _load_conversation() -> Any:
    """The example's own prompt, tool and fixtures (examples/chat-app/conversation.py)."""
    spec = importlib.util.spec_from_file_location("chat_app_conversation", APP / "conversation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


conversation = _load_conversation()


def _missing() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install -y chromium)"
    if shutil.which("node") is None:
        return "node is not installed"
    if not (NODE_DIR / "node_modules" / "playwright-core").exists():
        return "playwright-core missing: run `npm ci` in tests/ui/node"
    if not (APP / "web" / "dist" / "index.html").exists():
        return "the page is not built: run `npm ci && npm run build` in examples/chat-app/web"
    return None


pytestmark = pytest.mark.skipif(_missing() is not None, reason=str(_missing()))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server(tmp_path: Path) -> Any:
    port, log = _free_port(), tmp_path / "turns.jsonl"
    env = {**os.environ, "PYTHONPATH": str(REPO), "CHAT_APP_LOG": str(log)}
    env.pop("CHAT_APP_BASE_URL", None)
    proc = subprocess.Popen(
        [sys.executable, "server.py", "--port", str(port)],
        cwd=APP,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 120  # a busy machine, not a hang
        while True:
            try:
                if httpx.get(url, timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
            assert time.monotonic() < deadline, "the back-end did not start in 120 s"
            time.sleep(0.2)
        yield url, log
    finally:
        proc.terminate()
        proc.wait(timeout=10)


async def _expected_turns() -> list[list[lb.ChatMessage]]:
    """Each turn's new messages, as the example's tool loop makes them from the recordings."""
    history: list[lb.ChatMessage] = []
    turns = []
    for text in conversation.PROMPTS:
        history.append(lb.ChatMessage.user(text))
        fixtures = [load_fixture(p) for p in conversation.turn_fixtures(history)]
        http = httpx.AsyncClient(transport=ReplayTransport(fixtures))
        config = {"llamacpp": fixtures[0].provider_config}
        async with lb.Client(http_client=http, providers=config) as client:
            loop = client.run(
                conversation.MODEL,
                conversation.prompt(history),
                tools=[conversation.get_weather],
                **conversation.OPTIONS,
            )
            async for _ in loop:
                pass
        turns.append(loop.new_messages)
        history.extend(loop.new_messages)
    return turns


def _shown(turn: list[lb.ChatMessage]) -> dict[str, Any]:
    calls = [c for m in turn for c in m.tool_calls]
    results = {r.tool_call_id: r.text for m in turn for r in m.tool_results}
    return {
        "texts": [m.text for m in turn if m.role == "assistant" and m.text],
        "tools": [
            {
                "state": "output-available",
                "input": orjson.dumps(c.arguments).decode(),
                "output": orjson.dumps(orjson.loads(results[c.id])).decode(),
            }
            for c in calls
        ],
    }


def test_two_turns_in_chromium(server: Any) -> None:
    url, log = server
    run = subprocess.run(
        ["node", "browser.mjs", url, *conversation.PROMPTS],
        cwd=NODE_DIR,
        capture_output=True,
        timeout=120,
        check=False,
        env={**os.environ, "CHROMIUM": CHROMIUM},
    )
    assert run.returncode == 0, run.stderr.decode(errors="replace")[-3000:]
    page = orjson.loads(run.stdout)
    assert page["errors"] == []
    expected = anyio.run(_expected_turns)
    assert len(page["turns"]) == 2
    for shown, turn in zip(page["turns"], expected, strict=True):
        assert shown["status"] == "ready" and shown["error"] == []
        assert {"texts": shown["texts"], "tools": shown["tools"]} == _shown(turn)
        assert shown["tools"], "the turn shows a tool call with its arguments and result"
    assert page["turns"][1]["users"] == conversation.PROMPTS
    # What the back-end read from the page's second request: the first turn, as the loop made it.
    received = [orjson.loads(line) for line in log.read_bytes().splitlines()]
    first = [lb.ChatMessage.user(conversation.PROMPTS[0]), *expected[0]]
    want = [*first, lb.ChatMessage.user(conversation.PROMPTS[1])]
    assert received[1] == [m.model_dump(mode="json", exclude_none=True) for m in want]
