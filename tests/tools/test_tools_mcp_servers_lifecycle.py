"""``connect_mcp_servers`` when a server dies or comes back badly, and views narrowed too far:
a call in flight on a server that exits ends at once (even if a child it left holds its stdout
open), a restart that cannot list its tools is stopped and reported, and narrowing a view to a
server outside it is an error. On asyncio, uvloop and trio (the name has ``mcp_servers``)."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

import llmbridge as lb
from llmbridge.tools import ToolRegistry
from tests.tools.mcp_helpers import HANG, alive

LIFECYCLE = str(Path(__file__).with_name("mcp_lifecycle_server.py"))


def _pids(path: Path) -> list[int]:
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _calling_pid(errors: list[BaseException]) -> Callable[[Any], Awaitable[None]]:
    """A task body calling the server's ``pid`` tool; the MCP error it ends with goes to
    ``errors``."""

    async def call(servers: Any) -> None:
        try:
            await servers.registry.acall("pid", {})
        except lb.MCPError as exc:
            errors.append(exc)

    return call


@pytest.mark.anyio
async def test_a_call_in_flight_ends_when_its_server_exits_though_a_child_holds_its_stdout(
    tmp_path: Path,
) -> None:
    pytest.importorskip("mcp")
    from llmbridge.mcp import MCPConnectionLostError

    state = tmp_path / "starts"
    config = {"life": {"command": sys.executable, "args": [LIFECYCLE, str(state)]}}
    try:
        with anyio.fail_after(90):
            async with lb.connect_mcp_servers(config) as servers:
                first = (await servers.registry.acall("pid", {})).content[0].text
                started = anyio.current_time()
                with anyio.move_on_after(30) as hung:
                    with pytest.raises(MCPConnectionLostError) as info:
                        await servers.registry.acall("orphan_and_die", {})
                took = anyio.current_time() - started
                assert not hung.cancelled_caught, (
                    "the call still hangs 30 s after its server exited"
                )
                assert took < 10  # (at once: room for a loaded machine, far from the hang)
                error = info.value
                assert error.server == "life" and error.exit_status == 1
                assert "'life'" in str(error) and "status 1" in str(error)
                assert "leaving a child behind" in str(error)  # the stderr tail, as at start-up
                # the next call starts the server again, as for any lost connection
                again = (await servers.registry.acall("pid", {})).content[0].text
                assert again != first and servers.servers["life"].starts == 2
    finally:
        for pid in _pids(Path(f"{state}.children")):  # never leave the orphan to other tests
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.anyio
async def test_a_server_that_exits_before_initialize_is_not_waited_for(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from llmbridge.mcp import MCPError, connect_stdio

    child = tmp_path / "child"  # a background job keeps the server's stdin and stdout open
    script = f"exec 3<&0; sleep 30 <&3 & echo $! > {child}; echo 'no config' >&2; exit 3"
    started = anyio.current_time()
    try:
        with anyio.fail_after(60), pytest.raises(MCPError) as info:
            async with connect_stdio("sh", ["-c", script], timeout=30, name="early"):
                pass
    finally:
        for pid in _pids(child):
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
    assert anyio.current_time() - started < 10  # not the 30 s of the initialize timeout
    assert "stopped before answering 'initialize'; it exited with status 3" in str(info.value)
    assert info.value.exit_status == 3 and info.value.stderr_tail == "no config"


@pytest.mark.anyio
async def test_a_restart_that_cannot_list_its_tools_is_stopped_and_reported(
    tmp_path: Path,
) -> None:
    pytest.importorskip("mcp")
    from llmbridge.mcp import MCPConnectionLostError

    state = tmp_path / "starts"
    config = {"flaky": {"command": sys.executable, "args": [LIFECYCLE, str(state), "2"]}}
    with anyio.fail_after(HANG):
        async with lb.connect_mcp_servers(config) as servers:
            flaky = servers.servers["flaky"]
            with pytest.raises(MCPConnectionLostError):
                await servers.registry.acall("die", {})
            with pytest.raises(lb.MCPError) as info:  # restarts it: start 2 fails tools/list
                await servers.registry.acall("pid", {})
            error = info.value
            second = _pids(state)[1]
            observed = {
                "the error says the restart failed": "restarting it failed" in str(error),
                "the error says why": "tool index is corrupt" in str(error),
                "the new process is gone": not alive(second),
                "servers.failures has it": servers.failures.get("flaky") is error,
                "it still looks connected": flaky.connection is not None,
            }
            assert observed == {
                "the error says the restart failed": True,
                "the error says why": True,
                "the new process is gone": True,
                "servers.failures has it": True,
                "it still looks connected": False,
            }
            assert error.server == "flaky"
            with pytest.raises(lb.MCPError, match="restarting it failed"):
                servers.connection("flaky")
            assert "pid" in servers.registry  # its tools stay: calling one tries again

            # the next call tries again: start 3 lists its tools, and the server is back
            third = (await servers.registry.acall("pid", {})).content[0].text
            assert int(third) == _pids(state)[2] and flaky.starts == 3
            assert "flaky" not in servers.failures
            assert servers.connection("flaky") is flaky.connection


class _Remote:
    def __init__(self, name: str, server: str) -> None:
        self.name, self.server, self.description = name, server, ""

    async def call(self, arguments: dict[str, Any]) -> str:
        return self.name


def test_narrowing_a_view_to_a_server_or_tool_outside_it_is_a_usage_error() -> None:
    full = ToolRegistry([_Remote("a_search", "a"), _Remote("b_search", "b")])
    full.declare_server("c")  # configured, no tools (e.g. failed to start)
    a_only = full.subset(servers=["a"])

    with pytest.raises(lb.UsageError) as info:
        a_only.subset(servers=["b"])  # was: an empty view, silently
    assert str(info.value) == "subset(): no server named 'b' in this view (servers: ['a'])"
    with pytest.raises(lb.UsageError, match=r"no server named 'c' in this view"):
        a_only.subset(servers=["c"])
    with pytest.raises(lb.UsageError) as info:
        a_only.subset(tools=["b_search"])
    assert str(info.value) == (
        "subset(): no tool named 'b_search' in this view (tools: ['a_search'])"
    )
    with pytest.raises(lb.UsageError) as info:
        full.subset(servers=["x", "a", "y"], tools=["typo"])
    assert str(info.value) == (
        "subset(): no servers named ['x', 'y'] here (servers: ['a', 'b', 'c']); "
        "no tool named 'typo' here (tools: ['a_search', 'b_search'])"
    )

    # what is in the view can be narrowed to, as before
    assert a_only.subset(servers=["a"]).names == ["a_search"]
    assert full.subset(servers=["c"]).subset(servers="c").names == []  # declared, no tools
    b_tool = full.subset(tools=["b_search"])  # a server with a tool in the view counts
    assert b_tool.subset(servers=["b"]).names == ["b_search"]
    everything = full.subset()  # a view of everything follows servers declared later
    full.declare_server("d")
    assert everything.subset(servers=["d"]).names == []
    assert everything.subset().subset(servers=["b"]).names == ["b_search"]


@pytest.mark.anyio
async def test_leaving_the_block_while_calls_wait_on_a_restart_does_not_hang(
    tmp_path: Path,
) -> None:
    """Two calls on a server that died: the first restarts it, the second waits for that
    restart. The block ends meanwhile: both calls fail (the servers were stopped), the
    block is left at once, and no process is started after it."""
    pytest.importorskip("mcp")
    from llmbridge.mcp import MCPConnectionLostError

    state = tmp_path / "starts"
    config = {"life": {"command": sys.executable, "args": [LIFECYCLE, str(state)]}}
    errors: list[BaseException] = []
    call = _calling_pid(errors)

    try:
        with anyio.fail_after(15):
            async with anyio.create_task_group() as calls:
                async with lb.connect_mcp_servers(config) as servers:
                    with pytest.raises(MCPConnectionLostError):
                        await servers.registry.acall("die", {})
                    calls.start_soon(call, servers)  # restarts the server...
                    calls.start_soon(call, servers)  # ...while this one waits for it
                    await anyio.sleep(0.05)
                left = anyio.current_time()
            assert anyio.current_time() - left < 5, "the calls outlived the block"
    finally:
        for pid in _pids(state):
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
    assert len(errors) == 2
    assert "was stopped" in str(errors[-1])
    assert not [pid for pid in _pids(state) if alive(pid)], "a server outlived the block"


@pytest.mark.anyio
async def test_calls_waiting_on_a_restart_that_fails_do_not_each_restart_it_again(
    tmp_path: Path,
) -> None:
    """Three calls at once on a server that died, whose restart fails: the server is
    restarted once, as for a restart that works, and every call gets that failure (not one
    more process, and one more start-up wait, per waiting call). A later call tries again."""
    pytest.importorskip("mcp")
    from llmbridge.mcp import MCPConnectionLostError

    state = tmp_path / "starts"
    config = {"flaky": {"command": sys.executable, "args": [LIFECYCLE, str(state), "2", "3", "4"]}}
    errors: list[BaseException] = []
    call = _calling_pid(errors)

    with anyio.fail_after(HANG):
        async with lb.connect_mcp_servers(config) as servers:
            with pytest.raises(MCPConnectionLostError):
                await servers.registry.acall("die", {})
            async with anyio.create_task_group() as calls:
                for _ in range(3):
                    calls.start_soon(call, servers)
            assert servers.servers["flaky"].starts == 2, "one restart for the calls waiting on it"
            assert len(errors) == 3
            assert all("restarting it failed" in str(e) for e in errors)
            assert all("tool index is corrupt (start 2)" in str(e) for e in errors)
            with pytest.raises(lb.MCPError, match=r"start 3\)"):  # a later call tries again
                await servers.registry.acall("pid", {})
            assert servers.servers["flaky"].starts == 3
