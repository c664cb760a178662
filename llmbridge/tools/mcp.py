"""MCP servers as tools (optional extra ``llmbridge[mcp]``, built on the official ``mcp`` SDK).

Rules:

* ``mcp`` is imported only when a connection is made; without it the error says which extra
  to install. Works with the SDK's 1.x and 2.x APIs (camelCase and snake_case fields alike).
* ``connect_stdio`` starts the server as a subprocess, ``connect_http`` speaks streamable HTTP;
  both are async context managers that initialise the session on entry and close the session,
  the transport and (stdio) the process on exit. Enter and leave them in the same task.
* ``list_tools()`` follows pagination cursors to the end and gives ``MCPTool`` objects: each
  has ``name``, ``tool_spec`` (from the server's ``inputSchema``) and ``async call(arguments)``,
  so ``ToolRegistry.register`` takes them as they are.
* A call's result becomes a ``ToolOutput`` (text and image parts, ``data`` = structured
  content); a result flagged ``isError`` raises ``MCPToolError`` with the server's text, which
  the tool loop turns into an ``is_error`` result.
"""

from __future__ import annotations

import base64
import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from ..errors import ConfigurationError, LLMBridgeError
from ..types import ImagePart, TextPart
from .results import ToolOutput, to_content
from .spec import ToolSpec

__all__ = ["MCPConnection", "MCPTool", "MCPToolError", "connect_http", "connect_stdio"]


class MCPToolError(LLMBridgeError):
    """The MCP server reported the tool call as failed (``isError``)."""


def _import_mcp() -> Any:
    try:
        import mcp
    except ImportError as exc:
        raise ConfigurationError(
            "MCP support needs the 'mcp' package: pip install 'llmbridge[mcp]'"
        ) from exc
    return mcp


def _field(obj: Any, *names: str) -> Any:
    for name in names:
        value = obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)
        if value is not None:
            return value
    return None


def _content_parts(blocks: Sequence[Any]) -> list[TextPart | ImagePart]:
    parts: list[TextPart | ImagePart] = []
    for block in blocks:
        kind = _field(block, "type")
        if kind == "text":
            parts.append(TextPart(text=str(_field(block, "text") or "")))
        elif kind == "image":
            data = base64.b64decode(str(_field(block, "data") or ""))
            media = str(_field(block, "mimeType", "mime_type") or "image/png")
            parts.append(ImagePart(data=data, media_type=media))
        else:  # audio, resources, links: kept as their JSON for the model to read
            dump = (
                block.model_dump(mode="json", by_alias=True)
                if hasattr(block, "model_dump")
                else block
            )
            parts.extend(to_content(dump))
    return parts


class MCPTool:
    """One tool of a connected MCP server, ready for ``ToolRegistry.register``."""

    def __init__(self, connection: MCPConnection, definition: Any) -> None:
        self.connection = connection
        self.tool_spec = ToolSpec.from_mcp(definition)
        self.name = self.tool_spec.name
        self.description = self.tool_spec.description

    async def call(self, arguments: Mapping[str, Any]) -> ToolOutput:
        return await self.connection.call_tool(self.name, arguments)

    def __repr__(self) -> str:
        return f"MCPTool({self.name!r})"


class MCPConnection:
    """An initialised MCP client session (made by ``connect_stdio`` / ``connect_http``)."""

    def __init__(self, session: Any) -> None:
        self.session = session
        """The SDK's ``ClientSession`` for anything not wrapped here."""

    async def list_tools(self) -> list[MCPTool]:
        """Every tool of the server, following pagination cursors."""
        mcp = _import_mcp()
        paginated = getattr(mcp.types, "PaginatedRequestParams", None)
        tools: list[MCPTool] = []
        cursor: str | None = None
        while True:
            if cursor is None:
                page = await self.session.list_tools()
            elif paginated is not None:
                page = await self.session.list_tools(params=paginated(cursor=cursor))
            else:  # pragma: no cover - mcp 1.x before PaginatedRequestParams
                page = await self.session.list_tools(cursor=cursor)
            tools.extend(MCPTool(self, t) for t in page.tools)
            cursor = _field(page, "nextCursor", "next_cursor")
            if not cursor:
                return tools

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> ToolOutput:
        """Call a tool on the server; ``MCPToolError`` when the server flags the result."""
        result = await self.session.call_tool(name, dict(arguments))
        parts = _content_parts(_field(result, "content") or [])
        if _field(result, "isError", "is_error"):
            text = "".join(p.text for p in parts if isinstance(p, TextPart)) or "tool failed"
            raise MCPToolError(text)
        return ToolOutput(parts, data=_field(result, "structuredContent", "structured_content"))


@contextlib.asynccontextmanager
async def _session(streams: Any) -> AsyncIterator[MCPConnection]:
    mcp = _import_mcp()
    async with contextlib.AsyncExitStack() as stack:
        opened = await stack.enter_async_context(streams)
        read, write = opened[0], opened[1]
        session = await stack.enter_async_context(mcp.ClientSession(read, write))
        await session.initialize()
        yield MCPConnection(session)


@contextlib.asynccontextmanager
async def connect_stdio(
    command: str,
    args: Sequence[str] = (),
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
) -> AsyncIterator[MCPConnection]:
    """Start an MCP server process and connect to it over stdin/stdout."""
    mcp = _import_mcp()
    from mcp.client.stdio import stdio_client

    params = mcp.StdioServerParameters(
        command=command, args=list(args), env=dict(env) if env is not None else None, cwd=cwd
    )
    async with _session(stdio_client(params)) as connection:
        yield connection


@contextlib.asynccontextmanager
async def connect_http(
    url: str, *, headers: Mapping[str, str] | None = None
) -> AsyncIterator[MCPConnection]:
    """Connect to an MCP server over streamable HTTP."""
    _import_mcp()
    from mcp.client import streamable_http

    modern = getattr(streamable_http, "streamable_http_client", None)
    if modern is not None:  # mcp 2.x: headers go on the SDK's own HTTP client
        from mcp.shared._httpx_utils import create_mcp_http_client

        client = create_mcp_http_client(headers=dict(headers or {}))
        async with client, _session(modern(url, http_client=client)) as connection:
            yield connection
    else:  # pragma: no cover - mcp 1.x
        legacy = getattr(streamable_http, "streamablehttp_client")  # noqa: B009
        transport = legacy(url, headers=dict(headers or {}))
        async with _session(transport) as connection:
            yield connection
