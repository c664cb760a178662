"""MCP servers as tools (optional extra ``llmbridge[mcp]``, built on the official ``mcp`` SDK).

Rules:

* ``mcp`` is imported only when a connection is made; without it the error says which extra
  to install. Works with the SDK's 1.x and 2.x APIs (camelCase and snake_case fields alike).
* ``connect_stdio`` starts the server as a subprocess, ``connect_http`` speaks streamable HTTP;
  both are async context managers that initialise the session on entry and close the session,
  the transport and (stdio) the process on exit, with whatever it left in its process group.
  Enter and leave them in the same task.
* ``list_tools()`` follows pagination cursors to the end and gives ``MCPTool`` objects: each
  has ``name``, ``tool_spec`` (from the server's ``inputSchema``) and ``async call(arguments)``,
  so ``ToolRegistry.register`` takes them as they are.
* The boundary is ours: whatever fails inside ``async with connect_*`` (the SDK's task groups
  wrap it in exception groups) leaves as the one exception that happened, and the SDK's own
  failures as ``MCPError`` naming the server (command and the tail of its stderr for stdio). A
  server that does not answer ``initialize`` within ``timeout`` seconds (silent, or printing
  non-JSON) is an ``MCPError``, never a hang. ``stderr=`` says where the server's stderr goes
  (default: kept for the error message).
* A call's result becomes a ``ToolOutput`` (parts as ``llmbridge.tools.mcp_content`` makes
  them: text, images, audio, documents, resource links; ``data`` = structured content, also
  sent as JSON text when the server gave no content blocks); a result flagged ``isError`` raises ``MCPToolError`` with the server's text, which the tool
  loop turns into an ``is_error`` result. A call on a connection that is gone (the process
  died, the HTTP session dropped or was forgotten by a restarted server: a failed request is
  followed by a ping to tell) raises ``MCPConnectionLostError``; other protocol errors
  (an answer the SDK cannot read included) ``MCPError``. ``timeout=`` bounds one call (``MCPTimeoutError``).
* ``session_options`` reach the SDK's ``ClientSession`` (``sampling_callback``,
  ``message_handler``, ...): how ``connect_mcp_servers`` answers sampling and hears
  ``tools/list_changed``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shlex
import signal
import sys
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, TextIO

import anyio
import orjson
from pydantic import ValidationError

from ..errors import ConfigurationError, LLMBridgeError
from ..messages import ChatMessage, TextPart
from ..request import ToolSpec
from .mcp_content import content_parts, field_of, prompt_messages
from .mcp_errors import (
    _SPAWNED,
    MCPConnectionLostError,
    MCPError,
    MCPTimeoutError,
    MCPToolError,
    _Boundary,
    _from_the_sdk,
    _sdk_error_class,
    _watch_spawns,
)
from .results import ToolOutput

__all__ = [
    "MCPConnection",
    "MCPConnectionLostError",
    "MCPError",
    "MCPTimeoutError",
    "MCPTool",
    "MCPToolError",
    "connect_http",
    "connect_stdio",
]

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup  # type: ignore[import-not-found,unused-ignore]

DEFAULT_TIMEOUT = 30.0
"""Seconds an MCP server has to answer ``initialize``."""
_PING_TIMEOUT = 5.0
"""Seconds a server has to answer the ping that follows a failed request."""


def _import_mcp() -> Any:
    try:
        import mcp
    except ImportError as exc:
        raise ConfigurationError(
            "MCP support needs the 'mcp' package: pip install 'llmbridge[mcp]'"
        ) from exc
    return mcp


class MCPTool:
    """One tool of a connected MCP server, ready for ``ToolRegistry.register``.

    ``remote_name`` is the server's name for it; ``name`` the one the model sees (the same,
    unless ``connect_mcp_servers`` renamed it to stay unique and within provider rules)."""

    def __init__(
        self,
        connection: Any,
        definition: Any,
        *,
        name: str | None = None,
        server: str | None = None,
    ) -> None:
        self.connection = connection
        """What ``call`` goes through: an ``MCPConnection`` (or a server that reconnects)."""
        self.definition = definition
        self.remote_name = str(field_of(definition, "name"))
        self.tool_spec = ToolSpec.from_mcp(
            {
                "name": name or self.remote_name,
                "description": field_of(definition, "description"),
                "inputSchema": field_of(definition, "inputSchema", "input_schema"),
            }
        )
        self.name = self.tool_spec.name
        self.description = self.tool_spec.description
        self.server = server
        self.approval: Any = None
        """An approval rule, set by ``connect_mcp_servers`` from the server's config."""

    async def call(self, arguments: Mapping[str, Any]) -> ToolOutput:
        return await self.connection.call_tool(self.remote_name, arguments)  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        where = f" of {self.server!r}" if self.server else ""
        return f"MCPTool({self.name!r}{where})"


def _closed_code() -> int:
    import mcp.types

    return int(getattr(mcp.types, "CONNECTION_CLOSED", -32000))


class MCPConnection:
    """An initialised MCP client session (made by ``connect_stdio`` / ``connect_http``)."""

    def __init__(self, session: Any, *, where: str = "", name: str | None = None) -> None:
        self.session = session
        """The SDK's ``ClientSession`` for anything not wrapped here."""
        self.where = where
        self.name = name
        self.lost = False
        """True once a request found the connection gone."""
        self.capabilities: Any = None
        """What the server said it offers in its ``initialize`` answer (tools, prompts...)."""
        self.timeout: float | None = None
        """Seconds any request may take when the caller gives no ``timeout`` (``None``: no
        limit)."""

    def _label(self) -> str:
        return f"{self.name!r} ({self.where})" if self.name else self.where

    def _is_gone(self, exc: Exception) -> bool:
        gone = (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream, OSError)
        if isinstance(exc, gone):
            return True
        return isinstance(exc, _sdk_error_class()) and getattr(exc, "code", None) == _closed_code()

    async def _answers_ping(self) -> bool:
        """Whether the session still works: how a request error is told apart from a
        connection that is gone without reading error texts (an HTTP server that restarted
        answers every request of the old session with an error, pings included)."""
        try:
            with anyio.fail_after(_PING_TIMEOUT):
                await self.session.send_ping()
        except Exception:
            return False
        return True

    async def _failed(self, exc: Exception, what: str) -> MCPError:
        if self._is_gone(exc) or not await self._answers_ping():
            self.lost = True
            error: MCPError = MCPConnectionLostError(
                f"MCP server {self._label()} is gone ({what}: {exc}); it is restarted on the "
                "next call"
            )
        else:
            error = MCPError(f"MCP server {self._label()}: {what} failed: {exc}")
        error.server, error.where = self.name, self.where
        return error

    async def _request(self, what: str, make: Any, timeout: float | None = None) -> Any:
        timeout = self.timeout if timeout is None else timeout
        try:
            with anyio.fail_after(timeout):
                return await make()
        except TimeoutError as exc:
            error = MCPTimeoutError(
                f"MCP server {self._label()}: {what} got no answer within {timeout:g} s"
            )
            error.server, error.where = self.name, self.where
            raise error from exc
        except Exception as exc:
            unreadable = isinstance(exc, ValidationError)  # an answer the SDK could not read
            if isinstance(exc, LLMBridgeError) or not (unreadable or _from_the_sdk(exc)):
                raise
            raise await self._failed(exc, what) from exc

    async def list_tools(self) -> list[MCPTool]:
        """Every tool of the server, following pagination cursors."""
        return [MCPTool(self, t, server=self.name) for t in await self.tool_definitions()]

    async def tool_definitions(self) -> list[Any]:
        """Every tool definition as the server sent it (the SDK's ``Tool`` objects), across
        pages: unlike ``list_tools``, nothing is built from their schemas yet."""
        definitions: list[Any] = []
        cursor: str | None = None
        while True:
            page = await self._request(
                "tools/list", functools.partial(self._page, "list_tools", cursor)
            )
            definitions.extend(page.tools)
            cursor = field_of(page, "nextCursor", "next_cursor")
            if not cursor:
                return definitions

    async def _page(self, method: str, cursor: str | None) -> Any:
        mcp = _import_mcp()
        paginated = getattr(mcp.types, "PaginatedRequestParams", None)
        if cursor is None:
            return await getattr(self.session, method)()
        if paginated is not None:
            return await getattr(self.session, method)(params=paginated(cursor=cursor))
        return await getattr(self.session, method)(cursor=cursor)  # pragma: no cover - mcp 1.x

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any], *, timeout: float | None = None
    ) -> ToolOutput:
        """Call a tool on the server; ``MCPToolError`` when the server flags the result."""
        result = await self._request(
            f"tools/call {name!r}", lambda: self.session.call_tool(name, dict(arguments)), timeout
        )
        parts = content_parts(field_of(result, "content") or [])
        if field_of(result, "isError", "is_error"):
            text = "".join(p.text for p in parts if isinstance(p, TextPart)) or "tool failed"
            raise MCPToolError(text)
        data = field_of(result, "structuredContent", "structured_content")
        if not parts and data is not None:  # no text copy of it (optional): the model reads JSON
            parts = [TextPart(text=orjson.dumps(data).decode())]
        return ToolOutput(parts, data=data)

    async def list_prompts(self) -> list[Any]:
        """Every prompt the server offers (the SDK's ``Prompt`` objects), across pages; none
        for a server that did not announce the prompts capability."""
        if self.capabilities is not None and field_of(self.capabilities, "prompts") is None:
            return []
        prompts: list[Any] = []
        cursor: str | None = None
        while True:
            listing = functools.partial(self._page, "list_prompts", cursor)
            page = await self._request("prompts/list", listing)
            prompts.extend(page.prompts)
            cursor = field_of(page, "nextCursor", "next_cursor")
            if not cursor:
                return prompts

    async def get_prompt(
        self, name: str, arguments: Mapping[str, str] | None = None
    ) -> list[ChatMessage]:
        """A prompt, filled in with ``arguments``, as ``ChatMessage``s."""
        args = {k: str(v) for k, v in (arguments or {}).items()}
        result = await self._request(
            f"prompts/get {name!r}", lambda: self.session.get_prompt(name, args)
        )
        return prompt_messages(result)


@contextlib.asynccontextmanager
async def _session(
    streams: Any,
    boundary: _Boundary,
    timeout: float | None,
    session_options: Mapping[str, Any] | None,
) -> AsyncIterator[MCPConnection]:
    mcp = _import_mcp()
    try:
        async with contextlib.AsyncExitStack() as stack:
            try:
                opened = await stack.enter_async_context(streams)
                read, write = opened[0], opened[1]
                session = await stack.enter_async_context(
                    mcp.ClientSession(read, write, **dict(session_options or {}))
                )
                with anyio.fail_after(timeout):
                    initialized = await session.initialize()
            except TimeoutError as exc:
                raise boundary.error(
                    f"did not answer 'initialize' within {timeout:g} s (silent, or not speaking "
                    "JSON-RPC on stdout)"
                ) from exc
            except Exception as exc:
                if isinstance(exc, LLMBridgeError):
                    raise
                await anyio.sleep(0.05)  # let a process that just died be reaped: exit status
                raise boundary.error("could not be started or initialised", exc) from exc
            connection = MCPConnection(session, where=boundary.where, name=boundary.name)
            connection.capabilities = field_of(initialized, "capabilities")
            yield connection
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
    name: str | None = None,
    session_options: Mapping[str, Any] | None = None,
    where: str | None = None,
) -> AsyncIterator[MCPConnection]:
    """Start an MCP server process and connect to it over stdin/stdout.

    ``timeout``: seconds the server has to answer ``initialize``. ``stderr``: a file for the
    server's stderr (default: a temporary one, whose tail ends any ``MCPError``). ``name``:
    the server's name in errors and on its tools. ``where``: how errors show the server
    (default: its command line; pass one without secrets if ``args`` hold any)."""
    mcp = _import_mcp()
    from mcp.client.stdio import stdio_client

    _watch_spawns()
    params = mcp.StdioServerParameters(
        command=command, args=list(args), env=dict(env) if env is not None else None, cwd=cwd
    )
    with contextlib.ExitStack() as files:
        log = stderr
        if log is None:
            log = files.enter_context(
                tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
            )
        where = where or shlex.join([command, *args])
        boundary = _Boundary(where, log if stderr is None else None, name)
        token = _SPAWNED.set(boundary.processes)
        try:
            transport = stdio_client(params, errlog=log)
            async with _session(transport, boundary, timeout, session_options) as connection:
                yield connection
        finally:
            _SPAWNED.reset(token)
            _kill_leftovers(boundary.processes)


def _kill_leftovers(processes: Sequence[Any]) -> None:
    """Kill what a stopped server left in its process group (the SDK starts each server in
    a new session, and kills the group only when the server itself outlives the grace
    period: children of a server that exited promptly would be orphans)."""
    killpg = getattr(os, "killpg", None)  # POSIX; on Windows the SDK's job object does this
    for process in processes:
        if killpg is not None and getattr(process, "pid", None):
            with contextlib.suppress(OSError):  # nothing left: the group is gone
                killpg(process.pid, signal.SIGKILL)


@contextlib.asynccontextmanager
async def connect_http(
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
    name: str | None = None,
    session_options: Mapping[str, Any] | None = None,
    where: str | None = None,
) -> AsyncIterator[MCPConnection]:
    """Connect to an MCP server over streamable HTTP (``timeout``: for ``initialize``;
    ``where``: how errors show the server, default its URL)."""
    _import_mcp()
    boundary = _Boundary(where or url, None, name)
    from mcp.client import streamable_http

    modern = getattr(streamable_http, "streamable_http_client", None)
    if modern is not None:  # mcp 2.x: headers go on the SDK's own HTTP client
        from mcp.shared._httpx_utils import create_mcp_http_client

        client = create_mcp_http_client(headers=dict(headers or {}))
        transport = modern(url, http_client=client)
        async with client, _session(transport, boundary, timeout, session_options) as conn:
            yield conn
    else:  # pragma: no cover - mcp 1.x
        legacy = getattr(streamable_http, "streamablehttp_client")  # noqa: B009
        transport = legacy(url, headers=dict(headers or {}))
        async with _session(transport, boundary, timeout, session_options) as connection:
            yield connection
