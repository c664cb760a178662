"""``SyncClient.connect_mcp_servers``: the many-servers context for blocking scripts.

Rules: the servers run on the ``SyncClient``'s own event loop (its blocking portal), entered
and left in one task there, so ``client.run(..., tools=servers.registry)`` calls them on the
loop that owns their sessions. ``SyncMCPServers`` mirrors ``MCPServers`` with blocking
methods (resources and the catalog included; a resource subscription takes an ``on_update``
callback, run on that loop); the registry is the same object (pass it to ``client.run``; calling MCP tools
directly from the script's thread goes through ``servers.call``, which uses the portal, not
``registry.call``, which would start a second event loop the sessions do not belong to).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from anyio.from_thread import BlockingPortal

from ...messages import ChatMessage
from ...tools.registry import ToolRegistry

if TYPE_CHECKING:
    from ..elicitation.roots import RootLike
    from ..errors import MCPError
    from ..resources.model import MCPResource, MCPResourceContents, MCPResourceTemplate
    from ..resources.watch import UpdateCallback
    from .catalog import MCPPrompt, MCPServerCatalog
    from .servers import MCPServers

__all__ = ["SyncMCPServers", "sync_mcp_servers"]


class SyncMCPServers:
    """Blocking view of ``MCPServers`` (see ``connect_mcp_servers``)."""

    def __init__(self, portal: BlockingPortal, servers: MCPServers) -> None:
        self._portal = portal
        self.servers = servers
        """The async object, for anything not mirrored here."""

    @property
    def registry(self) -> ToolRegistry:
        return self.servers.registry

    @property
    def failures(self) -> dict[str, MCPError]:
        return self.servers.failures

    def subset(
        self, servers: Iterable[str] | None = None, tools: Iterable[str] | None = None
    ) -> ToolRegistry:
        return self.servers.subset(servers, tools)

    def call(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        """Run a tool of the registry on the servers' loop and return its result."""
        return self._portal.call(self.registry.acall, name, arguments)

    def refresh(self, server: str | None = None) -> None:
        self._portal.call(self.servers.refresh, server)

    def list_prompts(self) -> list[MCPPrompt]:
        return self._portal.call(self.servers.list_prompts)

    def get_prompt(
        self, server: str, name: str, arguments: Mapping[str, str] | None = None
    ) -> list[ChatMessage]:
        return self._portal.call(self.servers.get_prompt, server, name, arguments)

    def roots(self, server: str | None = None) -> list[str]:
        return self.servers.roots(server)

    def set_roots(self, roots: Iterable[RootLike], *, server: str | None = None) -> None:
        """``MCPServers.set_roots``, blocking."""
        self._portal.call(functools.partial(self.servers.set_roots, roots, server=server))

    def list_resources(self, server: str | None = None) -> list[MCPResource]:
        return self._portal.call(self.servers.list_resources, server)

    def list_resource_templates(self, server: str | None = None) -> list[MCPResourceTemplate]:
        return self._portal.call(self.servers.list_resource_templates, server)

    def read_resource(
        self, server: str, uri: str, *, max_bytes: int | None = None
    ) -> list[MCPResourceContents]:
        read = functools.partial(self.servers.read_resource, server, uri)
        if max_bytes is not None:
            read = functools.partial(read, max_bytes=max_bytes)
        return self._portal.call(read)

    def catalog(self) -> dict[str, MCPServerCatalog]:
        return self._portal.call(self.servers.catalog)

    @contextlib.contextmanager
    def subscribe_resource(
        self, server: str, uri: str, *, on_update: UpdateCallback
    ) -> Iterator[None]:
        """Hear about changes to ``uri`` while the block runs: ``on_update`` is called on the
        servers' loop (keep it quick, or hand the update to your thread)."""
        subscribe = self.servers.subscribe_resource(server, uri, on_update=on_update)
        with self._portal.wrap_async_context_manager(subscribe):
            yield


@contextlib.contextmanager
def sync_mcp_servers(
    portal: BlockingPortal, config: Any, options: Mapping[str, Any]
) -> Iterator[SyncMCPServers]:
    from .servers import connect_mcp_servers

    with portal.wrap_async_context_manager(connect_mcp_servers(config, **options)) as servers:
        yield SyncMCPServers(portal, servers)
