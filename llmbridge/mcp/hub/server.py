"""``MCPServer``: one configured MCP server kept alive for ``connect_mcp_servers``.

Rules: the connection lives in a supervisor task of the servers' task group (entered and left
in that task, as the SDK needs); ``start`` waits until it is initialised and its tools are
listed (within the start-up timeout). A connection found gone (``MCPConnection.lost``) is
replaced on the next use, under a lock so concurrent calls restart it once (the calls that
waited for a restart that failed get its error). Each incarnation has its own stop event: a
restart lets the old one shut down (process killed) on its own. A start that fails after
connecting (its tools cannot be listed) stops what it started and waits until that is shut
down before raising: no half-started connection is kept. A ``tools/list_changed`` flood costs
one listing at a time (``RefreshLoop``: one in flight, at most one follow-up, each bounded). A failed restart is reported in the
hub's ``failures`` (and its error says the restart failed) until a later call restarts the
server.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping
from typing import Any, Protocol

import anyio
from anyio.abc import TaskGroup, TaskStatus

from ...errors import LLMBridgeError
from ...secrets import secret_scrubber
from ...tools.approval import ApprovalRule, check_rule
from ..connection.connect import DEFAULT_TIMEOUT, connect_http, connect_stdio
from ..connection.connection import DEFAULT_TOOL_TIMEOUT, MCPConnection
from ..connection.transports import connect_remote, connect_sse
from ..content import field_of
from ..elicitation.roots import MCPRoots
from ..errors import MCPError, MCPTimeoutError, MCPToolError
from ..log_text import MAX_LOG_CHARS, log_text
from ..oauth.flow import entry_oauth
from ..sampling.callback import sampling_callback, sampling_capabilities
from ..sampling.context import SamplingContext
from .config import MCPHttpServerConfig, MCPServerConfig, MCPSseServerConfig
from .options import HubOptions
from .refresh import RefreshLoop

__all__ = ["MCPServer", "ServerHub"]

_log = logging.getLogger("llmbridge.mcp")


class ServerHub(Protocol):
    """What a server knows of the hub that owns it (``MCPServers``, which imports this module:
    the hub hands itself down, the server never imports it back). The server reads the hub's
    options and state, and tells it one thing: its tools changed."""

    @property
    def options(self) -> HubOptions: ...
    @property
    def sampling_context(self) -> SamplingContext: ...
    @property
    def failures(self) -> dict[str, MCPError]: ...
    @property
    def closed(self) -> bool: ...
    @property
    def task_group(self) -> TaskGroup: ...
    def on_tools_changed(self, server: str) -> None:
        """``server`` has listed its tools anew (``MCPServer.definitions``): register them."""


class MCPServer:
    """One configured server: its live connection, restarted when it is gone."""

    def __init__(self, name: str, config: MCPServerConfig, hub: ServerHub) -> None:
        self.name = name
        self.config = config
        self.connection: MCPConnection | None = None
        """The live connection (``None`` while it starts, or after a restart failed)."""
        self._latest: MCPConnection | None = None
        self.definitions: list[Any] = []
        """The server's tool definitions as last listed (``allowed_tools`` applied)."""
        self.starts = 0
        """Starts tried, the failed ones included."""
        self.ever_started = False
        """Whether a start ever succeeded (a server that never did is not retried)."""
        self._hub = hub
        self._stop = anyio.Event()
        self._lock = anyio.Lock()
        shared = hub.options.interaction.roots
        self.roots: MCPRoots | None = (
            MCPRoots(config.roots)
            if config.roots is not None
            else (MCPRoots(parent=shared) if shared is not None else None)
        )
        """Its roots: the config's, else following the connect-time ones (``None``: no roots
        capability announced)."""
        self.refresh = RefreshLoop(
            self._relist,
            server=name,
            timeout=config.startup_timeout or hub.options.timeouts.startup or DEFAULT_TIMEOUT,
        )
        """Listing its tools again on ``tools/list_changed`` (``llmbridge.mcp.hub.refresh``;
        bounded by its start-up timeout, 30 s when none is given)."""
        self._failed_restarts = 0
        self._restart_error: MCPError | None = None
        """Why the last restart failed (what the calls that waited for it are told)."""

    @property
    def latest(self) -> MCPConnection:
        """Its most recent connection (``.lost`` once gone: the next call starts a new one);
        what its ``MCPTool``s show as ``connection``. Only once a start got that far."""
        if self._latest is None:
            raise MCPError(f"MCP server {self.name!r} has not been connected yet")
        return self._latest

    async def _relist(self) -> None:
        """``tools/list_changed``: list its tools again and tell the hub (a failure is logged:
        the next call restarts and relists it)."""
        try:
            if self.name not in self._hub.failures:
                await self.list_tools()
            self._hub.on_tools_changed(self.name)
        except MCPError as exc:
            if not self._hub.closed:  # (once the block has ended, there is nothing to tell)
                why = log_text(exc, limit=MAX_LOG_CHARS)  # the server's own words, one line
                _log.warning("MCP server %r: listing its tools again failed: %s", self.name, why)

    def approval_for(self, tool: str) -> ApprovalRule | None:
        """The approval rule of one of this server's tools: ``connect_mcp_servers(approval=)``
        first, then the config's ``approval``."""
        rule = self._hub.options.approval.get(self.name)
        if rule is None:
            return self.config.approval_for(tool)
        if isinstance(rule, Mapping):
            return check_rule(rule.get(tool), where=f"{self.name}/{tool}")
        if isinstance(rule, (list, tuple, set, frozenset)):
            return "always" if tool in rule else "never"
        return check_rule(rule, where=f"MCP server {self.name!r}")

    def _session_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {"message_handler": self._on_message}
        hub, sampling = self._hub, self._hub.options.sampling
        if sampling.enabled:
            options["sampling_callback"] = sampling_callback(
                server=self.name,
                client=sampling.client,
                model=sampling.model,
                approve=hub.options.approve,
                models=list(sampling.models),
                exchanges=hub.sampling_context,
                policy=sampling.policy,
            )
            options["sampling_capabilities"] = sampling_capabilities(hub.sampling_context.grant)
        return options

    def _interaction(self) -> dict[str, Any]:
        """``connect_*``'s interaction options for this server (its config's first)."""
        given = self._hub.options.interaction
        return {
            "elicit": given.elicit,
            "roots": self.roots,
            "on_progress": given.on_progress,
            "log_level": self.config.log_level or given.log_level,
        }

    async def _on_message(self, message: Any) -> None:
        message = getattr(message, "root", message)  # mcp 1.x wraps notifications
        method = getattr(message, "method", None)
        if method == "notifications/tools/list_changed" and self.connection is not None:
            # (while it starts, connection is None: its start lists the tools anyway, and a
            # refresh then would take the connection for gone and start the server again)
            self.refresh.changed(self._hub.task_group)  # coalesced: one listing at a time

    def _connect(self) -> contextlib.AbstractAsyncContextManager[MCPConnection]:
        cfg, hub = self.config, self._hub
        startup = cfg.startup_timeout or hub.options.timeouts.startup
        if isinstance(cfg, MCPHttpServerConfig):
            connect = connect_remote if cfg.type_guessed else connect_http
            if isinstance(cfg, MCPSseServerConfig):
                connect = connect_sse
            return connect(
                cfg.url,
                headers=cfg.headers,
                auth=entry_oauth(cfg, hub.options.oauth),
                timeout=startup,
                name=self.name,
                session_options=self._session_options(),
                where=cfg.where,
                secrets=cfg.expanded_values,
                **self._interaction(),
            )
        return connect_stdio(
            cfg.command,
            cfg.args,
            env=cfg.env,
            cwd=cfg.cwd,
            timeout=startup,
            name=self.name,
            session_options=self._session_options(),
            where=cfg.where,
            secrets=cfg.expanded_values,
            **self._interaction(),
        )

    async def _supervise(
        self, stop: anyio.Event, ended: anyio.Event, *, task_status: TaskStatus[Any]
    ) -> None:
        connection: MCPConnection | None = None
        try:
            async with self._connect() as connection:
                connection.timeout = self.config.timeout or self._hub.options.timeouts.request
                connection.tool_timeout = self._tool_timeout()
                self.connection = self._latest = connection
                task_status.started()
                await stop.wait()
        except Exception:
            if connection is None:
                raise  # tg.start() re-raises it to whoever was starting the server
            # it died after starting: the next call finds the connection lost and restarts it
        finally:
            if connection is not None:
                connection.lost = True  # whatever ended this incarnation, it is over
            ended.set()

    async def start(self) -> None:
        """Start (or restart) the server and list its tools. If that fails, whatever was
        started is shut down (its process gone) before the error is raised."""
        self._stop.set()  # the previous incarnation, if any, shuts down in its own task
        self._stop = stop = anyio.Event()
        ended = anyio.Event()
        self.connection = None
        self.starts += 1
        try:
            await self._start(stop, ended)
        except BaseException as exc:
            self.connection = None
            stop.set()
            if isinstance(exc, Exception):  # cancelled: it shuts down on its own
                await ended.wait()
            raise
        self.ever_started = True

    async def _start(self, stop: anyio.Event, ended: anyio.Event) -> None:
        try:
            await self._hub.task_group.start(self._supervise, stop, ended)
        except Exception as exc:
            if isinstance(exc, LLMBridgeError):
                raise
            scrub = secret_scrubber(self.config.expanded_values)
            error = MCPError(scrub(f"MCP server {self.name!r} could not be started: {exc!r}"))
            error.server, error.where = self.name, self.config.where
            raise error from exc
        startup = self.config.startup_timeout or self._hub.options.timeouts.startup
        assert self.connection is not None
        with anyio.move_on_after(startup) as scope:
            await self._list(self.connection)  # this one, even if already lost: no restart
        if scope.cancelled_caught:
            error = MCPTimeoutError(
                f"MCP server {self.name!r} ({self.config.where}) did not list its tools within "
                f"{startup:g} s"
            )
            error.server, error.where = self.name, self.config.where
            raise error

    def _tool_timeout(self) -> float:
        """Seconds one of its tool calls may take: the entry's ``tool_timeout``, the app's,
        then the request timeouts, then ``DEFAULT_TOOL_TIMEOUT``."""
        cfg, hub = self.config, self._hub.options.timeouts
        given = cfg.tool_timeout or hub.tool or cfg.timeout or hub.request
        return given or DEFAULT_TOOL_TIMEOUT

    def stop(self) -> None:
        self._stop.set()

    async def list_tools(self) -> list[Any]:
        return await self._list(await self._live())

    async def _list(self, connection: MCPConnection) -> list[Any]:
        listed = await connection.tool_definitions()  # bad schemas: left out by the hub
        allowed = self.config.allowed_tools
        self.definitions = [
            d for d in listed if allowed is None or str(field_of(d, "name")) in allowed
        ]
        return self.definitions

    def _check_open(self) -> None:
        if self._hub.closed:
            raise MCPError(
                f"MCP server {self.name!r} was stopped: its connect_mcp_servers block has ended"
            )

    async def _live(self) -> MCPConnection:
        self._check_open()
        connection = self.connection
        if connection is not None and not connection.lost:
            return connection
        failed = self._failed_restarts
        async with self._lock:
            if self.connection is None or self.connection.lost:
                self._check_open()  # it may have ended while this call waited: start nothing
                cause = self._restart_error
                if self._failed_restarts != failed and cause is not None:
                    # the restart this call waited for failed: one restart per gone
                    # connection, as when it works (the next call tries again)
                    raise self._restart_failed(cause) from cause
                try:
                    await self.start()
                except MCPError as exc:
                    self._failed_restarts += 1
                    self._restart_error = exc
                    error = self._restart_failed(exc)
                    self._hub.failures[self.name] = error
                    raise error from exc
                self._hub.failures.pop(self.name, None)
                self._hub.on_tools_changed(self.name)
            assert self.connection is not None
            return self.connection

    def _restart_failed(self, cause: MCPError) -> MCPError:
        error = type(cause)(
            f"MCP server {self.name!r} was gone and restarting it failed (the next call tries "
            f"again): {cause}"
        )
        error.server, error.where = self.name, self.config.where
        error.exit_status, error.stderr_tail = cause.exit_status, cause.stderr_tail
        return error

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> Any:
        """Call ``name`` (the server's own tool name), reconnecting first if the server is gone;
        the exchange is kept for sampling requests' ``includeContext``."""
        connection = await self._live()
        context, scrub = self._hub.sampling_context, self.scrub
        try:
            output = await connection.call_tool(name, arguments)
        except MCPToolError as exc:
            context.record_call(self.name, name, arguments, str(exc), failed=True, scrub=scrub)
            raise
        context.record_call(self.name, name, arguments, output, failed=False, scrub=scrub)
        return output

    def scrub(self, text: str) -> str:
        """``text`` without this server's config secrets (``${VAR}`` values)."""
        return secret_scrubber(self.config.expanded_values)(text)
