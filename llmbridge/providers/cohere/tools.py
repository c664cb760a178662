"""``ToolSpec``s and ``ToolChoice`` → ``/v2/chat`` ``tools`` / ``tool_choice`` (pure).

Follows ``ToolV2`` of the ``cohere`` SDK: ``{"type": "function", "function": {"name",
"description", "parameters"}}``. ``tool_choice`` takes ``REQUIRED`` or ``NONE`` (nothing for
auto); a named tool is sent as ``REQUIRED`` with the tools cut down to that one (Cohere has no
named choice). A custom (freeform) tool is an ``UnsupportedFeatureError`` naming it.
"""

from __future__ import annotations

from typing import Any

from ...errors import UnsupportedFeatureError
from ...types import ToolChoice, ToolSpec

__all__ = ["encode_tool_choice", "encode_tools"]

_CHOICES = {"required": "REQUIRED", "none": "NONE", "tool": "REQUIRED"}


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


def encode_tool_choice(choice: ToolChoice) -> str | None:
    return _CHOICES.get(choice.mode)
