"""MCP servers as tools (optional extra ``llmbridge[mcp]``, built on the official ``mcp`` SDK):
connecting. The session itself, ``MCPConnection`` and its ``MCPTool``s, is
``llmbridge.mcp.connection.connection``.

Rules:

* ``mcp`` is imported only when a connection is made; without it the error says which extra
  to install (the ``mcp`` extra asks for 2.3 or later; fields are read in camelCase and
  snake_case alike).
* ``connect_stdio`` starts the server as a subprocess, ``connect_http`` speaks streamable HTTP
  (``connect_sse``, the legacy HTTP+SSE transport, and ``auth=`` for both HTTP transports:
  ``llmbridge.mcp.connection.transports``); all are async context managers that initialise the session on entry and close the session,
  the transport and (stdio) the process on exit, with every process it left: its process
  group, and (Linux) descendants that started their own session (``setsid``, daemons), found
  by a tag in their environment and by walking ``/proc`` (``llmbridge.mcp.connection.processes``).
  Enter and leave them in the same task.
* The boundary is ours: whatever fails inside ``async with connect_*`` (the SDK's task groups
  wrap it in exception groups) leaves as the one exception that happened, and the SDK's own
  failures as ``MCPError`` naming the server (command and the tail of its stderr for stdio). A
  server that does not answer ``initialize`` within ``timeout`` seconds (silent, or printing
  non-JSON) is an ``MCPError``, never a hang. ``stderr=`` says where the server's stderr goes
  (default: kept for the error message). ``secrets=`` (and the values of ``env`` / ``headers``
  entries whose names say secret, such as ``API_TOKEN``) are scrubbed from that tail and from
  every error message.
* A stdio server's process is watched by a task waiting for it to exit (``_watch_exit``):
  when it exits, the requests in flight on it end at once (``initialize`` included), even if a
  child it left behind holds its stdout open so that the SDK never sees the end of it.
* ``elicit=``, ``roots=``, ``on_progress=`` and ``log_level=`` (``llmbridge.mcp.connection.interact``:
  elicitation, roots, progress and logs) become ``ClientSession`` callbacks; a server's log
  messages always reach the ``llmbridge.mcp`` logger, scrubbed.
* The transport's streams pass ``traffic.hooked_streams`` first: a test's recording may wrap
  them (record) or stand in for them, no server started (replay: ``llmbridge.testing``).
* ``session_options`` reach the SDK's ``ClientSession`` (``sampling_callback``,
  ``message_handler``, ...): how ``connect_mcp_servers`` answers sampling and hears
  ``tools/list_changed``.
"""

from __future__ import annotations

import contextlib
import functools
import shlex
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from typing import Any, TextIO
from urllib.parse import urlsplit

import anyio

from ...errors import LLMBridgeError
from ...secrets import named_secrets
from ..content import field_of
from ..elicitation.elicit import ElicitOption
from ..elicitation.roots import MCPRoots, RootLike
from ..errors import (
    _SPAWNED,
    _Boundary,
    _leaves,
    _watch_spawns,
)
from ..person_clock import pausable
from ..resources.watch import ResourceWatch
from .connection import MCPConnection, _import_mcp
from .http_auth import http_auth
from .interact import Interaction
from .processes import ServerProcesses
from .progress import LogLevel, ProgressCallback
from .traffic import hooked_streams

__all__ = ["DEFAULT_TIMEOUT", "connect_http", "connect_stdio", "remote_boundary"]

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup  # type: ignore[import-not-found,unused-ignore]

DEFAULT_TIMEOUT = 30.0
"""Seconds an MCP server has to answer ``initialize``."""


@contextlib.asynccontextmanager
async def _session(
    streams: Any,
    boundary: _Boundary,
    timeout: float | None,
    session_options: Mapping[str, Any] | None,
    before_stop: Callable[[], None] | None = None,
    interaction: Interaction | None = None,
) -> AsyncIterator[MCPConnection]:
    mcp = _import_mcp()
    interaction = interaction or Interaction()
    scrub = boundary.scrub
    options = {
        **interaction.session_options(server=boundary.name, scrub=scrub),
        **(session_options or {}),
    }
    raised: Exception | None = None  # by the app, in its ``async with`` block
    try:
        async with contextlib.AsyncExitStack() as stack:
            try:
                server = boundary.name or boundary.where  # a test's recording may stand in
                opened = await stack.enter_async_context(hooked_streams(server, streams, scrub))
                if before_stop is not None:  # runs before the transport stops the server
                    stack.callback(before_stop)
                read, write = opened[0], opened[1]
                watch = ResourceWatch(boundary.name)  # resource notifications, then the app's
                session = await stack.enter_async_context(
                    mcp.ClientSession(read, write, **watch.session_options(options))
                )
                stack.callback(watch.end)  # subscriptions still open end with the session
                connection = MCPConnection(
                    session,
                    where=boundary.where,
                    name=boundary.name,
                    boundary=boundary,
                    watch=watch,
                )
                connection.on_progress = interaction.on_progress
                watchers = await stack.enter_async_context(anyio.create_task_group())
                stack.callback(watchers.cancel_scope.cancel)  # on the way out, before the SDK's
                for process in boundary.processes:
                    watchers.start_soon(_watch_exit, process, connection)
                with (
                    connection._request_scope() as scope,
                    anyio.fail_after(timeout) as deadline,
                    pausable(deadline),  # not while an OAuth flow waits for the user
                ):
                    initialized = await session.initialize()
                if scope.cancelled_caught:
                    raise boundary.error("stopped before answering 'initialize'")
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
            connection.capabilities = field_of(initialized, "capabilities")
            with connection._request_scope():  # a server that exits meanwhile ends it
                await interaction.start(
                    session, connection.capabilities, stack, server=boundary.name, timeout=timeout
                )
            try:
                yield connection
            except Exception as exc:  # (cancellation: as before)
                raised = exc
                raise
    except BaseExceptionGroup as group:
        # the app's own exception leaves as itself, even of a kind the SDK raises too (OSError)
        if raised is not None and any(leaf is raised for leaf in _leaves(group)):
            raise raised from group
        raise boundary.unwrap(group) from group


async def _watch_exit(process: Any, connection: MCPConnection) -> None:
    """Wait for a stdio server's process to exit, then end the requests in flight on it."""
    try:
        await process.wait()  # anyio: returns on exit, even while a child holds the pipes
    except Exception:  # a process object that cannot be waited for: the end of its stdout
        return  # is then the only sign, as before
    connection._process_exited()


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
    secrets: Iterable[str] = (),
    elicit: ElicitOption = None,
    roots: MCPRoots | Iterable[RootLike] | None = None,
    on_progress: ProgressCallback | None = None,
    log_level: LogLevel | None = None,
) -> AsyncIterator[MCPConnection]:
    """Start an MCP server process and connect to it over stdin/stdout.

    ``timeout``: seconds the server has to answer ``initialize``. ``stderr``: a file for the
    server's stderr (default: a temporary one, whose tail ends any ``MCPError``). ``name``:
    the server's name in errors and on its tools. ``where``: how errors show the server
    (default: its command line; pass one without secrets if ``args`` hold any). ``secrets``:
    strings scrubbed from the stderr tail and error messages, besides the values of ``env``
    entries whose names say secret. ``elicit``, ``roots``, ``on_progress``, ``log_level``:
    see ``llmbridge.mcp.connection.interact``."""
    mcp = _import_mcp()
    interaction = Interaction.of(
        elicit=elicit, roots=roots, on_progress=on_progress, log_level=log_level
    )
    from mcp.client.stdio import stdio_client

    _watch_spawns()
    processes = ServerProcesses()
    params = mcp.StdioServerParameters(
        command=command,
        args=list(args),
        env=processes.environment(dict(env) if env is not None else None),
        cwd=cwd,
    )
    with contextlib.ExitStack() as files:
        log = stderr
        if log is None:
            log = files.enter_context(
                tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
            )
        where = where or shlex.join([command, *args])
        hidden = {*secrets, *named_secrets((env or {}).items())}
        boundary = _Boundary(where, log if stderr is None else None, name, secrets=hidden)
        token = _SPAWNED.set(boundary.processes)
        try:
            transport = stdio_client(params, errlog=log)
            remember = functools.partial(_remember, processes, boundary.processes)
            async with _session(
                transport, boundary, timeout, session_options, remember, interaction
            ) as connection:
                yield connection
        finally:
            _SPAWNED.reset(token)
            # the SDK kills the group only when the server itself outlives the grace period:
            # children of a server that exited promptly, and those that left the group
            # (setsid), would be orphans
            processes.kill_leftovers(_pids(boundary.processes))


async def _note_status(boundary: _Boundary, url: str, response: Any) -> None:
    """Keep the status of the endpoint's answers (not the OAuth flow's), for errors."""
    sent, endpoint = urlsplit(str(response.request.url)), urlsplit(url)
    if (sent.netloc, sent.path) == (endpoint.netloc, endpoint.path):
        boundary.http_status = response.status_code


def remote_boundary(
    url: str,
    headers: Mapping[str, str] | None,
    *,
    where: str | None,
    name: str | None,
    secrets: Iterable[str],
) -> _Boundary:
    """How a remote server shows in errors (``where``, default its URL), with ``secrets`` and
    the secret-named ``headers`` values scrubbed from them."""
    hidden = {*secrets, *named_secrets((headers or {}).items())}
    return _Boundary(where or url, None, name, secrets=hidden)


def _pids(processes: Sequence[Any]) -> list[int]:
    return [p.pid for p in processes if getattr(p, "pid", None)]


def _remember(processes: ServerProcesses, spawned: Sequence[Any]) -> None:
    processes.remember(_pids(spawned))


@contextlib.asynccontextmanager
async def connect_http(
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    auth: Any = None,
    timeout: float | None = DEFAULT_TIMEOUT,
    name: str | None = None,
    session_options: Mapping[str, Any] | None = None,
    where: str | None = None,
    secrets: Iterable[str] = (),
    elicit: ElicitOption = None,
    roots: MCPRoots | Iterable[RootLike] | None = None,
    on_progress: ProgressCallback | None = None,
    log_level: LogLevel | None = None,
) -> AsyncIterator[MCPConnection]:
    """Connect to an MCP server over streamable HTTP (``auth``: an ``MCPOAuth``, an
    ``httpx2.Auth`` or an ``httpx.Auth``, see ``llmbridge.mcp.connection.transports``;
    ``timeout``: for ``initialize``; ``where``: how errors show the server, default its URL;
    ``secrets``: scrubbed from error messages, besides secret-named ``headers`` values; the
    interaction options as for ``connect_stdio``)."""
    _import_mcp()
    interaction = Interaction.of(
        elicit=elicit, roots=roots, on_progress=on_progress, log_level=log_level
    )
    boundary = remote_boundary(url, headers, where=where, name=name, secrets=secrets)
    sdk_auth = http_auth(auth, url, boundary, name=name)
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    client = create_mcp_http_client(headers=dict(headers or {}), auth=sdk_auth)
    client.event_hooks["response"].append(functools.partial(_note_status, boundary, url))
    transport = streamable_http_client(url, http_client=client)
    session = _session(transport, boundary, timeout, session_options, None, interaction)
    async with client, session as conn:
        yield conn
