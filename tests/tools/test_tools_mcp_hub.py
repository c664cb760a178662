"""The hub interface: a server tells its hub that its tools changed through the public
``ServerHub.on_tools_changed`` (never a private method of the hub), the hub's tool list follows,
and ``MCPTool.connection`` is always an ``MCPConnection`` (the supervising server is
``MCPTool.mcp_server``): a unit test on fakes and one on real stdio servers."""

from __future__ import annotations

import sys
from types import SimpleNamespace
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

import mcp.types as types

import llmbridge as lb
from llmbridge.mcp import MCPConnection, MCPServer, MCPServers, MCPTool, load_mcp_config
from llmbridge.mcp.hub.options import HubOptions
from tests.tools.mcp_helpers import APP_SERVER, HANG


class Listing:
    """A fake connection whose tool list the test changes."""

    def __init__(self, *names: str) -> None:
        self.names = list(names)
        self.lost = False

    async def tool_definitions(self) -> list[Any]:
        return [types.Tool(name=n, input_schema={"type": "object"}) for n in self.names]


class RecordingHub:
    """A hub that implements ``ServerHub`` and nothing more: what a server may use."""

    def __init__(self) -> None:
        self.options = HubOptions()
        self.sampling_context = SimpleNamespace(grant="thisServer")
        self.failures: dict[str, Any] = {}
        self.closed = False
        self.changed: list[tuple[str, list[str]]] = []
        self.server: MCPServer | None = None

    @property
    def task_group(self) -> Any:
        raise AssertionError("not needed here")

    def on_tools_changed(self, server: str) -> None:
        assert self.server is not None
        self.changed.append((server, [str(d.name) for d in self.server.definitions]))


@pytest.mark.anyio
async def test_a_server_tells_its_hub_through_on_tools_changed() -> None:
    cfg = load_mcp_config({"s": {"command": "x"}})["s"]
    hub = RecordingHub()
    server = MCPServer("s", cfg, hub)
    hub.server = server
    listing = Listing("a")
    server.connection = listing  # type: ignore[assignment]
    await server._relist()  # what tools/list_changed runs (the refresh loop's job)
    listing.names = ["a", "b"]
    await server._relist()
    assert hub.changed == [("s", ["a"]), ("s", ["a", "b"])]


def test_the_hubs_tool_list_follows_on_tools_changed() -> None:
    servers = MCPServers(load_mcp_config({"mcpServers": {"s": {"command": "x"}}}))
    server = servers.servers["s"]
    server._latest = MCPConnection(SimpleNamespace(), where="fake", name="s")
    server.definitions = [types.Tool(name="a", input_schema={"type": "object"})]
    servers.on_tools_changed("s")
    assert servers.registry.names == ["a"]
    server.definitions.append(types.Tool(name="b", input_schema={"type": "object"}))
    servers.on_tools_changed("s")
    assert sorted(servers.registry.names) == ["a", "b"]
    server.definitions = [server.definitions[1]]
    servers.on_tools_changed("s")
    assert servers.registry.names == ["b"]
    with pytest.raises(lb.MCPError, match="no MCP server named 'nope'"):
        servers.on_tools_changed("nope")


def _tools(servers: Any) -> list[MCPTool]:
    entries = servers.registry._entries
    return [entries[name].target for name in servers.registry.names]


@pytest.mark.anyio
@pytest.mark.loops
async def test_mcp_tool_connection_is_always_a_connection() -> None:
    config = {"alpha": {"command": sys.executable, "args": [APP_SERVER, "alpha", "stdio"]}}
    with anyio.fail_after(HANG):
        async with lb.connect_mcp_servers({"mcpServers": config}) as servers:
            tools = _tools(servers)
            assert tools and all(isinstance(t, MCPTool) for t in tools)
            for tool in tools:
                assert isinstance(tool.connection, MCPConnection)
                assert tool.connection is servers.connection("alpha")
                assert tool.mcp_server is servers.servers["alpha"]
        from llmbridge.mcp import connect_stdio

        async with connect_stdio(sys.executable, [APP_SERVER, "alpha", "stdio"]) as conn:
            for tool in await conn.list_tools():
                assert tool.connection is conn and tool.mcp_server is None
