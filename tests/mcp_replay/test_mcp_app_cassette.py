"""An app's MCP servers in its cassette (issue 44, item 5), run the way an app's suite runs it:
the cassette beside this file was recorded with ``pytest --llmbridge-record`` from the real
``npx -y @modelcontextprotocol/server-everything`` and a server written with the ``mcp``
package (``notes_server.py``), the model scripted (``app_model.py``). Replaying it starts no
server: PATH holds neither ``npx`` nor ``python``, and the app's tools, tool results and
listings come from ``mcp.json``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from tests.mcp_replay.app_model import AppModel

NOTES = str(Path(__file__).with_name("notes_server.py"))
CONFIG = {
    "mcpServers": {
        "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]},
        "notes": {"command": "python", "args": [NOTES]},
    }
}
QUESTION = [lb.ChatMessage.user("Echo hello, add 2 and 3, and tell me the notes server's time.")]


@pytest.fixture
def llmbridge_record_transport() -> AppModel:
    return AppModel(("echo", {"message": "hello"}), ("add", {"a": 2, "b": 3}), ("now", {}))


@pytest.fixture
def llmbridge_providers() -> dict[str, dict[str, str]]:
    return {"openai": {"api_key": "sk-recording-key"}}


@pytest.fixture
def no_servers(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """When replaying, PATH is an empty folder: no ``npx``, no ``python``."""
    if not request.config.getoption("llmbridge_record"):
        monkeypatch.setenv("PATH", str(tmp_path))
        assert shutil.which("npx") is None and shutil.which("python") is None


async def test_an_app_with_two_mcp_servers_replays_without_them(
    llmbridge_client: lb.Client, no_servers: None
) -> None:
    async with llmbridge_client as client, lb.connect_mcp_servers(CONFIG, fail_fast=True) as hub:
        loop = client.run("openai:gpt-4.1-mini", QUESTION, tools=[hub])
        async for _ in loop:
            pass
        resources = [r.uri for r in await hub.list_resources("notes")]
        prompts = sorted(p.name for p in await hub.list_prompts())
    answer = loop.messages[-1].text
    assert answer.startswith("Results: Echo: hello | 5 | ")
    assert float(answer.rpartition("| ")[2]) > 1.7e9  # the recorded clock, served again
    assert resources == ["notes://today"]
    assert "summarise" in prompts
