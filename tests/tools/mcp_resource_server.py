"""An MCP server with resources for the resource tests: ``python mcp_resource_server.py NAME
stdio|http [PORT]``.

Written with the SDK's high-level ``MCPServer`` (mcp 2.x). Resources: ``notes://readme``
(markdown text), ``files://logo.png``, ``files://report.pdf``, ``files://song.wav``,
``files://config.json`` (JSON bytes), ``files://data.bin`` (octet-stream) and ``files://big``
(300,000 characters); a template ``notes://topic/{topic}``. ``resources/list`` and
``resources/templates/list`` answer one item per page (so listing must follow cursors), and
the server answers ``resources/subscribe`` / ``unsubscribe`` (the high-level server does not
by itself). Tools: ``add_memo`` (a new resource, then ``resources/list_changed``), ``touch``
(``resources/updated`` for a URI if the client subscribed to it or to a parent),
``subscribed`` (the URIs subscribed now), ``report`` (a resource link, an embedded PDF and an
embedded text), ``add_tool`` (a new tool of the given name, then ``tools/list_changed``),
``die`` (exits the process).
"""

from __future__ import annotations

try:  # first: a warm start when the suite runs one (mcp_zygote.py); else a cold one
    import mcp_zygote  # noqa: F401
except ImportError:  # not run as ``python SERVER.py``
    pass

import base64
import os
import sys
from typing import Any

import anyio
import mcp.types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resources import TextResource

NAME = sys.argv[1]
server = MCPServer(NAME)
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(32))
PDF = b"%PDF-1.4\n% fake report\n"
SUBSCRIBED: set[str] = set()


@server.resource("notes://readme", mime_type="text/markdown", description="The readme")
def readme() -> str:
    return f"# {NAME}\nhello from the readme"


@server.resource("files://logo.png", mime_type="image/png", title="Logo")
def logo() -> bytes:
    return PNG


@server.resource("files://report.pdf", mime_type="application/pdf")
def report_pdf() -> bytes:
    return PDF


@server.resource("files://song.wav", mime_type="audio/wav")
def song() -> bytes:
    return b"RIFF....WAVEfmt fake"


@server.resource("files://config.json", mime_type="application/json")
def config() -> bytes:
    return b'{"debug": true}'


@server.resource("files://data.bin", mime_type="application/octet-stream")
def data() -> bytes:
    return bytes(range(256))


@server.resource("files://big", mime_type="text/plain")
def big() -> str:
    return "x" * 300_000


@server.resource("notes://topic/{topic}", mime_type="text/plain", description="A note")
def topic_note(topic: str) -> str:
    return f"notes about {topic}"


async def list_resources(ctx: Any, params: types.PaginatedRequestParams | None) -> Any:
    items = await server.list_resources()
    index = int(params.cursor) if params is not None and params.cursor else 0
    more = str(index + 1) if index + 1 < len(items) else None
    return types.ListResourcesResult(resources=items[index : index + 1], next_cursor=more)


async def list_templates(ctx: Any, params: types.PaginatedRequestParams | None) -> Any:
    items = await server.list_resource_templates()
    index = int(params.cursor) if params is not None and params.cursor else 0
    more = str(index + 1) if index + 1 < len(items) else None
    return types.ListResourceTemplatesResult(
        resource_templates=items[index : index + 1], next_cursor=more
    )


async def subscribe(ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
    SUBSCRIBED.add(params.uri)
    return types.EmptyResult()


async def unsubscribe(ctx: Any, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
    SUBSCRIBED.discard(params.uri)
    return types.EmptyResult()


lowlevel = server._lowlevel_server
lowlevel.add_request_handler("resources/list", types.PaginatedRequestParams, list_resources)
lowlevel.add_request_handler(
    "resources/templates/list", types.PaginatedRequestParams, list_templates
)
lowlevel.add_request_handler("resources/subscribe", types.SubscribeRequestParams, subscribe)
lowlevel.add_request_handler("resources/unsubscribe", types.UnsubscribeRequestParams, unsubscribe)


@server.tool()
async def add_memo(text: str, ctx: Context) -> str:
    """Add a memo resource and tell the client its resource list changed."""
    uri = f"memo://{len(await server.list_resources())}"
    server.add_resource(TextResource(uri=uri, name=f"memo {uri}", text=text))
    await ctx.session.send_resource_list_changed()
    return uri


@server.tool()
async def touch(uri: str, ctx: Context) -> str:
    """Say a resource changed (only if the client subscribed to it or to a parent)."""
    if not any(uri == s or uri.startswith(s + "/") for s in SUBSCRIBED):
        return "not subscribed"
    await ctx.session.send_resource_updated(uri)
    return "sent"


@server.tool()
def subscribed() -> list[str]:
    """The URIs the client is subscribed to."""
    return sorted(SUBSCRIBED)


@server.tool()
def report() -> list[types.ContentBlock]:
    """The quarterly report: a link, the PDF and a summary."""
    return [
        types.ResourceLink(
            name="report", uri="files://report.pdf", mime_type="application/pdf", size=len(PDF),
            description="Q3 report",
        ),
        types.EmbeddedResource(
            resource=types.BlobResourceContents(
                uri="files://report.pdf", mime_type="application/pdf",
                blob=base64.b64encode(PDF).decode(),
            )
        ),
        types.EmbeddedResource(
            resource=types.TextResourceContents(uri="memo://summary", text="all good")
        ),
    ]  # fmt: skip


@server.tool()
async def add_tool(name: str, ctx: Context) -> str:
    """Add a tool named ``name`` and tell the client its tool list changed."""

    def added() -> str:
        """A tool that appeared later."""
        return f"{NAME}'s {name}"

    server.add_tool(added, name=name)
    await ctx.session.send_tool_list_changed()
    return "added"


@server.tool()
def die() -> str:
    """Crash the server process."""
    os._exit(3)


def main() -> None:
    if sys.argv[2] == "stdio":
        anyio.run(server.run_stdio_async)
    else:
        import uvicorn

        uvicorn.run(
            server.streamable_http_app(),
            host="127.0.0.1",
            port=int(sys.argv[3]),
            log_level="warning",
        )


if __name__ == "__main__":
    main()
