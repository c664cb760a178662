"""``connect_mcp_servers``: every server of an ``mcpServers`` config, one ``ToolRegistry``.

Rules:

* The config is read and checked first (``load_mcp_config``): a bad entry raises before any
  server starts. Servers then start concurrently; each lives in its own supervisor task (the
  SDK's task groups and the process stay in that task), so one server's failure or death
  never cancels the app or the other servers.
* A server that fails to start is left out and reported in ``failures`` (server name →
  ``MCPError`` with command, exit status when known and stderr tail); with ``fail_fast=True``
  the first failure (in config order) is raised once every server is stopped again.
* Tools are listed once per server and cached; a server's ``notifications/tools/list_changed``
  or ``await servers.refresh()`` lists them again, and the server tells the hub through
  ``on_tools_changed`` (the ``ServerHub`` protocol of ``llmbridge.mcp.hub.server``: the only
  way a server reaches its hub). Names follow ``llmbridge.mcp.hub.names`` (unique across
  servers, within provider rules, and stable: a tool keeps its name for the life of the
  ``async with`` block, and a newcomer that clashes gets the prefixed name);
  ``allowed_tools`` hides the rest; ``approval`` and
  ``timeout`` / ``tool_timeout`` come from the server's entry (also from
  ``connect_mcp_servers``; a tool call gets 60 s when neither says).
* A call to a server whose connection is gone is an ``MCPConnectionLostError`` (the tool loop
  turns it into an ``is_error`` result); the next call starts it again (stdio: a new process;
  HTTP: a new session) and lists its tools again. If that restart fails (listing its tools
  included), what it started is stopped, the call's error says the restart failed and why,
  and the server is in ``failures`` until a later call restarts it (its tools stay registered
  meanwhile, so calling one tries again).
* ``elicit``, ``roots``, ``on_progress`` and ``log_level`` reach every server
  (``llmbridge.mcp.connection.interact``); a config entry's ``roots`` / ``log_level`` win for its
  server. ``set_roots`` changes roots while servers run.
* Leaving the ``async with`` (normally, by an exception or by cancellation) stops every server:
  stdin closed, a grace period, then the process group killed (the SDK's shutdown, shielded
  from cancellation). No process outlives the block.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any

import anyio
from anyio.abc import TaskGroup

from ...errors import LLMBridgeError, UsageError
from ...messages import ChatMessage
from ...tool_spec import TOOL_NAME_PATTERN
from ...tools.approval import Approver
from ...tools.registry import ToolRegistry
from ..connection.connect import DEFAULT_TIMEOUT
from ..connection.connection import MCPConnection, MCPTool, _import_mcp
from ..connection.interact import Interaction
from ..connection.progress import LogLevel, ProgressCallback
from ..elicitation.elicit import ElicitOption
from ..elicitation.roots import MCPRoots, RootLike
from ..errors import MCPError, _leaves
from ..log_text import MAX_LOG_CHARS, MAX_NAME_CHARS, log_text
from ..oauth.flow import MCPOAuth
from ..sampling.context import ContextGrant, SamplingContext
from ..sampling.policy import MCPSamplingPolicy
from .catalog import MCPPrompt, ServerResources
from .config import MCPServerConfig, load_mcp_config
from .names import assign_tool_names
from .options import HubOptions, SamplingOptions, ServerApproval, Timeouts, checked_options
from .server import MCPServer

__all__ = ["MCPServers", "connect_mcp_servers"]

_log = logging.getLogger("llmbridge.mcp")
_NAMESPACE = re.compile(TOOL_NAME_PATTERN)
"""A server name that can name a namespace of its deferred tools (as a tool name)."""

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup  # type: ignore[import-not-found,unused-ignore]


class MCPServers(ServerResources):
    """What ``connect_mcp_servers`` yields: the servers, their tools, their failures; their
    resources and a catalog of each (``llmbridge.mcp.hub.catalog``)."""

    def __init__(
        self, configs: Mapping[str, MCPServerConfig], options: HubOptions | None = None
    ) -> None:
        self.options = options = options or HubOptions()
        """What ``connect_mcp_servers`` was told besides the config (``llmbridge.mcp.hub.options``)."""
        self.sampling_context = SamplingContext(options.sampling.grant)
        """Each server's recent exchanges, for sampling requests' ``includeContext``
        (``llmbridge.mcp.sampling.context``)."""
        self.registry = ToolRegistry(approve=options.approve)
        """Every tool of every running server (``registry.subset(...)`` for one agent's)."""
        self.failures: dict[str, MCPError] = {}
        """Servers that could not be started: name → the error (command, status, stderr).
        Also a running server whose restart failed, until a later call restarts it."""
        self.servers = {name: MCPServer(name, cfg, self) for name, cfg in configs.items()}
        self._mine: dict[str, tuple[str, Any]] = {}
        """Registered name → (server, definition) of the tools this object registered."""
        self._tg: TaskGroup | None = None
        self.closed = False
        """True once the ``connect_mcp_servers`` block has ended (every server stopped)."""
        self._settled = False
        """True once every server was started once: tool names are kept from then on."""
        for name in configs:
            self.registry.declare_server(name)

    @property
    def task_group(self) -> TaskGroup:
        """The task group the servers' supervisor tasks run in (the ``async with`` block's)."""
        if self._tg is None:
            raise MCPError("the MCP servers are not running: use 'async with connect_mcp_servers'")
        return self._tg

    def on_tools_changed(self, server: str) -> None:
        """``server`` listed its tools anew (a restart, ``tools/list_changed``): register every
        server's cached tools again (``ServerHub``'s method: how a server tells its hub)."""
        if server not in self.servers:
            raise MCPError(f"no MCP server named {server!r} here (servers: {sorted(self.servers)})")
        self._rebuild()

    def subset(
        self, servers: Iterable[str] | None = None, tools: Iterable[str] | None = None
    ) -> ToolRegistry:
        """``registry.subset(servers, tools)``."""
        return self.registry.subset(servers, tools)

    def connection(self, server: str) -> MCPConnection:
        """The live connection of a running server (its SDK session is ``.session``)."""
        connection = self._running(server).connection
        if connection is None or connection.lost:
            failure = self.failures.get(server)
            raise MCPError(
                f"MCP server {server!r} is not running" + (f": {failure}" if failure else "")
            )
        return connection

    async def _start_one(self, server: MCPServer) -> None:
        try:
            await server.start()
        except MCPError as exc:
            self.failures[server.name] = exc

    async def _start_all(self) -> None:
        async with anyio.create_task_group() as starters:
            for server in self.servers.values():
                starters.start_soon(self._start_one, server)
        for name in self.failures:
            self.servers[name].stop()
        self._rebuild()
        self._settled = True  # names given from now on are kept (see _rebuild)

    def _stop_all(self) -> None:
        self.closed = True
        for server in self.servers.values():
            server.stop()

    def _rebuild(self) -> None:
        """Register the cached tool lists again under names unique across servers (a server
        whose restart failed keeps its tools, so calling one tries again; one that never
        started has none)."""
        running = self.servers
        lists = {
            n: [str(getattr(d, "name", "")) for d in s.definitions] for n, s in running.items()
        }
        apps = [n for n in self.registry.names if n not in self._mine]  # the app's own tools
        # stable once every server has started: nothing is renamed mid-conversation (a list
        # change heard while servers start does not fix names that depend on start order)
        given = {(server, str(d.name)): name for name, (server, d) in self._mine.items()}
        names = assign_tool_names(lists, reserved=apps, keep=given if self._settled else None)
        wanted = {
            names[(server_name, str(d.name))]: (server_name, d)
            for server_name, server in running.items()
            for d in server.definitions
        }
        for name, origin in list(self._mine.items()):
            if wanted.get(name) != origin:  # gone, renamed or redefined: made again below
                del self._mine[name]
                if name in self.registry:
                    self.registry.unregister(name)
        for server_name, server in running.items():
            for definition in server.definitions:
                name = names[(server_name, str(definition.name))]
                if name in self._mine:
                    continue  # unchanged: keeps its registry entry, and so its counts
                connection = server.latest  # listed, so connected once at least
                try:
                    tool = MCPTool(
                        connection, definition, name=name, server=server_name, mcp_server=server
                    )
                except LLMBridgeError as exc:  # a schema no provider accepts: leave it out
                    shown = log_text(definition.name, limit=MAX_NAME_CHARS)  # the server's
                    why = log_text(exc, limit=MAX_LOG_CHARS)  # own words: one bounded line
                    _log.warning("MCP server %r: tool '%s' left out: %s", server_name, shown, why)
                    continue
                tool.approval = server.approval_for(tool.remote_name)
                if self._deferred(server_name):  # grouped by server where names allow
                    space = server_name if _NAMESPACE.fullmatch(server_name) else None
                    tool.tool_spec = tool.tool_spec.deferred(namespace=space)
                self.registry.register(tool)
                self._mine[name] = (server_name, definition)

    def _deferred(self, server: str) -> bool:
        """Whether ``server``'s tools are deferred (``connect_mcp_servers(defer_loading=)``,
        else its config entry's ``defer_loading``)."""
        wanted = self.options.defer_loading
        if wanted is None:
            return self.servers[server].config.defer_loading
        if isinstance(wanted, bool):
            return wanted
        return server in wanted

    async def refresh(self, server: str | None = None) -> None:
        """List tools again (one server, or every running one) and update the registry."""
        if server is not None and server not in self.servers:
            self._running(server)  # raises: no such server
        names = [server] if server is not None else list(self.servers)
        for name in names:
            if name not in self.failures:
                await self.servers[name].list_tools()
        self._rebuild()

    def roots(self, server: str | None = None) -> list[str]:
        """The root URIs every server follows (or ``server``'s own, when its config has
        ``roots``); ``[]`` where no roots were given."""
        given = self.options.interaction.roots if server is None else self._known(server).roots
        return given.uris if given is not None else []

    async def set_roots(self, roots: Iterable[RootLike], *, server: str | None = None) -> None:
        """Replace the roots of every server that follows the connect-time ones (or, with
        ``server``, that server's alone: it stops following them) and send each running one
        ``notifications/roots/list_changed``. The roots capability is announced when a
        connection starts: ``connect_mcp_servers(roots=...)`` (``[]`` will do) or a config's
        ``roots`` must have been given, else ``UsageError``."""
        target = self.options.interaction.roots if server is None else self._known(server).roots
        if target is None:
            which = "the servers" if server is None else f"MCP server {server!r}"
            raise UsageError(
                f"{which} were started without roots, so they were not told the client has "
                "any: pass connect_mcp_servers(roots=[...]) ([] will do) or give the config "
                "entry 'roots'"
            )
        await target.set(roots)

    def _known(self, server: str) -> MCPServer:
        if server not in self.servers:
            raise MCPError(f"no MCP server named {server!r} here (servers: {sorted(self.servers)})")
        return self.servers[server]

    async def list_prompts(self) -> list[MCPPrompt]:
        """Every prompt of every running server."""
        prompts: list[MCPPrompt] = []
        for name, server in self.servers.items():
            if name not in self.failures:
                prompts.extend(await self._server_prompts(name, server))
        return prompts

    async def _server_prompts(self, name: str, server: MCPServer) -> list[MCPPrompt]:
        connection = await server._live()
        prompts: list[MCPPrompt] = []
        for p in await connection.list_prompts():
            arguments = [
                {"name": a.name, "description": a.description, "required": bool(a.required)}
                for a in (p.arguments or [])
            ]
            prompts.append(MCPPrompt(name, p.name, p.description, arguments))
        return prompts

    async def get_prompt(
        self, server: str, name: str, arguments: Mapping[str, str] | None = None
    ) -> list[ChatMessage]:
        """A server's prompt, filled in with ``arguments``, as ``ChatMessage``s."""
        connection = await self._running(server)._live()
        return await connection.get_prompt(name, arguments)

    def _running(self, server: str) -> MCPServer:
        if server in self.failures and not self.servers[server].ever_started:
            raise self.failures[server]
        if server not in self.servers:
            raise MCPError(f"no MCP server named {server!r} here (servers: {sorted(self.servers)})")
        return self.servers[server]


@contextlib.asynccontextmanager
async def connect_mcp_servers(
    config: Mapping[str, Any] | str | os.PathLike[str],
    *,
    fail_fast: bool = False,
    approve: Approver | None = None,
    approval: Mapping[str, ServerApproval] | None = None,
    defer_loading: bool | Iterable[str] | None = None,
    client: Any = None,
    sampling_model: Any = None,
    timeout: float | None = None,
    startup_timeout: float | None = DEFAULT_TIMEOUT,
    tool_timeout: float | None = None,
    environ: Mapping[str, str] | None = None,
    sampling_models: Iterable[Any] = (),
    elicit: ElicitOption = None,
    roots: MCPRoots | Iterable[RootLike] | None = None,
    on_progress: ProgressCallback | None = None,
    log_level: LogLevel | None = None,
    oauth: MCPOAuth | None = None,
    sampling_context: ContextGrant = "thisServer",
    sampling_policy: MCPSamplingPolicy | None = None,
) -> AsyncIterator[MCPServers]:
    """Start every enabled server of an ``mcpServers`` config (a dict or a JSON file path).

    ``approve``: the app's approver for tools that need approval and for sampling requests.
    ``approval``: per server, which tools need approval, overriding the config's ``approval``:
    ``"always"``, ``"never"``, a list of tool names, or ``{tool: rule}`` (rules as for
    ``@tool(approval=...)``, so callables on the arguments work here).
    ``defer_loading``: ``True`` defers every server's tools (``ToolSpec.defer_loading``: a
    ``ToolSearch`` among the tools loads them), a list of server names those servers'; ``None``
    (the default) leaves it to each entry's ``defer_loading``. A deferred server's tools are in
    a namespace named after it (``ToolSpec.namespace``, when the name can name a tool).
    ``client`` + ``sampling_model`` (``"provider:model"`` or any model reference the client
    takes): answer servers' sampling requests with that model.
    ``timeout``: seconds per request unless a server's entry says otherwise;
    ``tool_timeout``: seconds per tool call (default ``timeout``, else
    ``DEFAULT_TOOL_TIMEOUT``, 60 s; a call that takes longer is an ``MCPTimeoutError``, an
    ``is_error`` result for the model); ``startup_timeout``: seconds to answer ``initialize``. ``environ``: where ``${VAR}`` is
    looked up (default ``os.environ``).
    ``sampling_models``: models sampling requests choose from by their ``modelPreferences``,
    cheapest first (``llmbridge.mcp.sampling.models``). ``sampling_context``: how much
    of this session's exchanges a sampling request's ``includeContext`` may add
    (``"thisServer"``, the default: the asking server's own; ``"allServers"``; ``"none"``;
    ``llmbridge.mcp.sampling.context``). ``sampling_policy``: an ``MCPSamplingPolicy``
    (token ceiling, default 8,192; the app's system prompt, the server's quoted as its own;
    temperature range). ``elicit``: the app's callback
    for servers asking the user (``llmbridge.mcp.elicitation.elicit``; ``None``: every request
    declined; ``False``: elicitation not offered). ``roots``: the roots
    every server without its own config ``roots`` gets (``set_roots`` changes them).
    ``on_progress``: tool call progress. ``log_level``: asked of every server that logs (a
    config's ``log_level`` first). ``oauth``: how remote servers that ask for OAuth are
    authorized (an ``MCPOAuth``: the app's ``authorize`` hook and token store); with it, every
    HTTP server without an ``Authorization`` header uses OAuth when it answers 401."""
    configs = load_mcp_config(config, environ=environ)
    interaction = Interaction.of(
        elicit=elicit, roots=roots, on_progress=on_progress, log_level=log_level
    )
    _import_mcp()  # without the extra: one clear error, before anything starts
    defer_loading = checked_options(configs, approval=approval, defer_loading=defer_loading)
    options = HubOptions(
        approve=approve,
        approval=dict(approval or {}),
        defer_loading=tuple(defer_loading) if isinstance(defer_loading, list) else defer_loading,
        timeouts=Timeouts(timeout, startup_timeout, tool_timeout),
        sampling=SamplingOptions(
            client, sampling_model, tuple(sampling_models), sampling_context, sampling_policy
        ),
        interaction=interaction,
        oauth=oauth,
    )
    servers = MCPServers(configs, options)
    try:
        async with anyio.create_task_group() as tg:
            servers._tg = tg
            try:
                await servers._start_all()
                if fail_fast and servers.failures:
                    first = next(n for n in configs if n in servers.failures)
                    raise servers.failures[first]
                yield servers
            finally:
                servers._stop_all()
    except BaseExceptionGroup as group:  # the task group's wrapping: raise what happened
        cancelled = anyio.get_cancelled_exc_class()
        leaves = [e for e in _leaves(group) if not isinstance(e, cancelled)]
        raise (leaves[0] if leaves else group) from None
