"""Tools the app offers the model: specs, validation, registry, the tool loop, MCP.

Rules: ``ToolSpec`` itself is a request model (``llmbridge.tool_spec``, re-exported here and
by ``llmbridge``) and what it is made of (builders, schemas, argument validation,
``ToolContext``) lives beside it in ``llmbridge.specs``; this package holds everything that
uses specs, a floor up, and nothing below imports it back.
Importing the package is cheap: the decorator, ``ToolContext`` and the errors load eagerly;
the registry, results, the loop, approvals and MCP load on first attribute access. ``mcp`` itself is
imported only when an MCP connection is made. Modules here import the shapes from
``llmbridge.messages`` / ``llmbridge.request``, never through ``llmbridge.types``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..request import ToolSpec
from ..specs.context import ToolContext
from .decorator import Tool, tool
from .errors import ToolLimitError, ToolSchemaError, ToolSchemaWarning, ToolTimeoutError

if TYPE_CHECKING:
    from .approval import ApprovalDecision, ToolApprovalError, ToolApprovalRequest
    from .loop import ToolLoop, run_tool_loop
    from .mcp import MCPConnection, MCPTool, connect_http, connect_stdio
    from .mcp_catalog import MCPServerCatalog
    from .mcp_config import MCPConfigError, load_mcp_config
    from .mcp_elicitation import ElicitationAnswer, ElicitationContentError, ElicitationRequest
    from .mcp_errors import MCPConnectionLostError, MCPError, MCPTimeoutError, MCPToolError
    from .mcp_oauth import MCPAuthError, MCPOAuth
    from .mcp_oauth_hooks import browser_authorize, terminal_authorize
    from .mcp_oauth_store import FileTokenStore, InMemoryTokenStore, MCPTokenStore
    from .mcp_progress import ProgressUpdate
    from .mcp_resource_watch import MCPResourceSubscription
    from .mcp_resources import (
        MCPResource,
        MCPResourceContents,
        MCPResourceTemplate,
        MCPResourceTooLargeError,
        MCPResourceUpdate,
        MCPToolOutput,
        resource_parts,
    )
    from .mcp_roots import MCPRoots
    from .mcp_sampling_policy import MCPSamplingPolicy
    from .mcp_server import MCPServer
    from .mcp_servers import MCPPrompt, MCPServers, connect_mcp_servers
    from .mcp_transports import connect_remote, connect_sse
    from .registry import ToolRegistry
    from .results import ToolOutput, ToolResult

__all__ = [
    "ApprovalDecision",
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
    "Tool",
    "ToolApprovalError",
    "ToolApprovalRequest",
    "ToolContext",
    "ToolLimitError",
    "ToolLoop",
    "ToolOutput",
    "ToolRegistry",
    "ToolResult",
    "ToolSchemaError",
    "ToolSchemaWarning",
    "ToolSpec",
    "ToolTimeoutError",
    "browser_authorize",
    "connect_http",
    "connect_mcp_servers",
    "connect_remote",
    "connect_sse",
    "connect_stdio",
    "load_mcp_config",
    "resource_parts",
    "run_tool_loop",
    "terminal_authorize",
    "tool",
]

_LAZY = {
    "ToolRegistry": "registry",
    "ToolResult": "results",
    "ToolOutput": "results",
    "ToolLoop": "loop",
    "run_tool_loop": "loop",
    "MCPConnection": "mcp",
    "MCPTool": "mcp",
    "connect_http": "mcp",
    "connect_stdio": "mcp",
    "connect_sse": "mcp_transports",
    "connect_remote": "mcp_transports",
    "MCPOAuth": "mcp_oauth",
    "MCPAuthError": "mcp_oauth",
    "terminal_authorize": "mcp_oauth_hooks",
    "browser_authorize": "mcp_oauth_hooks",
    "MCPTokenStore": "mcp_oauth_store",
    "InMemoryTokenStore": "mcp_oauth_store",
    "FileTokenStore": "mcp_oauth_store",
    "MCPError": "mcp_errors",
    "MCPToolError": "mcp_errors",
    "MCPConnectionLostError": "mcp_errors",
    "MCPTimeoutError": "mcp_errors",
    "MCPConfigError": "mcp_config",
    "load_mcp_config": "mcp_config",
    "MCPPrompt": "mcp_servers",
    "MCPServer": "mcp_server",
    "MCPSamplingPolicy": "mcp_sampling_policy",
    "MCPServers": "mcp_servers",
    "connect_mcp_servers": "mcp_servers",
    "MCPServerCatalog": "mcp_catalog",
    "MCPResourceSubscription": "mcp_resource_watch",
    "MCPResource": "mcp_resources",
    "MCPResourceContents": "mcp_resources",
    "MCPResourceTemplate": "mcp_resources",
    "MCPResourceTooLargeError": "mcp_resources",
    "MCPResourceUpdate": "mcp_resources",
    "MCPToolOutput": "mcp_resources",
    "resource_parts": "mcp_resources",
    "ApprovalDecision": "approval",
    "ToolApprovalRequest": "approval",
    "ToolApprovalError": "approval",
    "ElicitationAnswer": "mcp_elicitation",
    "ElicitationContentError": "mcp_elicitation",
    "ElicitationRequest": "mcp_elicitation",
    "ProgressUpdate": "mcp_progress",
    "MCPRoots": "mcp_roots",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
