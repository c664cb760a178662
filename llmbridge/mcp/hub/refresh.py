"""Listing a server's tools again when it says they changed (``tools/list_changed``),
coalesced: a flood of notifications costs one listing at a time, not one task each.

Rules: ``RefreshLoop.changed()`` (called from the session's notification handler, never
blocking) starts one refresh task when none runs; while one runs, it only sets a "changed
again" flag, so a burst of any size makes at most one follow-up listing once the running one
ends. Each listing is bounded by ``timeout`` seconds (a server that never answers the refresh
is logged and left with its old tool list); errors are the job's to report.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import anyio
from anyio.abc import TaskGroup

__all__ = ["RefreshLoop"]

_log = logging.getLogger("llmbridge.mcp")


class RefreshLoop:
    """One refresh in flight plus at most one follow-up (see the module rules)."""

    def __init__(
        self, job: Callable[[], Awaitable[None]], *, server: str, timeout: float | None
    ) -> None:
        self.job = job
        self.server = server
        self.timeout = timeout
        """Seconds one listing may take (``None``: no bound)."""
        self.running = False
        """Whether a refresh task is running."""
        self.again = False
        """Whether the list changed again since the running listing began."""
        self.runs = 0
        """Listings started so far."""

    def changed(self, tg: TaskGroup) -> None:
        """The server said its tools changed: refresh, or mark the running refresh stale."""
        if self.running:
            self.again = True
            return
        self.running = True
        tg.start_soon(self._run)

    async def _run(self) -> None:
        try:
            while True:
                self.again = False
                self.runs += 1
                with anyio.move_on_after(self.timeout) as scope:
                    await self.job()
                if scope.cancelled_caught:
                    _log.warning(
                        "MCP server %r: listing its tools again got no answer within %g s; "
                        "its tools stay as they were",
                        self.server,
                        self.timeout,
                    )
                if not self.again:
                    return
        finally:
            self.running = False
