"""The MCP client (optional extra ``llmbridge[mcp]``, built on the official ``mcp`` SDK).

Rules:

* Folders by concern: ``connection`` (one session: stdio, streamable HTTP, SSE; ``MCPConnection``
  and its ``MCPTool``s, progress, logs, paging, processes), ``oauth`` (the OAuth flow, token
  stores, the authorize hooks), ``sampling`` (answering ``sampling/createMessage`` with a model),
  ``resources`` (resources, templates, subscriptions, tool outputs), ``elicitation`` (elicitation
  and roots) and ``hub`` (``mcpServers`` config, ``MCPServer`` and the multi-server
  ``MCPServers`` / ``connect_mcp_servers``); ``errors``, ``content`` and the log helpers are shared.
* Every public name is exported here, loaded on first attribute access: importing
  ``llmbridge.mcp`` loads neither the ``mcp`` SDK nor any of its modules. The SDK is imported
  only when a connection is made.
* A name's home is its defining module, with this package's export counting as the same home;
  ``llmbridge`` re-exports the few the app needs most (``connect_mcp_servers``, the errors).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .connection.connect import connect_http, connect_stdio
    from .connection.connection import MCPConnection, MCPTool
    from .connection.progress import ProgressUpdate
    from .connection.transports import connect_remote, connect_sse
    from .elicitation.elicit import ElicitationAnswer, ElicitationContentError, ElicitationRequest
    from .elicitation.roots import MCPRoots
    from .errors import MCPConnectionLostError, MCPError, MCPTimeoutError, MCPToolError
    from .hub.catalog import MCPPrompt, MCPServerCatalog
    from .hub.config import MCPConfigError, load_mcp_config
    from .hub.server import MCPServer, ServerHub
    from .hub.servers import MCPServers, connect_mcp_servers
    from .hub.sync import SyncMCPServers
    from .oauth.flow import MCPAuthError, MCPOAuth
    from .oauth.hooks import browser_authorize, terminal_authorize
    from .oauth.store import FileTokenStore, InMemoryTokenStore, MCPTokenStore
    from .resources.model import (
        MCPResource,
        MCPResourceContents,
        MCPResourceTemplate,
        MCPResourceTooLargeError,
        MCPResourceUpdate,
        MCPToolOutput,
        resource_parts,
    )
    from .resources.watch import MCPResourceSubscription
    from .sampling.policy import MCPSamplingPolicy

_LAZY: dict[str, tuple[str, ...]] = {
    ".connection.connect": ("connect_http", "connect_stdio"),
    ".connection.connection": ("MCPConnection", "MCPTool"),
    ".connection.progress": ("ProgressUpdate",),
    ".connection.transports": ("connect_remote", "connect_sse"),
    ".elicitation.elicit": ("ElicitationAnswer", "ElicitationContentError", "ElicitationRequest"),
    ".elicitation.roots": ("MCPRoots",),
    ".errors": ("MCPConnectionLostError", "MCPError", "MCPTimeoutError", "MCPToolError"),
    ".hub.catalog": ("MCPPrompt", "MCPServerCatalog"),
    ".hub.config": ("MCPConfigError", "load_mcp_config"),
    ".hub.server": ("MCPServer", "ServerHub"),
    ".hub.servers": ("MCPServers", "connect_mcp_servers"),
    ".hub.sync": ("SyncMCPServers",),
    ".oauth.flow": ("MCPAuthError", "MCPOAuth"),
    ".oauth.hooks": ("browser_authorize", "terminal_authorize"),
    ".oauth.store": ("FileTokenStore", "InMemoryTokenStore", "MCPTokenStore"),
    ".resources.model": (
        "MCPResource",
        "MCPResourceContents",
        "MCPResourceTemplate",
        "MCPResourceTooLargeError",
        "MCPResourceUpdate",
        "MCPToolOutput",
        "resource_parts",
    ),
    ".resources.watch": ("MCPResourceSubscription",),
    ".sampling.policy": ("MCPSamplingPolicy",),
}
_WHERE = {name: module for module, names in _LAZY.items() for name in names}

__all__ = [
    "ElicitationAnswer",
    "ElicitationContentError",
    "ElicitationRequest",
    "FileTokenStore",
    "InMemoryTokenStore",
    "MCPAuthError",
    "MCPConfigError",
    "MCPConnection",
    "MCPConnectionLostError",
    "MCPError",
    "MCPOAuth",
    "MCPPrompt",
    "MCPResource",
    "MCPResourceContents",
    "MCPResourceSubscription",
    "MCPResourceTemplate",
    "MCPResourceTooLargeError",
    "MCPResourceUpdate",
    "MCPRoots",
    "MCPSamplingPolicy",
    "MCPServer",
    "MCPServerCatalog",
    "MCPServers",
    "MCPTimeoutError",
    "MCPTokenStore",
    "MCPTool",
    "MCPToolError",
    "MCPToolOutput",
    "ProgressUpdate",
    "ServerHub",
    "SyncMCPServers",
    "browser_authorize",
    "connect_http",
    "connect_mcp_servers",
    "connect_remote",
    "connect_sse",
    "connect_stdio",
    "load_mcp_config",
    "resource_parts",
    "terminal_authorize",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})
