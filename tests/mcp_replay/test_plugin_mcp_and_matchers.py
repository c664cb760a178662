"""The pytest plug-in, run as an app's suite runs it (issue 44, item 5): ``--llmbridge-record``
records the app's MCP server into the cassette and the next run replays it with no server on
PATH; ``@pytest.mark.llmbridge(match_ignore=...)`` lets named request fields differ, and
without it the failure names the field."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import llmbridge.mcp.hub.servers  # noqa: F401  (before pytester's runs, which then share it)
from tests.pytester_support import passed, plugin_args

pytest_plugins = ["pytester"]
NOTES = str(Path(__file__).with_name("notes_server.py"))

CONFTEST = f"""
import sys
import pytest
sys.path.insert(0, {str(Path(__file__).parents[2])!r})
from tests.mcp_replay.app_model import AppModel

@pytest.fixture
def llmbridge_record_transport():
    return AppModel(("add", {{"a": 20, "b": 22}}))

@pytest.fixture
def llmbridge_providers():
    return {{"openai": {{"api_key": "sk-real-secret-key"}}}}
"""

APP = f"""
import time
import llmbridge as lb
import pytest

CONFIG = {{"mcpServers": {{"notes": {{"command": "python", "args": [{NOTES!r}]}}}}}}

{{marker}}
async def test_app(llmbridge_client):
    system = lb.ChatMessage.system(f"The time is {{time.time()}}.")
    async with llmbridge_client as client, lb.connect_mcp_servers(CONFIG, fail_fast=True) as hub:
        loop = client.run("openai:gpt-4.1-mini", [system, lb.ChatMessage.user("Add")], tools=[hub])
        async for _ in loop:
            pass
    assert loop.messages[-1].text == "Results: 42"
"""
IGNORE_TIME = '@pytest.mark.llmbridge(match_ignore=["messages.0.content"])'


@pytest.fixture
def app(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    for var in ("OPENAI_API_KEY", "CI"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))  # python, for recording
    pytester.makeini("[pytest]\nanyio_mode = strict\n")
    return pytester


def test_record_an_mcp_app_then_replay_it_with_no_server_and_match_ignore(
    app: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    app.makeconftest(CONFTEST)
    app.makepyfile(test_app=APP.replace("{marker}", IGNORE_TIME))
    passed(app.runpytest(*plugin_args(), "--llmbridge-record"))
    cassette = app.path / "cassettes" / "test_app" / "test_app"
    traffic = json.loads((cassette / "mcp.json").read_text())
    calls = [e for e in traffic["servers"]["notes"] if e["method"] == "tools/call"]
    assert [c["params"] for c in calls] == [{"name": "add", "arguments": {"a": 20, "b": 22}}]
    assert "sk-real-secret-key" not in "".join(p.read_text() for p in cassette.rglob("*.json"))
    (app.path / "conftest.py").unlink()  # the replay needs neither key, model nor server
    monkeypatch.setenv("PATH", str(tmp_path))
    passed(app.runpytest(*plugin_args()))
    app.makepyfile(test_app=APP.replace("{marker}", ""))  # the time is a field that differs
    result = app.runpytest(*plugin_args())
    assert result.parseoutcomes().get("passed", 0) == 0
    result.stdout.fnmatch_lines(["*body differs:*", "*messages.0.content: sent 'The time is *"])
