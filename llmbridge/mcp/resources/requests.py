"""The resource requests of an ``MCPConnection`` (it inherits them from ``ResourceRequests``),
made through the ``mcp`` package's ``ClientSession``.

Rules:

* ``list_resources`` / ``list_resource_templates`` follow pagination cursors to the end
  (``llmbridge.mcp.connection.paging``: a cursor that comes back, or too many pages, is an
  ``MCPError``) and cache the result; a ``notifications/resources/list_changed`` from the server drops the cache,
  so the next call lists again (``refresh=True`` always does). A server that did not announce
  the resources capability has none (no request is sent).
* ``read_resource(uri)`` returns the contents as ``MCPResourceContents`` (a read may return
  several, for sub-resources), bounded by ``max_bytes`` (``MCPResourceTooLargeError``).
* ``subscribe_resource(uri, on_update=...)`` is an async context manager: ``resources/subscribe``
  on entry (one per URI however many subscriptions share it), ``resources/unsubscribe`` on exit
  (when the last one for the URI leaves and the server is still there). It yields an
  ``MCPResourceSubscription`` (async iterator of updates); ``on_update`` (sync or async) also
  gets each one. A server without ``resources.subscribe`` is an ``MCPError`` at once. These are
  the 2025-era requests (``initialize``-negotiated sessions, which ``connect_*`` makes); the
  ``mcp`` package marks its ``subscribe_resource`` deprecated for 2026-07-28 sessions, so the
  same ``SubscribeRequest`` is sent through ``send_request`` without the warning.
* Errors are the connection's (``MCPError`` family, scrubbed, naming the server).
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import anyio

from ..content import field_of
from ..errors import MCPError, _leaves
from ..log_text import MAX_LOG_CHARS, log_text
from .model import (
    DEFAULT_MAX_RESOURCE_BYTES,
    MCPResource,
    MCPResourceContents,
    MCPResourceTemplate,
    contents_of,
)
from .watch import MCPResourceSubscription, ResourceWatch, UpdateCallback

if TYPE_CHECKING:
    from ..errors import _Boundary

__all__ = ["ResourceRequests"]

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup  # type: ignore[import-not-found,unused-ignore]

_log = logging.getLogger("llmbridge.mcp")

_UNSUBSCRIBE_TIMEOUT = 5.0
"""Seconds ``resources/unsubscribe`` may take when a subscription ends."""


class ResourceRequests:
    """Resource methods of ``MCPConnection`` (see the module rules)."""

    watch: ResourceWatch
    _resources: list[MCPResource] | None
    _templates: list[MCPResourceTemplate] | None

    if TYPE_CHECKING:
        name: str | None
        where: str
        session: Any
        _boundary: _Boundary
        capabilities: Any
        lost: bool

        async def _request(self, what: str, make: Any, timeout: float | None = None) -> Any: ...
        async def _all_pages(self, method: str, what: str, attribute: str) -> list[Any]: ...

    def _init_resources(self, watch: ResourceWatch | None) -> None:
        self.watch = watch or ResourceWatch(self.name)
        self._resources = self._templates = None
        self.watch.on_list_changed.append(self._forget_resources)

    def _forget_resources(self) -> None:
        self._resources = self._templates = None

    def _offers(self, what: str | None = None) -> bool:
        if self.capabilities is None:
            return True  # unknown: ask
        resources = field_of(self.capabilities, "resources")
        if resources is None:
            return False
        return what is None or bool(field_of(resources, what))

    async def list_resources(self, *, refresh: bool = False) -> list[MCPResource]:
        """Every resource the server lists (all pages; cached until the server says the list
        changed, or ``refresh=True``)."""
        if self._resources is None or refresh:
            if not self._offers():
                return []
            changes = self.watch.list_changes
            listed = await self._all_pages("list_resources", "resources/list", "resources")
            found = [MCPResource.from_mcp(r, server=self.name) for r in listed]
            if changes != self.watch.list_changes:
                return found  # changed while listing: give it, cache nothing
            self._resources = found
        return list(self._resources)

    async def list_resource_templates(self, *, refresh: bool = False) -> list[MCPResourceTemplate]:
        """Every resource template the server lists (all pages; cached like
        ``list_resources``)."""
        if self._templates is None or refresh:
            if not self._offers():
                return []
            changes = self.watch.list_changes
            listed = await self._all_pages(
                "list_resource_templates", "resources/templates/list", "resource_templates"
            )
            found = [MCPResourceTemplate.from_mcp(t, server=self.name) for t in listed]
            if changes != self.watch.list_changes:
                return found
            self._templates = found
        return list(self._templates)

    async def read_resource(
        self,
        uri: str,
        *,
        max_bytes: int = DEFAULT_MAX_RESOURCE_BYTES,
        timeout: float | None = None,
    ) -> list[MCPResourceContents]:
        """The contents of ``uri`` (``MCPResourceTooLargeError`` past ``max_bytes``)."""
        result = await self._request(
            f"resources/read {uri!r}", lambda: self.session.read_resource(uri), timeout
        )
        try:
            return contents_of(
                field_of(result, "contents") or [], server=self.name, max_bytes=max_bytes
            )
        except MCPError as exc:  # the URI may hold a secret the boundary knows
            exc.message = self._boundary.scrub(exc.message)
            exc.args = (exc.message,)
            exc.where = self.where
            raise

    async def _subscription_request(self, kind: str, uri: str) -> None:
        import mcp.types as types

        request: Any
        if kind == "subscribe":
            request = types.SubscribeRequest(params=types.SubscribeRequestParams(uri=uri))
        else:
            request = types.UnsubscribeRequest(params=types.UnsubscribeRequestParams(uri=uri))
        await self._request(
            f"resources/{kind} {uri!r}",
            lambda: self.session.send_request(request, types.EmptyResult),
        )

    @contextlib.asynccontextmanager
    async def subscribe_resource(
        self, uri: str, *, on_update: UpdateCallback | None = None
    ) -> AsyncIterator[MCPResourceSubscription]:
        """Hear about changes to ``uri`` while the block runs (see the module rules)."""
        if not self._offers("subscribe"):
            error = MCPError(f"MCP server {self.name!r} does not offer resource subscriptions")
            error.server = self.name
            raise error
        subscription = MCPResourceSubscription(uri, server=self.name, on_update=on_update)
        if self.watch.add(subscription):
            try:
                await self._subscription_request("subscribe", uri)
            except BaseException:
                self.watch.remove(subscription)
                raise
        raised: Exception | None = None  # by the app, in its ``async with`` block
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(subscription._pump)  # never raises: on_update errors are logged
                try:
                    yield subscription
                except Exception as exc:
                    raised = exc
                    raise
                finally:
                    subscription._end()
                    tg.cancel_scope.cancel()  # updates not yet handed to on_update: dropped
        except BaseExceptionGroup as group:  # the task group's wrapping of the app's error
            if raised is not None and any(leaf is raised for leaf in _leaves(group)):
                raise raised from None
            raise
        finally:
            if self.watch.remove(subscription) and not self.lost and not self.watch.ended:
                with anyio.CancelScope(shield=True), anyio.move_on_after(_UNSUBSCRIBE_TIMEOUT):
                    try:
                        await self._subscription_request("unsubscribe", uri)
                    except MCPError as exc:  # gone meanwhile: nothing left to unsubscribe
                        why = log_text(exc, limit=MAX_LOG_CHARS)
                        _log.debug("MCP server %r: unsubscribe %r failed: %s", self.name, uri, why)
