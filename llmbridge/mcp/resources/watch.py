"""Resource notifications of one MCP session: ``resources/updated`` to subscriptions,
``resources/list_changed`` to the connection's cached lists.

Rules:

* ``ResourceWatch`` wraps the session's ``message_handler`` (the app's or the hub's handler
  still gets every message after it). It never blocks the SDK's receive loop: an update is put
  on each matching subscription's queue and the call returns.
* An update matches a subscription for the same URI, or for a URI it is a sub-resource of
  (the subscribed URI followed by ``/``, ``?`` or ``#``), as the MCP spec allows.
* ``MCPResourceSubscription`` is an async iterator of ``MCPResourceUpdate``s; an ``on_update``
  callback (sync or async) gets them too, run in the subscription's own task, one at a time;
  one that raises is logged (``llmbridge.mcp``) and keeps getting later updates. Queues are
  bounded: updates of a URI already waiting are merged into that one (an update only says
  "read it again"), and past ``MAX_PENDING`` distinct URIs the oldest is dropped with a
  warning.
* When the connection ends (its ``async with`` block, or a stdio server's process exiting),
  iteration ends: with ``MCPConnectionLostError`` if the server went away, otherwise it stops.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias

import anyio

from ..errors import MCPError
from ..log_text import MAX_NAME_CHARS, log_text
from .model import MCPResourceUpdate

__all__ = ["MAX_PENDING", "MCPResourceSubscription", "ResourceWatch", "UpdateCallback"]

_log = logging.getLogger("llmbridge.mcp")

MAX_PENDING = 1024
"""Distinct URIs a subscription's queue holds before it drops the oldest."""

UpdateCallback: TypeAlias = Callable[[MCPResourceUpdate], "Awaitable[None] | None"]

_UPDATED = "notifications/resources/updated"
_LIST_CHANGED = "notifications/resources/list_changed"


class _Queue:
    """Pending updates, one per URI, oldest first; ``get`` waits for one or for the end."""

    def __init__(self, label: str) -> None:
        self._pending: dict[str, MCPResourceUpdate] = {}
        self._wake = anyio.Event()
        self._label = label
        self.ended = False
        self.error: MCPError | None = None
        self.dropped = 0
        """Updates dropped because too many were waiting."""

    def put(self, update: MCPResourceUpdate) -> None:
        if self.ended or update.uri in self._pending:
            return
        if len(self._pending) >= MAX_PENDING:
            dropped = next(iter(self._pending))
            del self._pending[dropped]
            self.dropped += 1
            if self.dropped == 1:  # once: a flood would otherwise flood the log too
                _log.warning(
                    "%s: more than %d updates waiting; dropping the oldest (first: %s)",
                    self._label,
                    MAX_PENDING,
                    log_text(repr(dropped), limit=MAX_NAME_CHARS),  # the server's URI
                )
        self._pending[update.uri] = update
        self._wake.set()

    def end(self, error: MCPError | None) -> None:
        if not self.ended:
            self.ended, self.error = True, error
            self._wake.set()

    async def get(self) -> MCPResourceUpdate | None:
        """The next update; ``None`` once the queue has ended and is drained."""
        while True:
            if self._pending:
                uri = next(iter(self._pending))
                return self._pending.pop(uri)
            if self.ended:
                return None
            wake = self._wake
            await wake.wait()
            if self._wake is wake:
                self._wake = anyio.Event()


class MCPResourceSubscription:
    """Updates of one subscribed resource (``async for update in subscription``)."""

    def __init__(
        self, uri: str, *, server: str | None, on_update: UpdateCallback | None = None
    ) -> None:
        self.uri = uri
        self.server = server
        label = f"MCP server {server!r}: subscription to {uri!r}"
        self._updates = _Queue(label)
        self.on_update = on_update
        self._callback_queue = _Queue(label) if on_update is not None else None
        self._label = label

    def matches(self, uri: str) -> bool:
        if uri == self.uri:
            return True
        return uri.startswith(self.uri) and uri[len(self.uri)] in "/?#"

    def _deliver(self, update: MCPResourceUpdate) -> None:
        self._updates.put(update)
        if self._callback_queue is not None:
            self._callback_queue.put(update)

    def _end(self, error: MCPError | None = None) -> None:
        self._updates.end(error)
        if self._callback_queue is not None:
            self._callback_queue.end(error)

    def __aiter__(self) -> MCPResourceSubscription:
        return self

    async def __anext__(self) -> MCPResourceUpdate:
        update = await self._updates.get()
        if update is not None:
            return update
        if self._updates.error is not None:
            raise self._updates.error
        raise StopAsyncIteration

    async def _pump(self) -> None:
        """Run the app's ``on_update`` on each update, in order (the subscription's task)."""
        queue, callback = self._callback_queue, self.on_update
        if queue is None or callback is None:
            return
        while (update := await queue.get()) is not None:
            try:
                result = callback(update)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                _log.exception("%s: on_update raised", self._label)

    def __repr__(self) -> str:
        return f"MCPResourceSubscription({self.uri!r} of {self.server!r})"


class ResourceWatch:
    """Routes one session's resource notifications (see the module rules)."""

    def __init__(self, server: str | None) -> None:
        self.server = server
        self.subscriptions: list[MCPResourceSubscription] = []
        self.list_changes = 0
        """``resources/list_changed`` notifications heard so far."""
        self.on_list_changed: list[Callable[[], None]] = []
        """Called (synchronously) on each ``resources/list_changed``."""
        self.ended = False

    def session_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """``options`` with a ``message_handler`` that hears resource notifications first."""
        out = dict(options or {})
        out["message_handler"] = self._handler(out.get("message_handler"))
        return out

    def _handler(self, inner: Any) -> Callable[[Any], Awaitable[None]]:
        async def handle(message: Any) -> None:
            self.heard(message)
            if inner is not None:
                await inner(message)

        return handle

    def heard(self, message: Any) -> None:
        message = getattr(message, "root", message)  # mcp 1.x wraps notifications
        method = getattr(message, "method", None)
        if method == _UPDATED:
            uri = str(getattr(getattr(message, "params", None), "uri", ""))
            update = MCPResourceUpdate(self.server, uri)
            matched = [s for s in self.subscriptions if s.matches(uri)]
            for subscription in matched:
                subscription._deliver(update)
            if not matched:
                _log.debug("MCP server %r: update of %r, not subscribed", self.server, uri)
        elif method == _LIST_CHANGED:
            self.list_changes += 1
            for listener in list(self.on_list_changed):
                listener()

    def add(self, subscription: MCPResourceSubscription) -> bool:
        """Add it; whether it is the first for its URI (so ``resources/subscribe`` is due)."""
        first = not any(s.uri == subscription.uri for s in self.subscriptions)
        self.subscriptions.append(subscription)
        return first

    def remove(self, subscription: MCPResourceSubscription) -> bool:
        """Remove it; whether it was the last for its URI (so ``resources/unsubscribe`` is
        due)."""
        if subscription in self.subscriptions:
            self.subscriptions.remove(subscription)
        return not any(s.uri == subscription.uri for s in self.subscriptions)

    def end(self, error: MCPError | None = None) -> None:
        """The connection is over: every subscription's iteration ends."""
        self.ended = True
        for subscription in self.subscriptions:
            subscription._end(error)
