"""What a tool's JSON schema can get wrong (re-exported by ``llmbridge.tools``).

Rules: ``ToolSchemaError`` is a ``ConfigurationError`` (a schema no provider accepts, or one we
cannot read: the app fixes it before anything is sent); ``ToolSchemaWarning`` is a warning
for the part of a schema that is not enforced.
"""

from __future__ import annotations

from ..errors import ConfigurationError

__all__ = ["ToolSchemaError", "ToolSchemaWarning"]


class ToolSchemaError(ConfigurationError, ValueError):
    """A tool's JSON schema is not one every provider accepts (or cannot be resolved)."""


class ToolSchemaWarning(UserWarning):
    """Part of a tool's schema is not enforced (e.g. a regex pattern only a backtracking engine
    could run); ``ToolSpec.schema_warnings`` lists them."""
