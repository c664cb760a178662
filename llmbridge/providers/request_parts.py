"""Pieces of a request body that several providers build the same way (pure).

Rules:

* ``merge_fields(body, extra)`` lays ``extra`` over ``body`` in place: a dict laid over a dict
  is merged one level deep (``{**old, **new}``), anything else replaces. ``request.extra`` and
  model-specific fields are merged this way.
* ``has_tool_blocks(request)``: whether the history holds a tool call or a tool result (a
  provider that validates them needs its tools declared even with ``tool_choice="none"``).
* ``constrains(schema)``: whether a JSON schema says more than "an object" (properties, items,
  a union or a ``$ref``, or a type other than object); one that does not is sent as a plain
  JSON mode.
* ``encode_function_tools(tools, provider=…)``: ``ToolSpec``s in the common
  ``{"type": "function", "function": {"name", "description", "parameters"}}`` shape (Cohere
  v2, Ollama), the ``$schema`` key dropped; a custom (freeform) tool is an
  ``UnsupportedFeatureError`` naming it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import UnsupportedFeatureError
from ..parts import ToolCallPart, ToolResultPart
from ..request import ChatRequest
from ..tool_spec import ToolSpec

__all__ = ["constrains", "encode_function_tools", "has_tool_blocks", "merge_fields"]

_CONSTRAINING = ("properties", "items", "anyOf", "oneOf", "$ref")


def merge_fields(body: dict[str, Any], extra: Mapping[str, Any]) -> None:
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(body.get(key), dict):
            body[key] = {**body[key], **value}
        else:
            body[key] = value


def has_tool_blocks(request: ChatRequest) -> bool:
    return any(
        isinstance(p, ToolCallPart | ToolResultPart) for m in request.messages for p in m.content
    )


def constrains(schema: Mapping[str, Any]) -> bool:
    if any(k in schema for k in _CONSTRAINING):
        return True
    return schema.get("type") not in (None, "object")


def encode_function_tools(tools: list[ToolSpec], *, provider: str) -> list[dict[str, Any]]:
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
