"""Deferred MCP servers: ``defer_loading`` in an ``mcpServers`` entry and in
``connect_mcp_servers(defer_loading=...)`` make a server's tools deferred (a ``ToolSearch``
loads them): the config's stdio entries, and the same over two real HTTP servers, one of each
per module (deferral is the registry's, the same on every transport); on asyncio and trio."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from llmbridge.mcp import load_mcp_config
from tests.tools.mcp_helpers import APP_SERVER, FEATURE_LOOPS, HANG, http_app_server

STDIO = {
    "alpha": {"command": sys.executable, "args": [APP_SERVER, "alpha", "stdio"]},
    "beta": {"command": sys.executable, "args": [APP_SERVER, "beta", "stdio"]},
}


@pytest.fixture(scope="module")
def web() -> Iterator[dict[str, Any]]:
    """The app server as ``alpha`` and as ``beta`` over streamable HTTP: their entries."""
    with http_app_server("alpha") as (alpha, _), http_app_server("beta") as (beta, _):
        yield {"alpha": {"url": alpha}, "beta": {"url": beta}}


def config(*, beta_deferred: bool, entries: dict[str, Any] = STDIO) -> dict[str, Any]:
    beta = {**entries["beta"], "defer_loading": beta_deferred}
    return {"mcpServers": {"alpha": entries["alpha"], "beta": beta}}


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
async def test_entry_and_argument_defer_a_servers_tools(web: dict[str, Any]) -> None:
    with anyio.fail_after(HANG):
        async with lb.connect_mcp_servers(config(beta_deferred=True)) as servers:  # stdio
            assert deferred_servers(servers) == {"alpha": {False}, "beta": {True}}
            spaces = {s.namespace for s in servers.registry.specs() if s.defer_loading}
            assert spaces == {"beta"}  # one namespace per deferred server (Responses groups)
            assert {s.namespace for s in servers.registry.specs() if not s.defer_loading} == {None}
            # the registry's search looks at the deferred tools only
            assert all(s.defer_loading for s in servers.registry.search("search whoami"))
        async with lb.connect_mcp_servers(
            config(beta_deferred=True, entries=web), defer_loading=["alpha"]
        ) as servers:  # the argument wins over the entries
            assert deferred_servers(servers) == {"alpha": {True}, "beta": {False}}
        web_config = config(beta_deferred=False, entries=web)
        async with lb.connect_mcp_servers(web_config, defer_loading=True) as s:
            assert deferred_servers(s) == {"alpha": {True}, "beta": {True}}
        with pytest.raises(lb.MCPConfigError, match="defer_loading= names server"):
            async with lb.connect_mcp_servers(web_config, defer_loading=["x"]):
                pass
