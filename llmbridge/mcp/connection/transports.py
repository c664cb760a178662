"""The legacy HTTP+SSE transport (``connect_sse``) and what both HTTP transports take as
``auth=``.

Rules:

* Transports there are: stdio (``connect_stdio``), streamable HTTP (``connect_http``) and the
  HTTP+SSE transport of protocol 2024-11-05 (``connect_sse``: a ``GET`` event stream that
  names the endpoint messages are ``POST``ed to), each the ``mcp`` package's own client. The
  package has no WebSocket client, so neither has llmbridge.
* ``auth=`` takes an ``MCPOAuth`` (a provider is made for the server's URL: see
  ``llmbridge.mcp.oauth.flow``), any ``httpx2.Auth`` (what the ``mcp`` package speaks HTTP
  with; an ``OAuthClientProvider`` you built yourself, for one), or an ``httpx.Auth`` (every
  auth of ``llmbridge.auth``): ``llmbridge.mcp.connection.http_auth``. ``headers`` with a static
  ``Authorization`` keep working, and are scrubbed from errors.
* ``connect_remote`` is what an ``mcpServers`` entry with a ``url`` and no ``type`` uses, as
  the MCP specification advises for servers that may be older: streamable HTTP first, and
  when the server answers its ``initialize`` with HTTP 400, 404 or 405, the SSE transport on
  the same URL. If that fails too, the error of the first attempt is raised (the likelier one).
* An OAuth provider's secrets (tokens, codes, verifiers, client secrets) are scrubbed from the
  connection's errors, besides the ``secrets=`` and secret-named ``headers`` values.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any

from ..elicitation.elicit import ElicitOption
from ..elicitation.roots import MCPRoots, RootLike
from ..errors import MCPError
from .connect import DEFAULT_TIMEOUT, _session, connect_http, remote_boundary
from .connection import MCPConnection, _import_mcp
from .http_auth import http_auth
from .interact import Interaction
from .progress import LogLevel, ProgressCallback

__all__ = ["SSE_READ_TIMEOUT", "connect_remote", "connect_sse"]

SSE_READ_TIMEOUT = 300.0
"""Seconds the SSE stream may stay silent before the connection counts as gone."""


@contextlib.asynccontextmanager
async def connect_sse(
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    auth: Any = None,
    timeout: float | None = DEFAULT_TIMEOUT,
    sse_read_timeout: float = SSE_READ_TIMEOUT,
    name: str | None = None,
    session_options: Mapping[str, Any] | None = None,
    where: str | None = None,
    secrets: Iterable[str] = (),
    elicit: ElicitOption = None,
    roots: MCPRoots | Iterable[RootLike] | None = None,
    on_progress: ProgressCallback | None = None,
    log_level: LogLevel | None = None,
) -> AsyncIterator[MCPConnection]:
    """Connect to an MCP server over the legacy HTTP+SSE transport (``url``: its event stream,
    often ending in ``/sse``). ``auth``: see the module rules; ``timeout``: seconds for
    ``initialize`` (and each HTTP request); ``sse_read_timeout``: seconds the stream may be
    silent; ``where``: how errors show the server (default its URL); ``secrets``: scrubbed from
    error messages, besides secret-named ``headers`` values; the interaction options as for
    ``connect_stdio``)."""
    _import_mcp()
    from mcp.client.sse import sse_client

    interaction = Interaction.of(
        elicit=elicit, roots=roots, on_progress=on_progress, log_level=log_level
    )
    boundary = remote_boundary(url, headers, where=where, name=name, secrets=secrets)
    transport = sse_client(
        url,
        headers=dict(headers or {}),
        timeout=timeout or DEFAULT_TIMEOUT,
        sse_read_timeout=sse_read_timeout,
        auth=http_auth(auth, url, boundary, name=name),
    )
    session = _session(transport, boundary, timeout, session_options, None, interaction)
    async with session as connection:
        yield connection


_NOT_STREAMABLE = (400, 404, 405)
"""What an SSE-only server answers a ``POST`` of ``initialize`` with (the spec's examples)."""


@contextlib.asynccontextmanager
async def connect_remote(url: str, **options: Any) -> AsyncIterator[MCPConnection]:
    """Streamable HTTP, or the SSE transport for a server that refuses it (module rules);
    ``options`` as for ``connect_http``."""
    async with contextlib.AsyncExitStack() as stack:
        try:
            connection = await stack.enter_async_context(connect_http(url, **options))
        except MCPError as exc:
            if exc.http_status not in _NOT_STREAMABLE:
                raise
            try:
                connection = await stack.enter_async_context(connect_sse(url, **options))
            except MCPError:
                raise exc from exc.__cause__  # (the SSE attempt's error: its __context__)
        yield connection
