"""An MCP server whose tools leave processes that escape its process group:
``python mcp_daemon_server.py STATE``.

Written with the SDK's high-level ``MCPServer`` (mcp 2.x), over stdio. Each tool starts a
process that sleeps 60 s and appends its pid to the file STATE:

* ``setsid``: a child in its own session (``start_new_session``), still the server's child;
* ``bare_setsid``: the same with an empty environment (no variable inherited at all);
* ``daemon``: a classic double-fork daemon (fork, ``setsid``, fork, the middle one exits), so
  its parent is ``init`` (or a subreaper) at once, not the server;
* ``daemon_then_die``: a daemon, then the server itself exits with status 9.

None of them holds the server's pipes (stdio to /dev/null): they do not keep the session open.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
from mcp.server.mcpserver import MCPServer

STATE = Path(sys.argv[1])
SLEEPER = (
    "import os, sys, time\n"
    "with open(sys.argv[1], 'a') as f: f.write(f'{os.getpid()}\\n')\n"
    "time.sleep(60)\n"
)
DAEMON = (
    "import os, sys, time\n"
    "if os.fork(): os._exit(0)\n"
    "os.setsid()\n"
    "if os.fork(): os._exit(0)\n"
    "with open(sys.argv[1], 'a') as f: f.write(f'{os.getpid()}\\n')\n"
    "time.sleep(60)\n"
)
QUIET = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}

server = MCPServer("daemons")


def _count() -> int:
    return len(STATE.read_text().split()) if STATE.exists() else 0


def _until_written(before: int) -> None:
    for _ in range(500):
        if _count() > before:
            return
        time.sleep(0.01)
    raise RuntimeError("the process never wrote its pid")


@server.tool()
def setsid() -> str:
    """A child in its own session."""
    before = _count()
    subprocess.Popen([sys.executable, "-c", SLEEPER, str(STATE)], start_new_session=True, **QUIET)
    _until_written(before)
    return "started"


@server.tool()
def bare_setsid() -> str:
    """A child in its own session, with an empty environment."""
    before = _count()
    subprocess.Popen(
        [sys.executable, "-c", SLEEPER, str(STATE)], start_new_session=True, env={}, **QUIET
    )
    _until_written(before)
    return "started"


@server.tool()
def daemon() -> str:
    """A double-fork daemon."""
    before = _count()
    subprocess.run([sys.executable, "-c", DAEMON, str(STATE)], check=True, **QUIET)
    _until_written(before)
    return "started"


@server.tool()
def daemon_then_die() -> str:
    """A double-fork daemon, then the server exits."""
    daemon()
    os._exit(9)


if __name__ == "__main__":
    anyio.run(server.run_stdio_async)
