"""A small MCP server with resources, written with the ``mcp`` package's ``MCPServer``:
``python examples/mcp_notes_server.py`` (stdio). docs/tools.md ("MCP resources") connects to it.

Resources: ``notes://readme`` (markdown), ``files://logo.png`` (an image); a template
``notes://topic/{topic}``. It answers ``resources/subscribe`` / ``unsubscribe`` and has a tool
``edit_readme`` that changes the readme and sends ``notifications/resources/updated`` to a
subscribed client.
"""

from __future__ import annotations

import base64

import anyio
import mcp.types as types
from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("notes")
README = ["# Notes\nShip the release on Friday."]
SUBSCRIBED: set[str] = set()
LOGO = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


@server.resource("notes://readme", mime_type="text/markdown", description="What to do next")
def readme() -> str:
    return README[0]


@server.resource("files://logo.png", mime_type="image/png")
def logo() -> bytes:
    return LOGO


@server.resource("notes://topic/{topic}", mime_type="text/plain")
def topic(topic: str) -> str:
    return f"Everything we know about {topic}."


async def subscribe(ctx: object, params: types.SubscribeRequestParams) -> types.EmptyResult:
    SUBSCRIBED.add(params.uri)
    return types.EmptyResult()


async def unsubscribe(ctx: object, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
    SUBSCRIBED.discard(params.uri)
    return types.EmptyResult()


# the high-level server lists and reads resources; subscriptions go on its low-level server
server._lowlevel_server.add_request_handler(
    "resources/subscribe", types.SubscribeRequestParams, subscribe
)
server._lowlevel_server.add_request_handler(
    "resources/unsubscribe", types.UnsubscribeRequestParams, unsubscribe
)


@server.tool()
async def edit_readme(text: str, ctx: Context) -> str:
    """Replace the readme."""
    README[0] = text
    if "notes://readme" in SUBSCRIBED:
        await ctx.session.send_resource_updated("notes://readme")
    return "saved"


if __name__ == "__main__":
    anyio.run(server.run_stdio_async)
