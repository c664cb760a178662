"""What a replay says when the app no longer matches its cassette (issue 44, item 5): a tool
list that changed names the tool, an MCP call nobody recorded names the server, the tool and the
field, a server the cassette does not know fails at connect; no server is started meanwhile."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from llmbridge.mcp import MCPError, MCPToolError
from llmbridge.testing import ReplayMismatch, ReplayTransport, record_mcp, replay_mcp
from llmbridge.testing.pytest_plugin import DUMMY_KEY, _steps
from tests.mcp_replay.test_mcp_app_cassette import CONFIG, QUESTION

pytestmark = [pytest.mark.anyio, pytest.mark.io]  # the replayed streams on every loop
CASSETTE = (
    Path(__file__).parent
    / "cassettes/test_mcp_app_cassette/test_an_app_with_two_mcp_servers_replays_without_them"
)
NOTES = str(Path(__file__).with_name("notes_server.py"))


@pytest.fixture(autouse=True)
def no_servers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert shutil.which("npx") is None


def _client() -> lb.Client:
    import httpx

    transport = ReplayTransport(_steps(CASSETTE), strict=False)
    return lb.Client(
        http_client=httpx.AsyncClient(transport=transport),
        providers={"openai": {"api_key": DUMMY_KEY}},
    )


@lb.tool
def get_time() -> str:
    """The local clock."""
    return "noon"


async def test_a_tool_the_app_added_is_named_in_the_mismatch() -> None:
    with replay_mcp(CASSETTE):
        async with _client() as client, lb.connect_mcp_servers(CONFIG, fail_fast=True) as hub:
            loop = client.run("openai:gpt-4.1-mini", QUESTION, tools=[hub, get_time])
            with pytest.raises(ReplayMismatch) as info:
                async for _ in loop:
                    pass
    text = str(info.value)
    assert "tools: tool 'get_time' sent, not recorded" in text.splitlines()


async def test_a_tool_the_app_no_longer_offers_is_named_too() -> None:
    with replay_mcp(CASSETTE):
        async with (
            _client() as client,
            lb.connect_mcp_servers(CONFIG, fail_fast=True) as hub,
        ):
            loop = client.run("openai:gpt-4.1-mini", QUESTION, tools=[hub.subset(["everything"])])
            with pytest.raises(ReplayMismatch) as info:
                async for _ in loop:
                    pass
    assert "tools: tool 'add' recorded, not sent" in str(info.value).splitlines()


async def test_an_mcp_call_nobody_recorded_names_the_tool_and_the_field() -> None:
    with replay_mcp(CASSETTE) as replay:
        async with lb.connect_mcp_servers(CONFIG, fail_fast=True) as hub:
            notes = hub.connection("notes")
            with pytest.raises(MCPToolError, match="llmbridge replay: .* 'add' .*b: sent 4"):
                await notes.call_tool("add", {"a": 2, "b": 4})
            with pytest.raises(MCPToolError, match="'multiply', which the recording never"):
                await notes.call_tool("multiply", {"a": 2})
            same = await notes.call_tool("add", {"a": 2, "b": 3})
    assert same.data == {"result": 5}
    with pytest.raises(ReplayMismatch) as info:
        replay.assert_matched()
    first, second = str(info.value).splitlines()[1:]
    assert first == (
        "MCP server 'notes': tools/call of tool 'add' with params the recording does not "
        "hold: params.arguments.b: sent 4, recorded 3"
    )
    assert "of tool 'multiply', which the recording never called" in second
    assert "tools it listed: add, now" in second


async def test_match_ignore_lets_mcp_params_differ() -> None:
    with replay_mcp(CASSETTE, match_ignore=["arguments.b"]) as replay:
        async with lb.connect_mcp_servers(CONFIG, fail_fast=True) as hub:
            result = await hub.connection("notes").call_tool("add", {"a": 2, "b": 40})
    assert result.data == {"result": 5} and not replay.problems


async def test_a_server_the_cassette_does_not_know_fails_at_connect() -> None:
    config = {"mcpServers": {"weather": {"command": "npx", "args": ["weather-server"]}}}
    with replay_mcp(CASSETTE), pytest.raises(MCPError) as info:
        async with lb.connect_mcp_servers(config, fail_fast=True):
            pass
    assert "no MCP traffic recorded for server 'weather'" in str(info.value)
    assert "'everything', 'notes'" in str(info.value)


async def test_record_mcp_then_replay_mcp_around_any_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.undo()  # recording starts the real server
    config = {"mcpServers": {"notes": {"command": sys.executable, "args": [NOTES],
                                       "env": {"NOTES_TOKEN": "tok-secret-123"}}}}  # fmt: skip
    with record_mcp() as recorder:
        async with lb.connect_mcp_servers(config, fail_fast=True) as hub:
            live = await hub.connection("notes").call_tool("now", {})
    recorder.save(tmp_path)
    assert "tok-secret-123" not in (tmp_path / "mcp.json").read_text()
    config["mcpServers"]["notes"]["command"] = "/no/such/python"
    with replay_mcp(tmp_path) as replay:
        async with lb.connect_mcp_servers(config, fail_fast=True) as hub:
            again = await hub.connection("notes").call_tool("now", {})
    assert again.content == live.content and not replay.problems
