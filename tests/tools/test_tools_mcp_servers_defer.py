"""Deferred MCP servers: ``defer_loading`` in an ``mcpServers`` entry and in
``connect_mcp_servers(defer_loading=...)`` make a server's tools deferred (a ``ToolSearch``
loads them), on real stdio servers; on asyncio, uvloop and trio."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from llmbridge.mcp import load_mcp_config
from tests.tools.mcp_helpers import APP_SERVER, FEATURE_LOOPS, HANG


def config(*, beta_deferred: bool) -> dict[str, Any]:
    return {
        "mcpServers": {
            "alpha": {"command": sys.executable, "args": [APP_SERVER, "alpha", "stdio"]},
            "beta": {
                "command": sys.executable,
                "args": [APP_SERVER, "beta", "stdio"],
                "defer_loading": beta_deferred,
            },
        }
    }


def deferred_servers(servers: Any) -> dict[str, set[bool]]:
    registry = servers.registry
    out: dict[str, set[bool]] = {}
    for spec in registry.specs():
        out.setdefault(registry.server_of(spec.name), set()).add(spec.defer_loading)
    return out


def test_the_config_entry_reads_defer_loading() -> None:
    configs = load_mcp_config(config(beta_deferred=True))
    assert not configs["alpha"].defer_loading and configs["beta"].defer_loading


@pytest.mark.anyio
@FEATURE_LOOPS
async def test_entry_and_argument_defer_a_servers_tools() -> None:
    with anyio.fail_after(HANG):
        async with lb.connect_mcp_servers(config(beta_deferred=True)) as servers:
            assert deferred_servers(servers) == {"alpha": {False}, "beta": {True}}
            spaces = {s.namespace for s in servers.registry.specs() if s.defer_loading}
            assert spaces == {"beta"}  # one namespace per deferred server (Responses groups)
            assert {s.namespace for s in servers.registry.specs() if not s.defer_loading} == {None}
            # the registry's search looks at the deferred tools only
            assert all(s.defer_loading for s in servers.registry.search("search whoami"))
        async with lb.connect_mcp_servers(
            config(beta_deferred=True), defer_loading=["alpha"]
        ) as servers:  # the argument wins over the entries
            assert deferred_servers(servers) == {"alpha": {True}, "beta": {False}}
        async with lb.connect_mcp_servers(config(beta_deferred=False), defer_loading=True) as s:
            assert deferred_servers(s) == {"alpha": {True}, "beta": {True}}
        with pytest.raises(lb.MCPConfigError, match="defer_loading= names server"):
            async with lb.connect_mcp_servers(config(beta_deferred=False), defer_loading=["x"]):
                pass
