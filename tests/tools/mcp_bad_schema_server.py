"""An MCP server (stdio) with one ordinary tool, ``ok``, and one, ``huge``, whose input schema
is too big for any provider (over 1 MB): ``python mcp_bad_schema_server.py``."""

from __future__ import annotations

try:  # first: a warm start when the suite runs one (mcp_zygote.py); else a cold one
    import mcp_zygote  # noqa: F401
except ImportError:  # not run as ``python SERVER.py``
    pass

from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server

PROPERTIES = {f"p{i}": {"type": "string", "description": "x" * 1000} for i in range(2_000)}
TOOLS = [
    types.Tool(name="ok", description="Answers ok.", input_schema={"type": "object"}),
    types.Tool(
        name="huge",
        description="Too big.",
        input_schema={"type": "object", "properties": PROPERTIES},
    ),
]


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text="ok")])


server = Server("bad-schema", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
