"""Tools the app offers the model: specs, validation, registry, the tool loop, approvals.

Rules: ``ToolSpec`` itself is a request model (``llmbridge.request``, re-exported here and in
``llmbridge.tools.spec``) and what it is made of (builders, schemas, argument validation,
``ToolContext``) lives beside it in ``llmbridge.specs``; this package holds everything that
uses specs, a floor up, and nothing below imports it back.
Importing the package is cheap: the decorator, ``ToolContext`` and the errors load eagerly;
the registry, results, the loop and approvals load on first attribute access. The MCP client
is ``llmbridge.mcp`` (a floor up: it uses the registry); the MCP names this package exported
before stay reachable here as attributes, for compatibility, outside ``__all__``. Modules here import the shapes from
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
    from .registry import ToolRegistry
    from .results import ToolOutput, ToolResult

__all__ = [
    "ApprovalDecision",
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
    "run_tool_loop",
    "tool",
]

_LAZY = {
    "ToolRegistry": "registry",
    "ToolResult": "results",
    "ToolOutput": "results",
    "ToolLoop": "loop",
    "run_tool_loop": "loop",
    "ApprovalDecision": "approval",
    "ToolApprovalRequest": "approval",
    "ToolApprovalError": "approval",
}


_MCP_NAMES = frozenset(
    (
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
        "browser_authorize",
        "connect_http",
        "connect_mcp_servers",
        "connect_remote",
        "connect_sse",
        "connect_stdio",
        "load_mcp_config",
        "resource_parts",
        "terminal_authorize",
    )
)
"""MCP names this package exported before the MCP client moved to ``llmbridge.mcp``: still
reachable as attributes (for compatibility), no longer listed in ``__all__``."""


def __getattr__(name: str) -> Any:
    import importlib

    if name in _MCP_NAMES:
        value = getattr(importlib.import_module("..mcp", __name__), name)
    else:
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
