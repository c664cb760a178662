"""What ``connect_mcp_servers`` shows of its servers besides tools: resources, resource
templates, and one catalog of each server's tools, prompts, resources and templates.
``MCPServers`` inherits these methods from ``ServerResources``.

Rules: every method goes through the server's live connection (a server that is gone is
restarted first, as for a tool call; one that never started raises its start-up error).
Listings come from each connection's cache (dropped when the server sends
``resources/list_changed``, so a changed list is listed again on the next call); servers that
are in ``failures`` are left out of the all-servers listings. ``catalog()`` is one dict,
server name → ``MCPServerCatalog``, in config order; a server whose resources or prompts
cannot be listed there has its error in ``error`` (the others are still shown).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import MCPError
from ..resources.model import (
    DEFAULT_MAX_RESOURCE_BYTES,
    MCPResource,
    MCPResourceContents,
    MCPResourceTemplate,
)
from ..resources.watch import MCPResourceSubscription, UpdateCallback

if TYPE_CHECKING:
    from ...tools.registry import ToolRegistry
    from ..sampling.context import SamplingContext
    from .server import MCPServer

__all__ = ["MCPPrompt", "MCPServerCatalog", "ServerResources"]


@dataclass(frozen=True, slots=True)
class MCPPrompt:
    """A prompt an MCP server offers (fetch it with ``MCPServers.get_prompt``; defined here,
    exported by ``llmbridge.mcp.hub.servers``)."""

    server: str
    name: str
    description: str | None
    arguments: list[dict[str, Any]]
    """``{"name", "description", "required"}`` per argument."""


@dataclass(frozen=True, slots=True)
class MCPServerCatalog:
    """One server's offer: the registry names of its tools, its prompts, its resources and
    resource templates."""

    server: str
    tools: list[str] = field(default_factory=list)
    """Names as registered (what the model sees)."""
    prompts: list[MCPPrompt] = field(default_factory=list)
    resources: list[MCPResource] = field(default_factory=list)
    templates: list[MCPResourceTemplate] = field(default_factory=list)
    error: MCPError | None = None
    """Why its prompts or resources could not be listed (``None``: they were)."""


class ServerResources:
    """Resource methods of ``MCPServers`` (see the module rules)."""

    if TYPE_CHECKING:
        servers: dict[str, MCPServer]
        failures: dict[str, MCPError]
        sampling_context: SamplingContext
        registry: ToolRegistry

        def _running(self, server: str) -> MCPServer: ...
        async def _server_prompts(self, name: str, server: MCPServer) -> list[MCPPrompt]: ...

    def _listed(self, server: str | None) -> list[str]:
        if server is not None:
            self._running(server)  # raises for an unknown server or one that never started
            return [server]
        return [n for n in self.servers if n not in self.failures]

    async def list_resources(
        self, server: str | None = None, *, refresh: bool = False
    ) -> list[MCPResource]:
        """The resources of one server, or of every running one (each names its server)."""
        found: list[MCPResource] = []
        for name in self._listed(server):
            connection = await self._running(name)._live()
            found.extend(await connection.list_resources(refresh=refresh))
        return found

    async def list_resource_templates(
        self, server: str | None = None, *, refresh: bool = False
    ) -> list[MCPResourceTemplate]:
        """The resource templates of one server, or of every running one."""
        found: list[MCPResourceTemplate] = []
        for name in self._listed(server):
            connection = await self._running(name)._live()
            found.extend(await connection.list_resource_templates(refresh=refresh))
        return found

    async def read_resource(
        self, server: str, uri: str, *, max_bytes: int = DEFAULT_MAX_RESOURCE_BYTES
    ) -> list[MCPResourceContents]:
        """A server's resource (``resource_parts(contents)`` for message parts)."""
        running = self._running(server)
        contents = await (await running._live()).read_resource(uri, max_bytes=max_bytes)
        for item in contents:  # kept for sampling requests' includeContext
            text = item.text if item.text is not None else f"[{item.mime_type or 'binary'}]"
            self.sampling_context.record_resource(server, item.uri, text, scrub=running.scrub)
        return contents

    @contextlib.asynccontextmanager
    async def subscribe_resource(
        self, server: str, uri: str, *, on_update: UpdateCallback | None = None
    ) -> AsyncIterator[MCPResourceSubscription]:
        """``MCPConnection.subscribe_resource`` on the server's live connection (it ends if
        that connection does: subscribe again after the restart)."""
        connection = await self._running(server)._live()
        async with connection.subscribe_resource(uri, on_update=on_update) as subscription:
            yield subscription

    async def catalog(self, servers: Iterable[str] | None = None) -> dict[str, MCPServerCatalog]:
        """Each running server's tools, prompts, resources and resource templates."""
        names = list(servers) if servers is not None else self._listed(None)
        out: dict[str, MCPServerCatalog] = {}
        for name in names:
            server = self._running(name)
            tools = [t for t in self.registry.names if self.registry.server_of(t) == name]
            try:
                connection = await server._live()
                prompts = await self._server_prompts(name, server)
                resources = await connection.list_resources()
                templates = await connection.list_resource_templates()
            except MCPError as exc:
                out[name] = MCPServerCatalog(name, tools, error=exc)
                continue
            out[name] = MCPServerCatalog(name, tools, prompts, resources, templates)
        return out
