"""A remote MCP server (streamable HTTP) recorded and replayed (issue 44, item 5): the seam is
the session's streams, so HTTP sessions replay like stdio ones, with the server stopped and no
HTTP request made."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from llmbridge.testing import record_mcp, replay_mcp
from tests.tools.mcp_helpers import first_text, http_app_server

pytestmark = [pytest.mark.anyio, pytest.mark.io]


async def test_an_http_server_replays_once_it_is_gone(tmp_path: Path) -> None:
    with http_app_server("alpha") as (url, _):
        config = {"mcpServers": {"alpha": {"url": url}}}
        with record_mcp() as recorder:
            async with lb.connect_mcp_servers(config, fail_fast=True) as hub:
                live = await hub.connection("alpha").call_tool("search", {"query": "llmbridge"})
        recorder.save(tmp_path)
    with replay_mcp(tmp_path) as replay:  # the server has stopped: nothing listens at url
        async with lb.connect_mcp_servers(config, fail_fast=True) as hub:
            names = [spec.name for spec in hub.registry.specs()]
            again = await hub.connection("alpha").call_tool("search", {"query": "llmbridge"})
    assert first_text(again) == first_text(live) == "alpha found llmbridge"
    assert "search" in names and not replay.problems
