"""Function and custom tools, and ``tool_choice``, for the Responses API (pure).

Follows https://platform.openai.com/docs/api-reference/responses/create (``tools``,
``tool_choice``) and the openai SDK's ``FunctionToolParam`` / ``CustomToolParam``. Rules:

* function tools use the flat function shape (``type``, ``name``, ``description``,
  ``parameters``, ``strict``); the API treats a missing ``strict`` as true, so an unset
  ``ToolSpec.strict`` is sent as ``false``;
* a custom (freeform) tool (``ToolSpec.input_format`` set) is ``{"type": "custom", "name",
  "description", "format"}`` with ``format`` ``{"type": "text"}`` or the flat grammar
  ``{"type": "grammar", "syntax", "definition"}`` (Chat Completions nests it; this API does
  not); no description is left out rather than sent empty;
* a deferred spec (``ToolSpec.defer_loading``) carries ``defer_loading: true`` (a tool search
  loads it: ``tool_search.py``);
* ``tool_choice`` is ``auto`` / ``none`` / ``required`` or ``{"type": "function", "name": ...}``;
* parameters are checked against the schema bounds (``llmbridge.specs.schema_bounds``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...request import ToolChoice
from ...specs.schema_bounds import check_schema_bounds
from ...tool_spec import CustomToolFormat, ToolSpec

__all__ = ["encode_custom_format", "encode_tool", "encode_tool_choice"]


def encode_custom_format(fmt: CustomToolFormat) -> dict[str, Any]:
    """The SDK's ``CustomToolInputFormat``: ``Text`` or (flat) ``Grammar``."""
    if fmt.type == "text":
        return {"type": "text"}
    return {"type": "grammar", "syntax": fmt.syntax, "definition": fmt.definition}


def encode_tool(spec: ToolSpec) -> dict[str, Any]:
    if spec.input_format is not None:
        tool: dict[str, Any] = {"type": "custom", "name": spec.name}
        if spec.description:
            tool["description"] = spec.description
        tool["format"] = encode_custom_format(spec.input_format)
    else:
        tool = {
            "type": "function",
            "name": spec.name,
            "description": spec.description,
            "parameters": _bounded(spec),
            "strict": bool(spec.strict),
        }
    if spec.defer_loading:
        tool["defer_loading"] = True
    return tool


def _bounded(spec: ToolSpec) -> dict[str, Any]:
    check_schema_bounds(spec.parameters, what=f"tool {spec.name!r}")
    return spec.parameters


def encode_tool_choice(choice: ToolChoice, tools: Sequence[ToolSpec] = ()) -> str | dict[str, Any]:
    """``auto`` / ``none`` / ``required``, or the named tool: ``{"type": "function" |
    "custom", "name"}`` by its kind (the SDK's ``ToolChoiceFunction`` / ``ToolChoiceCustom``)."""
    if choice.mode == "tool":
        custom = any(t.name == choice.name and t.input_format is not None for t in tools)
        return {"type": "custom" if custom else "function", "name": choice.name}
    return choice.mode
