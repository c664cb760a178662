"""Errors of MCP connections, and the boundary that turns what leaves the SDK into them.

::

    LLMBridgeError
    ├── MCPToolError              the server flagged a tool result ``isError``
    └── MCPError                  a server cannot start, broke the protocol, or failed a request
        ├── MCPConnectionLostError    the server went away (process exited, session dropped)
        ├── MCPTimeoutError           a request got no answer in time
        └── MCPAuthError              OAuth failed or was refused (``llmbridge.mcp.oauth.flow``)

Rules: messages name the server (its name, command line or URL); start-up failures end with
the exit status (when known) and the tail of the server's stderr, also kept as attributes.
The boundary's secrets (what the config's ``${VAR}`` became, secret-named ``env`` and
``headers`` values) are scrubbed from the stderr tail and from every message it makes: a
server printing its token to stderr does not put it into ``str(err)`` or ``repr(err)``.
"""

from __future__ import annotations

import contextvars
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

import anyio

from ..errors import LLMBridgeError
from ..secrets import secret_scrubber

__all__ = ["MCPConnectionLostError", "MCPError", "MCPTimeoutError", "MCPToolError"]

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup  # type: ignore[import-not-found,unused-ignore]


class MCPToolError(LLMBridgeError):
    """The MCP server reported the tool call as failed (``isError``)."""


class MCPError(LLMBridgeError):
    """An MCP server could not be started or reached, stopped answering, or broke the protocol.
    The message names the server (its command line or URL) and, for stdio, ends with the tail
    of what it wrote to stderr; ``server``, ``where``, ``exit_status`` and ``stderr_tail`` hold
    the same (``None`` where unknown)."""

    server: str | None = None
    where: str | None = None
    exit_status: int | None = None
    http_status: int | None = None
    """The status of the server's last HTTP answer (streamable HTTP), when there was one."""
    stderr_tail: str | None = None


class MCPConnectionLostError(MCPError):
    """The server went away (process exited, HTTP session dropped) before or during a call."""


class MCPTimeoutError(MCPError, TimeoutError):
    """A request to the server took longer than its timeout."""


def _leaves(error: BaseException) -> Iterator[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from _leaves(inner)
    else:
        yield error


_SPAWNED: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "llmbridge_mcp_spawned", default=None
)


def _watch_spawns() -> None:
    """Let ``connect_stdio`` see the process the SDK spawns, for its exit status. The SDK
    has no hook for it; if its private spawner is renamed, exit statuses are just unknown."""
    from mcp.client import stdio

    spawn = getattr(stdio, "_create_platform_compatible_process", None)
    if spawn is None or getattr(spawn, "_llmbridge", False):
        return

    async def recording(*args: Any, **kwargs: Any) -> Any:
        process = await spawn(*args, **kwargs)
        seen = _SPAWNED.get()
        if seen is not None:
            seen.append(process)
        return process

    recording._llmbridge = True  # type: ignore[attr-defined]
    stdio._create_platform_compatible_process = recording


class _Boundary:
    """Turns what leaves an MCP connection into one exception a caller can catch."""

    def __init__(
        self,
        where: str,
        log: TextIO | None,
        name: str | None = None,
        *,
        secrets: Iterable[str] = (),
    ) -> None:
        self.where = where
        self.log = log
        self.name = name
        self.processes: list[Any] = []
        self.http_status: int | None = None
        """The status of the last answer from the server's endpoint (HTTP transports)."""
        self.scrub = secret_scrubber(secrets)
        """Removes the server's secrets from anything shown (stderr tail, messages)."""

    def stderr_tail(self) -> str | None:
        if self.log is None:
            return None
        try:
            self.log.flush()
            end = self.log.seek(0, os.SEEK_END)
            # the last 8000 bytes only (a long session's log may be huge); an offset inside a
            # character decodes as U+FFFD (the file is opened with errors="replace")
            self.log.seek(max(0, end - 8000))
            return self.scrub(str(self.log.read()))[-2000:].strip()[-800:]  # scrubbed whole
        except (OSError, ValueError):
            return None

    def exit_status(self) -> int | None:
        codes = [getattr(p, "returncode", None) for p in self.processes]
        return next((c for c in codes if c is not None), None)

    def error(
        self, what: str, cause: BaseException | None = None, kind: type[MCPError] = MCPError
    ) -> MCPError:
        """``kind`` (default ``MCPError``) saying ``MCP server <label> <what>``, then the exit
        status and the stderr tail where known."""
        detail = f": {type(cause).__name__}: {cause}" if cause is not None else ""
        label = f"{self.name!r} ({self.where})" if self.name else self.where
        status, tail = self.exit_status(), self.stderr_tail()
        text = f"MCP server {label} {what}{detail}"
        if status is not None:
            text += f"; it exited with status {status}"
        if self.http_status in (401, 403):
            text += (
                f"; it answered HTTP {self.http_status}: the credentials were refused (check "
                "the token in headers, or let it use OAuth)"
            )
        if tail is not None:
            text += f"; its stderr ends with: {tail!r}" if tail else "; it wrote nothing to stderr"
        error = kind(self.scrub(text))
        error.http_status = self.http_status
        error.server, error.where, error.exit_status, error.stderr_tail = (
            self.name,
            self.where,
            status,
            tail,
        )
        return error

    def unwrap(self, error: BaseException) -> BaseException:
        cancelled = anyio.get_cancelled_exc_class()
        leaves = [e for e in _leaves(error) if not isinstance(e, cancelled)]
        leaf = leaves[0] if leaves else error
        if isinstance(leaf, LLMBridgeError) or not _from_the_sdk(leaf):
            return leaf  # the app's own exception, or one of ours: as it was raised
        return self.error("failed", leaf)


def _sdk_error_class() -> type[Exception]:
    from mcp.shared import exceptions

    sdk = getattr(exceptions, "MCPError", None) or exceptions.McpError  # type: ignore[attr-defined,unused-ignore]  # 2.x / 1.x
    return sdk  # type: ignore[no-any-return]


def _from_the_sdk(error: BaseException) -> bool:
    """Errors of the MCP SDK or of its streams (the server went away), not of the app."""
    import httpx

    gone = (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream)
    http: tuple[type[BaseException], ...] = (httpx.HTTPError,)
    httpx2 = sys.modules.get("httpx2")  # what mcp 2.x speaks HTTP with (1.x: httpx)
    if httpx2 is not None:
        http += (httpx2.HTTPError,)
    return isinstance(error, (_sdk_error_class(), *gone, OSError, EOFError, *http))
