"""A hostile MCP server for the hardening tests: ``python mcp_hostile_server.py STATE``.

Written with the SDK's high-level ``MCPServer`` (mcp 2.x), over stdio. Each ``tools/list`` it
is asked appends a line to the file STATE; only the first is answered, every later one hangs
(a refresh that never comes back). Tools: ``flood`` (sends ``tools/list_changed`` ``count``
times), ``hang`` (never answers), ``shout`` (sends one log record with the ``logger`` and
``data`` given).
"""

from __future__ import annotations

try:  # first: a warm start when the suite runs one (mcp_zygote.py); else a cold one
    import mcp_zygote  # noqa: F401
except ImportError:  # not run as ``python SERVER.py``
    pass

import sys
from pathlib import Path
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer

STATE = Path(sys.argv[1])


class Hostile(MCPServer):
    async def list_tools(self) -> Any:
        with STATE.open("a") as state:  # noqa: ASYNC230 - a test server, one short write
            state.write("list\n")
        if len(STATE.read_text().split()) > 1:
            await anyio.sleep_forever()
        return await super().list_tools()


server = Hostile("hostile")


@server.tool()
async def flood(count: int, ctx: Context) -> str:
    """Say the tool list changed, ``count`` times."""
    for _ in range(count):
        await ctx.session.send_tool_list_changed()
    return "flooded"


@server.tool()
async def hang() -> str:
    """Never answer."""
    await anyio.sleep_forever()
    return "unreachable"


@server.tool()
async def shout(level: str, logger: str, data: str, ctx: Context) -> str:
    """Send one log record."""
    await ctx.session.send_log_message(level, data, logger)  # type: ignore[arg-type]
    return "shouted"


if __name__ == "__main__":
    anyio.run(server.run_stdio_async)
