"""An MCP server for the restart tests: ``python mcp_lifecycle_server.py STATE [FAIL_LIST...]``.

Written with the SDK's high-level ``MCPServer`` (mcp 2.x), over stdio. Each start appends its
pid to the file STATE (so line N is the pid of the Nth start); the starts whose numbers are in
FAIL_LIST answer ``tools/list`` with an error. Tools: ``pid`` (this process's pid), ``die``
(exits with status 7) and ``orphan_and_die`` (starts a child whose stdout is the pipe to the
client, so that pipe stays open, writes the child's pid to STATE.children, and exits with
status 1: as a wrapper script whose background job inherited its stdout would).
"""

from __future__ import annotations

try:  # first: a warm start when the suite runs one (mcp_zygote.py); else a cold one
    import mcp_zygote  # noqa: F401
except ImportError:  # not run as ``python SERVER.py``
    pass

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer

STATE = Path(sys.argv[1])
FAIL_LIST = {int(n) for n in sys.argv[2:]}
with STATE.open("a") as state:
    state.write(f"{os.getpid()}\n")
START = len(STATE.read_text().split())
WIRE = os.dup(1)
"""The pipe to the client (the SDK moves it off fd 1, where children would inherit it)."""


class Lifecycle(MCPServer):
    async def list_tools(self) -> Any:
        if START in FAIL_LIST:
            raise RuntimeError(f"tool index is corrupt (start {START})")
        return await super().list_tools()


server = Lifecycle("lifecycle")


@server.tool()
def pid() -> str:
    """This server's process id."""
    return str(os.getpid())


@server.tool()
def die() -> str:
    """Crash the server process."""
    sys.stderr.write("dying on request\n")
    sys.stderr.flush()
    os._exit(7)


@server.tool()
def orphan_and_die() -> str:
    """Leave a child holding this server's stdout open, then crash."""
    sleep = [sys.executable, "-c", "import time; time.sleep(60)"]
    child = subprocess.Popen(sleep, stdout=WIRE)
    with Path(f"{STATE}.children").open("a") as children:
        children.write(f"{child.pid}\n")
    sys.stderr.write("leaving a child behind\n")
    sys.stderr.flush()
    os._exit(1)


if __name__ == "__main__":
    anyio.run(server.run_stdio_async)
