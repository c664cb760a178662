"""One initialised MCP session: ``MCPConnection`` (its requests and their errors) and
``MCPTool`` (one of its tools, ready for ``ToolRegistry.register``). Made by ``connect_stdio``
and ``connect_http`` (``llmbridge.mcp.connection.connect``, which exports both).

Rules:

* ``list_tools()`` follows pagination cursors to the end (``llmbridge.mcp.connection.paging``: a
  server paging in a circle is an ``MCPError``) and gives ``MCPTool`` objects: each
  has ``name``, ``tool_spec`` (from the server's ``inputSchema``) and ``async call(arguments)``,
  so ``ToolRegistry.register`` takes them as they are.
* A call's result becomes a ``ToolOutput`` (an ``MCPToolOutput``, which also keeps the
  result's resource links and embedded resources whole: ``links``, ``resources``; parts as
  ``llmbridge.mcp.content`` makes them: text, images, audio, documents, resource links,
  embedded resources within a byte bound; ``data`` = structured content, also
  sent as JSON text when the server gave no content blocks); a result flagged ``isError``
  raises ``MCPToolError`` with the server's text, which the tool loop turns into an
  ``is_error`` result. A call on a connection that is gone (the process died, the HTTP session
  dropped or was forgotten by a restarted server: a failed request is followed by a ping to
  tell) raises ``MCPConnectionLostError``; other protocol errors (an answer the SDK cannot
  read included) ``MCPError``. A call is bounded by ``timeout=``, else the connection's
  ``tool_timeout`` (``DEFAULT_TOOL_TIMEOUT``, 60 s, unless set; ``None``: the request
  ``timeout``): one that takes longer is an ``MCPTimeoutError`` (the tool loop gives the model
  an ``is_error`` result saying so). The SDK sends the server a cancellation for it.
* Every request runs in a cancel scope the server's process exit cancels (stdio: see
  ``_watch_exit`` in ``llmbridge.mcp.connection.connect``): it then ends at once with
  ``MCPConnectionLostError`` naming the exit status and stderr tail, and later requests fail
  without being sent. The end of its stdout is not enough: a child the server left behind may
  hold that pipe open, and the SDK would wait forever.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any, Protocol

import anyio
import orjson
from pydantic import ValidationError

from ...errors import ConfigurationError, LLMBridgeError
from ...messages import ChatMessage
from ...parts import TextPart
from ...tool_spec import ToolSpec
from ...tools.results import ToolOutput
from ..content import content_parts, field_of, prompt_messages
from ..errors import (
    MCPConnectionLostError,
    MCPError,
    MCPTimeoutError,
    MCPToolError,
    _Boundary,
    _from_the_sdk,
    _sdk_error_class,
)
from ..person_clock import pausable
from ..resources.model import MCPToolOutput, tool_resources
from ..resources.requests import ResourceRequests
from ..resources.watch import ResourceWatch
from .paging import all_pages
from .progress import current_span, progress_reporter

__all__ = ["DEFAULT_TOOL_TIMEOUT", "MCPConnection", "MCPTool", "ToolServer"]

DEFAULT_TOOL_TIMEOUT = 60.0
"""Seconds an MCP tool call may take unless the app says otherwise (``tool_timeout``)."""

_PING_TIMEOUT = 5.0
"""Seconds a server has to answer the ping that follows a failed request."""
_EXIT_GRACE = 0.25
"""Seconds a request that found a stdio server's pipes closed waits for its process to exit
(for the exit status in the error)."""


def _import_mcp() -> Any:
    try:
        import mcp
    except ImportError as exc:
        raise ConfigurationError(
            "MCP support needs the 'mcp' package: pip install 'llmbridge[mcp]'"
        ) from exc
    return mcp


class ToolServer(Protocol):
    """A server that calls its tools itself, reconnecting first when its connection is gone
    (``llmbridge.mcp.hub.server.MCPServer``)."""

    @property
    def latest(self) -> MCPConnection: ...
    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> Any: ...


class MCPTool:
    """One tool of a connected MCP server, ready for ``ToolRegistry.register``.

    ``remote_name`` is the server's name for it; ``name`` the one the model sees (the same,
    unless ``connect_mcp_servers`` renamed it to stay unique and within provider rules).
    ``connection`` is always an ``MCPConnection``; a tool of ``connect_mcp_servers`` also has
    its ``mcp_server``, which its calls go through (it restarts a server that is gone)."""

    def __init__(
        self,
        connection: MCPConnection,
        definition: Any,
        *,
        name: str | None = None,
        server: str | None = None,
        mcp_server: ToolServer | None = None,
    ) -> None:
        self._connection = connection
        self.mcp_server = mcp_server
        """The supervising server of a ``connect_mcp_servers`` tool (``None``: a tool of one
        ``connect_*`` connection)."""
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
        """The server's name (on errors and in the registry)."""
        self.approval: Any = None
        """An approval rule, set by ``connect_mcp_servers`` from the server's config."""

    @property
    def connection(self) -> MCPConnection:
        """The connection its calls go through: its server's latest when it has one (``.lost``
        once gone, until the next call restarts the server), else the one it was listed on."""
        return self.mcp_server.latest if self.mcp_server is not None else self._connection

    async def call(self, arguments: Mapping[str, Any]) -> ToolOutput:
        via = self.mcp_server if self.mcp_server is not None else self._connection
        output: ToolOutput = await via.call_tool(self.remote_name, arguments)
        return output

    def __repr__(self) -> str:
        where = f" of {self.server!r}" if self.server else ""
        return f"MCPTool({self.name!r}{where})"


def _closed_code() -> int:
    import mcp.types

    return int(getattr(mcp.types, "CONNECTION_CLOSED", -32000))


class MCPConnection(ResourceRequests):
    """An initialised MCP client session (made by ``connect_stdio`` / ``connect_http``).
    Resources: ``list_resources``, ``list_resource_templates``, ``read_resource``,
    ``subscribe_resource`` (``llmbridge.mcp.resources.requests``)."""

    def __init__(
        self,
        session: Any,
        *,
        where: str = "",
        name: str | None = None,
        boundary: _Boundary | None = None,
        watch: ResourceWatch | None = None,
    ) -> None:
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
        self.tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT
        """Seconds a tool call may take when the caller gives no ``timeout`` (``None``: the
        request ``timeout``; ``math.inf``: no limit)."""
        self.exited = False
        """True once the server's process (stdio) has exited."""
        self.on_progress: Any = None
        """The app's ``on_progress=`` (``llmbridge.mcp.connection.progress``), for tool calls."""
        self._boundary = boundary or _Boundary(where, None, name)
        """The server's process(es) and stderr log (stdio), for errors."""
        self._in_flight: set[anyio.CancelScope] = set()
        """One scope per request in flight: cancelled when the process exits."""
        self._init_resources(watch)

    def _process_exited(self) -> None:
        """The server's process exited: end every request in flight (see ``_request``)."""
        self.exited = self.lost = True
        for scope in self._in_flight:
            scope.cancel()
        self.watch.end(self._went_away("a resource subscription"))

    @contextlib.contextmanager
    def _request_scope(self) -> Iterator[anyio.CancelScope]:
        """A scope the process's exit cancels (at once if it has exited already)."""
        with anyio.CancelScope() as scope:
            if self.exited:
                scope.cancel()
            self._in_flight.add(scope)
            try:
                yield scope
            finally:
                self._in_flight.discard(scope)

    def _went_away(self, what: str) -> MCPError:
        return self._boundary.error(
            f"went away during {what}; it is restarted on the next call",
            kind=MCPConnectionLostError,
        )

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
            if self._boundary.processes and not self.exited:
                # its pipes closed: the process is likely exiting, and its exit cancels this
                # request (see _request), which then reports the exit status
                await anyio.sleep(_EXIT_GRACE)
            return self._boundary.error(
                f"is gone ({what}: {exc}); it is restarted on the next call",
                kind=MCPConnectionLostError,
            )
        error = MCPError(self._boundary.scrub(f"MCP server {self._label()}: {what} failed: {exc}"))
        error.server, error.where = self.name, self.where
        return error

    async def _request(self, what: str, make: Any, timeout: float | None = None) -> Any:
        timeout = self.timeout if timeout is None else timeout
        with self._request_scope():
            try:
                with anyio.fail_after(timeout) as deadline, pausable(deadline):
                    return await make()  # (its clock stops while an OAuth flow asks the user)
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
        raise self._went_away(what)  # the process exited: its scope was cancelled

    async def list_tools(self) -> list[MCPTool]:
        """Every tool of the server, following pagination cursors."""
        return [MCPTool(self, t, server=self.name) for t in await self.tool_definitions()]

    async def tool_definitions(self) -> list[Any]:
        """Every tool definition as the server sent it (the SDK's ``Tool`` objects), across
        pages: unlike ``list_tools``, nothing is built from their schemas yet."""
        return await self._all_pages("list_tools", "tools/list", "tools")

    async def _all_pages(self, method: str, what: str, attribute: str) -> list[Any]:
        """Every item of a paged listing (``llmbridge.mcp.connection.paging``)."""
        return await all_pages(
            self._request,
            self._page,
            method=method,
            what=what,
            attribute=attribute,
            server=self.name,
            where=self.where,
        )

    async def _page(self, method: str, cursor: str | None) -> Any:
        mcp = _import_mcp()
        if cursor is None:
            return await getattr(self.session, method)()
        params = mcp.types.PaginatedRequestParams(cursor=cursor)
        return await getattr(self.session, method)(params=params)

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any], *, timeout: float | None = None
    ) -> ToolOutput:
        """Call a tool on the server; ``MCPToolError`` when the server flags the result.
        Progress it reports reaches ``on_progress`` and the caller's telemetry span."""
        report = progress_reporter(
            self.on_progress,
            server=self.name,
            tool=name,
            span=current_span(),
            scrub=self._boundary.scrub,
        )
        progress = {"progress_callback": report} if report is not None else {}
        result = await self._request(
            f"tools/call {name!r}",
            lambda: self.session.call_tool(name, dict(arguments), **progress),
            timeout if timeout is not None else self.tool_timeout,
        )
        blocks, links, resources = tool_resources(  # bounded, before any base64 is decoded
            field_of(result, "content") or [], server=self.name
        )
        parts = content_parts(blocks)
        if field_of(result, "isError", "is_error"):
            text = "".join(p.text for p in parts if isinstance(p, TextPart)) or "tool failed"
            raise MCPToolError(text)
        data = field_of(result, "structuredContent", "structured_content")
        if not parts and data is not None:  # no text copy of it (optional): the model reads JSON
            parts = [TextPart(text=orjson.dumps(data).decode())]
        return MCPToolOutput(parts, data=data, links=links, resources=resources)

    async def list_prompts(self) -> list[Any]:
        """Every prompt the server offers (the SDK's ``Prompt`` objects), across pages; none
        for a server that did not announce the prompts capability."""
        if self.capabilities is not None and field_of(self.capabilities, "prompts") is None:
            return []
        return await self._all_pages("list_prompts", "prompts/list", "prompts")

    async def get_prompt(
        self, name: str, arguments: Mapping[str, str] | None = None
    ) -> list[ChatMessage]:
        """A prompt, filled in with ``arguments``, as ``ChatMessage``s."""
        args = {k: str(v) for k, v in (arguments or {}).items()}
        result = await self._request(
            f"prompts/get {name!r}", lambda: self.session.get_prompt(name, args)
        )
        return prompt_messages(result)
