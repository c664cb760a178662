"""What a connection does for a server besides tools: elicitation, roots, progress, logs.

``Interaction`` bundles the app's options of ``connect_stdio`` / ``connect_http`` /
``connect_mcp_servers`` (``elicit=``, ``roots=``, ``on_progress=``, ``log_level=``) and turns
them into the SDK's ``ClientSession`` callbacks (``session_options``) and the steps that
follow ``initialize`` (``start``). The rules of each live in its module:
``llmbridge.mcp.elicitation.elicit``, ``mcp_roots``, ``mcp_progress``.

Rules: server log messages always go to the ``llmbridge.mcp`` logger (scrubbed). Elicitation
is offered unless ``elicit=False`` (no ``elicit=``: offered, every request declined); roots
only with ``roots=`` (without: not offered, a server asking anyway is refused at once).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import anyio

from ..content import field_of
from ..elicitation.elicit import ElicitOption, elicitation_callback
from ..elicitation.roots import MCPRoots, RootLike, quiet_deprecations
from ..log_text import MAX_LOG_CHARS, log_text
from .progress import LogLevel, ProgressCallback, check_log_level, logging_callback

__all__ = ["Interaction", "roots_of"]

_log = logging.getLogger("llmbridge.mcp")


def roots_of(roots: MCPRoots | Iterable[RootLike] | None) -> MCPRoots | None:
    """``roots=`` as an ``MCPRoots`` (one given is shared as it is; ``None``: no roots)."""
    if roots is None or isinstance(roots, MCPRoots):
        return roots
    return MCPRoots(roots)


@dataclass(frozen=True, slots=True)
class Interaction:
    """The app's interaction options for one connection."""

    elicit: ElicitOption = None
    roots: MCPRoots | None = None
    on_progress: ProgressCallback | None = None
    log_level: LogLevel | None = None

    @classmethod
    def of(
        cls,
        *,
        elicit: ElicitOption = None,
        roots: MCPRoots | Iterable[RootLike] | None = None,
        on_progress: ProgressCallback | None = None,
        log_level: LogLevel | None = None,
    ) -> Interaction:
        """Checked options (a bad ``log_level`` or root is a ``UsageError`` now)."""
        return cls(elicit, roots_of(roots), on_progress, check_log_level(log_level))

    def session_options(self, *, server: str | None, scrub: Callable[[str], str]) -> dict[str, Any]:
        """The ``ClientSession`` keyword arguments these options need."""
        options: dict[str, Any] = {"logging_callback": logging_callback(server=server, scrub=scrub)}
        if self.elicit is not False:
            options["elicitation_callback"] = elicitation_callback(self.elicit, server=server)
        if self.roots is not None:
            options["list_roots_callback"] = self.roots.callback()
        return options

    async def start(
        self,
        session: Any,
        capabilities: Any,
        stack: contextlib.AsyncExitStack,
        *,
        server: Any,
        timeout: float | None,
    ) -> None:
        """After ``initialize``: ask for ``log_level`` (within ``timeout``), and serve roots
        changes to ``session`` until ``stack`` closes. A server that refuses the level, or
        does not answer in time, is logged, not fatal."""
        if self.roots is not None:
            stack.callback(self.roots.serve(session))
        if self.log_level is None or field_of(capabilities, "logging") is None:
            return
        try:
            with anyio.move_on_after(timeout) as scope, quiet_deprecations():
                await session.set_logging_level(self.log_level)
        except Exception as exc:
            why = log_text(exc, limit=MAX_LOG_CHARS)  # the server's words: one bounded line
            _log.warning("MCP server %r refused log level %r: %s", server, self.log_level, why)
            return
        if scope.cancelled_caught:
            _log.warning(
                "MCP server %r did not answer logging/setLevel within %s s", server, timeout
            )
