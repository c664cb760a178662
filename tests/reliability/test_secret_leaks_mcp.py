"""Issue 34, item 10: an MCP server that prints an expanded ``${VAR}`` secret to stderr must not
put it into ``str(err)``, ``repr(err)``, ``err.stderr_tail`` or ``servers.failures``: at start-up,
mid-session (the process dies during a call) and with ``connect_stdio`` called directly. Real
server processes, on asyncio, uvloop and trio."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from llmbridge.mcp import MCPError, connect_stdio
from tests.tools.mcp_helpers import HANG

pytestmark = pytest.mark.anyio

TOKEN = "tok-9f8e7d6c5b4a39281706"
PATH_SECRET = "pw-ab12cd34ef56"
LIFECYCLE = str(Path(__file__).parents[1] / "tools" / "mcp_lifecycle_server.py")

PRINTS_AND_EXITS = (
    "import os, sys; "
    "print('starting with token', os.environ['API_TOKEN'], file=sys.stderr); "
    "print('and the db at', sys.argv[1], file=sys.stderr); sys.exit(3)"
)


def _shown(error: BaseException) -> str:
    return " ".join([str(error), repr(error), repr(error.args), str(error.stderr_tail)])  # type: ignore[attr-defined]


def _assert_clean(error: BaseException) -> None:
    shown = _shown(error)
    assert TOKEN not in shown and PATH_SECRET not in shown, shown
    assert "<redacted>" in str(error)  # the line is still there, the secret is not


async def test_a_server_printing_its_expanded_token_at_start_up() -> None:
    config = {
        "printer": {
            "command": sys.executable,
            "args": ["-c", PRINTS_AND_EXITS, "postgres://u:${DB_PASSWORD}@db/x"],
            "env": {"API_TOKEN": "${env:MY_TOKEN}"},
        }
    }
    environ = {"MY_TOKEN": TOKEN, "DB_PASSWORD": PATH_SECRET}
    with anyio.fail_after(20):
        async with lb.connect_mcp_servers(config, environ=environ, startup_timeout=10) as servers:
            error = servers.failures["printer"]
    assert error.exit_status == 3
    assert "starting with token" in str(error.stderr_tail)
    _assert_clean(error)
    assert TOKEN not in repr(servers.failures) and PATH_SECRET not in repr(servers.failures)
    with pytest.raises(MCPError) as info:
        servers.connection("printer")
    _assert_clean(info.value)


async def test_fail_fast_raises_the_scrubbed_error() -> None:
    config = {
        "printer": {
            "command": sys.executable,
            "args": ["-c", PRINTS_AND_EXITS, "${DB_PASSWORD}"],
            "env": {"API_TOKEN": "${MY_TOKEN}"},
        }
    }
    environ = {"MY_TOKEN": TOKEN, "DB_PASSWORD": PATH_SECRET}
    with anyio.fail_after(20), pytest.raises(MCPError) as info:
        async with lb.connect_mcp_servers(config, environ=environ, fail_fast=True):
            pass
    _assert_clean(info.value)


async def test_a_server_that_dies_mid_session_after_printing_its_token(tmp_path: Path) -> None:
    from llmbridge.mcp import MCPConnectionLostError

    state = tmp_path / "starts"
    # the lifecycle server's 'die' tool writes to stderr, then exits; the token goes first
    wrapper = (
        "import os, runpy, sys; print('token', os.environ['SERVICE_KEY'], file=sys.stderr, "
        "flush=True); sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    config = {
        "life": {
            "command": sys.executable,
            "args": ["-c", wrapper, LIFECYCLE, str(state)],
            "env": {"SERVICE_KEY": "${K}"},
        }
    }
    with anyio.fail_after(HANG):
        async with lb.connect_mcp_servers(config, environ={"K": TOKEN}) as servers:
            assert not servers.failures, servers.failures
            with pytest.raises(MCPConnectionLostError) as info:
                await servers.registry.acall("die", {})
    assert "dying on request" in str(info.value)
    _assert_clean(info.value)


async def test_connect_stdio_scrubs_secret_named_env_values_and_given_secrets() -> None:
    with anyio.fail_after(20), pytest.raises(MCPError) as info:
        async with connect_stdio(
            sys.executable,
            ["-c", PRINTS_AND_EXITS, PATH_SECRET],
            env={"API_TOKEN": TOKEN},
            secrets=[PATH_SECRET],
            timeout=10,
        ):
            pass
    assert info.value.exit_status == 3
    _assert_clean(info.value)


def test_the_config_knows_what_its_variables_became() -> None:
    from llmbridge.mcp import load_mcp_config

    entry = load_mcp_config(
        {"s": {"url": "https://h/mcp?k=${A}", "headers": {"X": "${B:-fallback-value}"}}},
        environ={"A": TOKEN},
    )["s"]
    assert entry.expanded_values == {TOKEN, "fallback-value"}
    assert TOKEN not in repr(entry) and TOKEN not in entry.where
