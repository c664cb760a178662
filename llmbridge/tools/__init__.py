"""Tools the app offers the model: specs, validation, registry, the tool loop, approvals.

Rules: ``ToolSpec`` itself is a request model (``llmbridge.tool_spec``, re-exported here and
by ``llmbridge``) and what it is made of (builders, schemas, argument validation,
``ToolContext``) lives beside it in ``llmbridge.specs``; this package holds everything that
uses specs, a floor up, and nothing below imports it back.
Importing the package is cheap: the decorator, ``ToolContext`` and the errors load eagerly;
the registry, results, the loop and approvals load on first attribute access. The MCP client
is ``llmbridge.mcp`` (a floor up: it uses the registry; its public names are importable from
``llmbridge.mcp`` and ``llmbridge``, no longer from here). Modules here import the shapes from
``llmbridge.messages`` / ``llmbridge.request``, never through ``llmbridge.types``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..specs.context import ToolContext as ToolContext
from ..specs.errors import ToolSchemaError as ToolSchemaError
from ..specs.errors import ToolSchemaWarning as ToolSchemaWarning
from ..tool_spec import ToolSpec as ToolSpec
from .decorator import Tool, tool
from .errors import ToolLimitError, ToolTimeoutError

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
    "ToolLimitError",
    "ToolLoop",
    "ToolOutput",
    "ToolRegistry",
    "ToolResult",
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


def __getattr__(name: str) -> Any:
    import importlib

    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
