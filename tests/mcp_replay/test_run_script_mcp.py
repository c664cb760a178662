"""``llmbridge run SCRIPT --replay DIR`` with a cassette that holds ``mcp.json`` (issue 44,
item 5): the script's model calls and its MCP servers are both served from the recording, with
no server on PATH; a script whose MCP call was never recorded fails naming it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from llmbridge.cli.run_script import run_script

CASSETTE = (
    Path(__file__).parent
    / "cassettes/test_mcp_app_cassette/test_an_app_with_two_mcp_servers_replays_without_them"
)
SCRIPT = """
import anyio
import llmbridge as lb
from tests.mcp_replay.test_mcp_app_cassette import CONFIG, QUESTION

async def main():
    async with lb.Client() as client, lb.connect_mcp_servers(CONFIG, fail_fast=True) as hub:
        loop = client.run("openai:gpt-4.1-mini", QUESTION, tools=[hub])
        async for _ in loop:
            pass
        {extra}
    print(loop.messages[-1].text)

anyio.run(main)
"""


@pytest.fixture
def offline_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for var in ("OPENAI_API_KEY", "CI"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert shutil.which("npx") is None
    return tmp_path


def test_a_script_replays_its_model_and_its_mcp_servers(
    offline_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = offline_path / "app.py"
    script.write_text(SCRIPT.replace("{extra}", "pass"))
    assert run_script(script, [CASSETTE], []) == 0
    assert capsys.readouterr().out.startswith("Results: Echo: hello | 5 | ")


def test_an_mcp_call_the_recording_lacks_fails_the_run(
    offline_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = offline_path / "app.py"
    extra = "await hub.connection('notes').session.call_tool('now', {'tz': 'UTC'})"
    script.write_text(SCRIPT.replace("{extra}", extra))
    assert run_script(script, [CASSETTE], []) == 1
    err = capsys.readouterr().err
    assert "MCP server 'notes': tools/call of tool 'now'" in err
    assert "params.arguments.tz: sent 'UTC', not recorded" in err
