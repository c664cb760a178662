"""MCP servers that fail: one typed error at the boundary, naming the server, never a hang."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import httpx
import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from llmbridge.mcp import MCPError, connect_stdio
from tests.tools.mcp_helpers import HANG

pytestmark = pytest.mark.anyio

SERVER = str(Path(__file__).with_name("mcp_server_fixture.py"))


async def test_a_server_that_exits_on_start_names_command_and_stderr() -> None:
    code = "import sys; print('config missing: DB_URL', file=sys.stderr); sys.exit(3)"
    with anyio.fail_after(20):
        with pytest.raises(MCPError) as info:
            async with connect_stdio(sys.executable, ["-c", code], timeout=10):
                pass
    message = str(info.value)
    assert "-c" in message and "config missing: DB_URL" in message
    assert isinstance(info.value, lb.LLMBridgeError)


@pytest.mark.parametrize(
    "code",
    [
        "import time; time.sleep(60)",
        "print('hello, not JSON', flush=True); import time; time.sleep(60)",
    ],
    ids=["silent", "not-json"],
)
async def test_a_server_that_never_answers_times_out(code: str) -> None:
    start = time.monotonic()
    with anyio.fail_after(20):
        with pytest.raises(MCPError, match="did not answer 'initialize' within 1 s"):
            async with connect_stdio(sys.executable, ["-c", code], timeout=1):
                pass
    assert time.monotonic() - start < 10


async def test_errors_inside_the_block_leave_as_themselves() -> None:
    with anyio.fail_after(HANG):
        with pytest.raises(lb.ToolArgumentsError, match="nope"):
            async with connect_stdio(sys.executable, [SERVER, "stdio"]) as connection:
                assert await connection.list_tools()
                raise lb.ToolArgumentsError("nope")
        with pytest.raises(KeyError):
            async with connect_stdio(sys.executable, [SERVER, "stdio"]):
                raise KeyError("mine")


@pytest.mark.parametrize(
    "make",
    [
        lambda: FileNotFoundError(2, "No such file", "notes.txt"),
        lambda: httpx.ConnectError("app's own call"),
    ],
    ids=["oserror", "httpx"],
)
async def test_the_apps_own_io_errors_inside_the_block_leave_as_themselves(
    make: Callable[[], Exception],
) -> None:
    """Errors of the kinds the SDK also raises (OSError, httpx): the app's own, raised in the
    block (a file it reads, a request it makes), are not taken for the server's failure."""
    error = make()
    with anyio.fail_after(HANG):
        with pytest.raises(type(error)) as info:
            async with connect_stdio(sys.executable, [SERVER, "stdio"]) as connection:
                assert await connection.list_tools()
                raise error
    assert info.value is error


async def test_stderr_goes_where_the_app_says(tmp_path: Path) -> None:
    code = "import sys; print('to the app log', file=sys.stderr); sys.exit(1)"
    with (tmp_path / "server.log").open("w+") as log:
        with anyio.fail_after(20), pytest.raises(MCPError):
            async with connect_stdio(sys.executable, ["-c", code], stderr=log, timeout=10):
                pass
    assert "to the app log" in (tmp_path / "server.log").read_text()
