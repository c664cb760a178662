"""Issue 34, item 18: processes an MCP server started that left its process group (``setsid``,
a double-fork daemon, one with an empty environment) do not outlive the server: not after a
normal exit of the block, an error raised in it, a cancellation, nor a server that crashed
after starting a daemon. A real stdio server written with the ``mcp`` package, on asyncio,
uvloop and trio (Linux: ``/proc``)."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from llmbridge.mcp import connect_stdio
from tests.tools.mcp_helpers import HANG, alive

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)"),
]

DAEMONS = str(Path(__file__).parents[1] / "tools" / "mcp_daemon_server.py")


def _pids(state: Path) -> list[int]:
    return [int(p) for p in state.read_text().split()] if state.exists() else []


@pytest.fixture
def state(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "pids"
    try:
        yield path
    finally:
        for pid in _pids(path):  # never leave one to the other tests (before the fix)
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def _config(state: Path) -> dict[str, object]:
    return {"d": {"command": sys.executable, "args": [DAEMONS, str(state)]}}


async def _spawn_all(servers: lb.MCPServers) -> None:
    for tool in ("setsid", "bare_setsid", "daemon"):
        await servers.registry.acall(tool, {})


def _assert_all_gone(state: Path) -> None:
    pids = _pids(state)
    assert len(pids) >= 3
    deadline = time.monotonic() + 2  # SIGKILL is sent at once; the kernel ends them promptly
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.02)
    assert [p for p in pids if alive(p)] == [], "processes the server started outlived it"


async def test_a_normal_exit_stops_every_descendant(state: Path) -> None:
    with anyio.fail_after(HANG):
        async with lb.connect_mcp_servers(_config(state)) as servers:
            await _spawn_all(servers)
            assert all(alive(p) for p in _pids(state))
    _assert_all_gone(state)


async def test_an_error_in_the_block_stops_every_descendant(state: Path) -> None:
    class Boom(Exception):
        pass

    with anyio.fail_after(HANG), pytest.raises(Boom):
        async with lb.connect_mcp_servers(_config(state)) as servers:
            await _spawn_all(servers)
            raise Boom
    _assert_all_gone(state)


async def test_a_cancellation_stops_every_descendant(state: Path) -> None:
    with anyio.fail_after(HANG):
        with anyio.CancelScope() as scope:
            async with lb.connect_mcp_servers(_config(state)) as servers:
                await _spawn_all(servers)
                scope.cancel()
                await anyio.sleep(10)
        assert scope.cancelled_caught
    _assert_all_gone(state)


async def test_a_daemon_of_a_server_that_crashed_is_stopped(state: Path) -> None:
    with anyio.fail_after(HANG):
        async with lb.connect_mcp_servers(_config(state)) as servers:
            with pytest.raises(lb.MCPError):
                await servers.registry.acall("daemon_then_die", {})
            (daemon,) = _pids(state)
            await servers.registry.acall("setsid", {})  # restarted: the old one has ended
            assert not alive(daemon), "the crashed server's daemon outlived its incarnation"
            await servers.registry.acall("bare_setsid", {})
    _assert_all_gone(state)


async def test_connect_stdio_stops_every_descendant(state: Path) -> None:
    with anyio.fail_after(HANG):
        async with connect_stdio(sys.executable, [DAEMONS, str(state)], timeout=20) as conn:
            for tool in ("setsid", "bare_setsid", "daemon"):
                await conn.call_tool(tool, {})
    _assert_all_gone(state)
