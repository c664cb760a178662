"""``ToolSpec``s → ``/api/chat`` ``tools`` (pure).

Follows ``Tool`` of the ``ollama`` client (``{"type": "function", "function": {"name",
"description", "parameters"}}``, the parameters a JSON schema). A custom (freeform) tool
(``ToolSpec.input_format``) cannot be declared: ``UnsupportedFeatureError`` naming it.
"""

from __future__ import annotations

from typing import Any

from ...errors import UnsupportedFeatureError
from ...types import ToolSpec

__all__ = ["encode_tools"]


def encode_tools(tools: list[ToolSpec], *, provider: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for tool in tools:
        if tool.input_format is not None:
            raise UnsupportedFeatureError(
                f"tool {tool.name!r} is a custom (freeform) tool, which {provider} cannot "
                "declare: use spec.as_function() or tool_mode='prompt'",
                provider=provider,
            )
        function: dict[str, Any] = {"name": tool.name}
        if tool.description:
            function["description"] = tool.description
        function["parameters"] = {k: v for k, v in tool.parameters.items() if k != "$schema"}
        out.append({"type": "function", "function": function})
    return out
