"""``connect_mcp_servers`` edge cases found in review: one server's unusable tool."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import anyio
import pytest

import llmbridge as lb
from tests.tools.mcp_helpers import APP_SERVER

BAD_SCHEMA = str(Path(__file__).with_name("mcp_bad_schema_server.py"))


@pytest.mark.anyio
async def test_a_tool_no_provider_accepts_is_left_out_not_fatal(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pytest.importorskip("mcp")
    config = {
        "bad": {"command": sys.executable, "args": [BAD_SCHEMA]},
        "alpha": {"command": sys.executable, "args": [APP_SERVER, "alpha", "stdio"]},
    }
    with caplog.at_level(logging.WARNING, logger="llmbridge.mcp"), anyio.fail_after(30):
        async with lb.connect_mcp_servers(config) as servers:
            assert servers.failures == {}
            assert servers.registry.server_of("ok") == "bad" and "huge" not in servers.registry
            assert "whoami" in servers.registry  # the other server is untouched
            assert (await servers.registry.acall("ok", {})).content[0].text == "ok"
    assert "'huge' left out" in caplog.text
