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
* The boundary is ours: whatever fails inside ``async with connect_*`` (the SDK's task groups
  wrap it in exception groups) leaves as the one exception that happened, and the SDK's own
  failures as ``MCPError`` naming the server (command and the tail of its stderr for stdio). A
  server that does not answer ``initialize`` within ``timeout`` seconds (silent, or printing
  non-JSON) is an ``MCPError``, never a hang. ``stderr=`` says where the server's stderr goes
  (default: kept for the error message).
* A call's result becomes a ``ToolOutput`` (text and image parts, ``data`` = structured
  content); a result flagged ``isError`` raises ``MCPToolError`` with the server's text, which
  the tool loop turns into an ``is_error`` result.
"""

from __future__ import annotations

import base64
import contextlib
import shlex
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any, TextIO

import anyio

from ..errors import ConfigurationError, LLMBridgeError
from ..messages import ImagePart, TextPart
from ..request import ToolSpec
from .results import ToolOutput, to_content

__all__ = ["MCPConnection", "MCPError", "MCPTool", "MCPToolError", "connect_http", "connect_stdio"]

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup  # type: ignore[import-not-found,unused-ignore]

DEFAULT_TIMEOUT = 30.0
"""Seconds an MCP server has to answer ``initialize``."""


class MCPToolError(LLMBridgeError):
    """The MCP server reported the tool call as failed (``isError``)."""


class MCPError(LLMBridgeError):
    """An MCP server could not be started or reached, stopped answering, or broke the protocol.
    The message names the server (its command line or URL) and, for stdio, ends with the tail
    of what it wrote to stderr."""


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


def _leaves(error: BaseException) -> Iterator[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from _leaves(inner)
    else:
        yield error


class _Boundary:
    """Turns what leaves an MCP connection into one exception a caller can catch."""

    def __init__(self, where: str, log: TextIO | None) -> None:
        self.where = where
        self.log = log

    def tail(self) -> str:
        if self.log is None:
            return ""
        try:
            self.log.flush()
            self.log.seek(0)
            text = self.log.read()[-2000:].strip()
        except (OSError, ValueError):
            return ""
        return (
            f"; its stderr ends with: {text[-800:]!r}" if text else "; it wrote nothing to stderr"
        )

    def error(self, what: str, cause: BaseException | None = None) -> MCPError:
        detail = f": {type(cause).__name__}: {cause}" if cause is not None else ""
        return MCPError(f"MCP server {self.where} {what}{detail}{self.tail()}")

    def unwrap(self, error: BaseException) -> BaseException:
        cancelled = anyio.get_cancelled_exc_class()
        leaves = [e for e in _leaves(error) if not isinstance(e, cancelled)]
        leaf = leaves[0] if leaves else error
        if isinstance(leaf, LLMBridgeError) or not _from_the_sdk(leaf):
            return leaf  # the app's own exception, or one of ours: as it was raised
        return self.error("failed", leaf)


def _from_the_sdk(error: BaseException) -> bool:
    """Errors of the MCP SDK or of its streams (the server went away), not of the app."""
    from mcp.shared import exceptions

    sdk = getattr(exceptions, "MCPError", None) or exceptions.McpError  # type: ignore[attr-defined,unused-ignore]  # 2.x / 1.x
    gone = (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream)
    return isinstance(error, (sdk, *gone, OSError, EOFError))


@contextlib.asynccontextmanager
async def _session(
    streams: Any, boundary: _Boundary, timeout: float | None
) -> AsyncIterator[MCPConnection]:
    mcp = _import_mcp()
    try:
        async with contextlib.AsyncExitStack() as stack:
            try:
                opened = await stack.enter_async_context(streams)
                read, write = opened[0], opened[1]
                session = await stack.enter_async_context(mcp.ClientSession(read, write))
                with anyio.fail_after(timeout):
                    await session.initialize()
            except TimeoutError as exc:
                raise boundary.error(
                    f"did not answer 'initialize' within {timeout:g} s (silent, or not speaking "
                    "JSON-RPC on stdout)"
                ) from exc
            except Exception as exc:
                if isinstance(exc, LLMBridgeError):
                    raise
                raise boundary.error("could not be started or initialised", exc) from exc
            yield MCPConnection(session)
    except BaseExceptionGroup as group:
        raise boundary.unwrap(group) from group


@contextlib.asynccontextmanager
async def connect_stdio(
    command: str,
    args: Sequence[str] = (),
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
    stderr: TextIO | None = None,
) -> AsyncIterator[MCPConnection]:
    """Start an MCP server process and connect to it over stdin/stdout.

    ``timeout``: seconds the server has to answer ``initialize``. ``stderr``: a file for the
    server's stderr (default: a temporary one, whose tail ends any ``MCPError``)."""
    mcp = _import_mcp()
    from mcp.client.stdio import stdio_client

    params = mcp.StdioServerParameters(
        command=command, args=list(args), env=dict(env) if env is not None else None, cwd=cwd
    )
    with contextlib.ExitStack() as files:
        log = stderr
        if log is None:
            log = files.enter_context(
                tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
            )
        boundary = _Boundary(shlex.join([command, *args]), log if stderr is None else None)
        async with _session(stdio_client(params, errlog=log), boundary, timeout) as connection:
            yield connection


@contextlib.asynccontextmanager
async def connect_http(
    url: str, *, headers: Mapping[str, str] | None = None, timeout: float | None = DEFAULT_TIMEOUT
) -> AsyncIterator[MCPConnection]:
    """Connect to an MCP server over streamable HTTP (``timeout``: for ``initialize``)."""
    _import_mcp()
    boundary = _Boundary(url, None)
    from mcp.client import streamable_http

    modern = getattr(streamable_http, "streamable_http_client", None)
    if modern is not None:  # mcp 2.x: headers go on the SDK's own HTTP client
        from mcp.shared._httpx_utils import create_mcp_http_client

        client = create_mcp_http_client(headers=dict(headers or {}))
        async with client, _session(modern(url, http_client=client), boundary, timeout) as conn:
            yield conn
    else:  # pragma: no cover - mcp 1.x
        legacy = getattr(streamable_http, "streamablehttp_client")  # noqa: B009
        transport = legacy(url, headers=dict(headers or {}))
        async with _session(transport, boundary, timeout) as connection:
            yield connection
