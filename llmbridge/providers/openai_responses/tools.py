"""Function tools and ``tool_choice`` for the Responses API (pure).

Follows https://platform.openai.com/docs/api-reference/responses/create (``tools``,
``tool_choice``). Rules: tools use the flat function shape (``type``, ``name``,
``description``, ``parameters``, ``strict``); the API treats a missing ``strict`` as true, so an
unset ``ToolSpec.strict`` is sent as ``false``. ``tool_choice`` is ``auto`` / ``none`` /
``required`` or ``{"type": "function", "name": ...}``.
"""

from __future__ import annotations

from typing import Any

from ...types import ToolChoice, ToolSpec

__all__ = ["encode_tool", "encode_tool_choice"]


def encode_tool(spec: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "name": spec.name,
        "description": spec.description,
        "parameters": spec.parameters,
        "strict": bool(spec.strict),
    }


def encode_tool_choice(choice: ToolChoice) -> str | dict[str, Any]:
    if choice.mode == "tool":
        return {"type": "function", "name": choice.name}
    return choice.mode
