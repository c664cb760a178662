"""Errors raised by the tools package (all under ``LLMBridgeError``).

::

    LLMBridgeError
    ├── ToolArgumentsError        (llmbridge.errors) arguments fail the tool's schema
    ├── ToolSchemaError           a JSON schema no provider accepts, or one we cannot read
    ├── ToolLimitError            a tool's max_invocations / max_exceptions is used up
    ├── ToolNotFoundError         no tool by that name in the registry (also a KeyError)
    └── ToolTimeoutError          a tool ran longer than the registry's timeout

Rules: messages name the tool and say what to do; they are fit to send back to the model. The
schema errors belong to the specs (``llmbridge.specs.errors``, a floor down) and are
re-exported here.
"""

from __future__ import annotations

import builtins

from ..errors import LLMBridgeError
from ..specs.errors import ToolSchemaError as ToolSchemaError
from ..specs.errors import ToolSchemaWarning as ToolSchemaWarning

__all__ = [
    "ToolLimitError",
    "ToolNotFoundError",
    "ToolTimeoutError",
]


class ToolLimitError(LLMBridgeError):
    """The tool may not be called again (``max_invocations`` or ``max_exceptions`` reached)."""

    def __init__(self, message: str, *, tool_name: str) -> None:
        super().__init__(message)
        self.tool_name = tool_name


class ToolNotFoundError(LLMBridgeError, KeyError):
    """No tool by that name is registered (a ``KeyError`` too, as it was before it had a type)."""

    def __init__(self, message: str, *, tool_name: str) -> None:
        super().__init__(message)
        self.tool_name = tool_name


class ToolTimeoutError(LLMBridgeError, builtins.TimeoutError):
    """The tool did not return within the registry's timeout."""

    def __init__(self, message: str, *, tool_name: str, timeout: float) -> None:
        super().__init__(message)
        self.tool_name = tool_name
        self.timeout = timeout
