"""A small MCP server for the MCP tests: ``python mcp_server_fixture.py stdio|http PORT``.

Three tools served one per page (so listing must follow cursors): ``add`` (text plus
structured content), ``fail`` (an ``isError`` result) and ``pixel`` (an image).
Written against the SDK's low-level server (mcp 2.x).
"""

from __future__ import annotations

try:  # first: a warm start when the suite runs one (mcp_zygote.py); else a cold one
    import mcp_zygote  # noqa: F401
except ImportError:  # not run as ``python SERVER.py``
    pass

import base64
import sys
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server

TOOLS = [
    types.Tool(
        name="add",
        description="Add two numbers.",
        input_schema={
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    ),
    types.Tool(
        name="fail",
        description="Always fails.",
        input_schema={"type": "object", "properties": {"why": {"type": "string"}}},
    ),
    types.Tool(name="pixel", description="A 1x1 image.", input_schema={"type": "object"}),
]
PIXEL = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()


async def list_tools(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    index = int(params.cursor) if params is not None and params.cursor else 0
    more = str(index + 1) if index + 1 < len(TOOLS) else None
    return types.ListToolsResult(tools=[TOOLS[index]], next_cursor=more)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    args = params.arguments or {}
    if params.name == "add":
        total = args["a"] + args["b"]
        return types.CallToolResult(
            content=[types.TextContent(text=str(total))], structured_content={"sum": total}
        )
    if params.name == "fail":
        return types.CallToolResult(
            content=[types.TextContent(text=f"failed: {args.get('why', 'no reason')}")],
            is_error=True,
        )
    return types.CallToolResult(content=[types.ImageContent(data=PIXEL, mime_type="image/png")])


server = Server("llmbridge-test", on_list_tools=list_tools, on_call_tool=call_tool)


async def run_stdio() -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def main() -> None:
    if sys.argv[1] == "stdio":
        anyio.run(run_stdio)
    else:
        import uvicorn

        uvicorn.run(
            server.streamable_http_app(),
            host="127.0.0.1",
            port=int(sys.argv[2]),
            log_level="warning",
        )


if __name__ == "__main__":
    main()
