"""MCP round trip against a small local server the test starts itself (stdio and HTTP)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")
pytest.importorskip("mcp.server.lowlevel")

from llmbridge.events import Finish, ToolCallEnd, ToolCallStart
from llmbridge.mcp import MCPToolError, connect_http, connect_stdio
from llmbridge.tools import ToolRegistry, ToolResult, run_tool_loop
from llmbridge.tools.results import ToolOutput
from llmbridge.types import ChatMessage, ImagePart, TextPart
from tests.tools.mcp_helpers import http_server

SERVER = str(Path(__file__).with_name("mcp_server_fixture.py"))


async def check_round_trip(connection: Any) -> None:
    tools = await connection.list_tools()
    assert [t.name for t in tools] == ["add", "fail", "pixel"]  # three pages, all followed
    registry = ToolRegistry(tools)
    assert registry.describe()["add"] == {
        "description": "Add two numbers.",
        "input_schema": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    }
    out = await registry.acall("add", {"a": 2, "b": 3.5})
    assert out == ToolOutput([TextPart(text="5.5")], data={"sum": 5.5})
    with pytest.raises(MCPToolError, match="failed: because"):
        await registry.acall("fail", {"why": "because"})
    image = await registry.acall("pixel", {})
    assert image.content == [ImagePart(data=b"\x89PNG\r\n\x1a\nfake", media_type="image/png")]

    # through the tool loop: results (and the server's error) become tool messages
    turns = [
        [
            ToolCallStart(id="c1", name="add", index=0),
            ToolCallEnd(id="c1", index=0, name="add", arguments={"a": 1, "b": 1}, raw_arguments=""),
            ToolCallStart(id="c2", name="fail", index=1),
            ToolCallEnd(id="c2", index=1, name="fail", arguments={}, raw_arguments=""),
            Finish(reason="tool_calls"),
        ],
        [Finish(reason="stop")],
    ]

    async def model(messages: list[ChatMessage]) -> Any:
        for event in turns.pop(0):
            yield event

    events = [e async for e in run_tool_loop(model, [], registry=registry, max_steps=2)]
    results = [e for e in events if isinstance(e, ToolResult)]
    assert [(r.id, r.is_error, r.message.tool_results[0].text) for r in results] == [
        ("c1", False, "2"),
        ("c2", True, "failed: no reason"),
    ]


@pytest.mark.anyio
async def test_stdio_round_trip() -> None:
    async with connect_stdio(sys.executable, [SERVER, "stdio"]) as connection:
        await check_round_trip(connection)


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with http_server(SERVER) as (url, _pid):
        yield url


@pytest.mark.anyio
async def test_http_round_trip(http_url: str) -> None:
    async with connect_http(http_url, headers={"X-Test": "1"}) as connection:
        await check_round_trip(connection)


def test_missing_extra_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import llmbridge as lb
    from llmbridge.mcp.connection import connection as mcp_module

    monkeypatch.setitem(sys.modules, "mcp", None)
    with pytest.raises(lb.ConfigurationError, match=r"pip install 'llmbridge\[mcp\]'"):
        mcp_module._import_mcp()
