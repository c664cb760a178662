"""Tools and ``tool_choice`` for the Messages API (pure).

Follows https://platform.claude.com/docs/en/api/messages (``tools``, ``tool_choice``). Rules:

* a tool is ``{name, description, input_schema}`` (+ ``strict`` when set); no description is
  left out rather than sent empty; the schema is checked against the schema bounds
  (``llmbridge.specs.schema_bounds``);
* a deferred spec (``ToolSpec.defer_loading``) carries ``defer_loading: true`` (a tool search
  loads it: ``tool_search.py``);
* a custom (freeform) tool (``ToolSpec.input_format``, OpenAI only) is an
  ``UnsupportedFeatureError`` naming it, never silently dropped (docs/tools.md);
* ``tool_choice`` auto / any (required) / tool / none; ``parallel_tool_calls=False`` becomes
  ``disable_parallel_tool_use`` (on an ``auto`` choice when the app named none).
"""

from __future__ import annotations

from typing import Any

from ...errors import UnsupportedFeatureError
from ...request import ToolChoice
from ...specs.schema_bounds import check_schema_bounds
from ...tool_spec import ToolSpec

__all__ = ["encode_tool", "encode_tool_choice"]


def encode_tool(spec: ToolSpec) -> dict[str, Any]:
    if spec.input_format is not None:
        raise UnsupportedFeatureError(
            f"tool {spec.name!r} is a custom (freeform) tool, which the Messages API cannot "
            "declare: use spec.as_function() (one string parameter, 'input'; a grammar is "
            "then only described) or tool_mode='prompt'",
            provider="anthropic",
        )
    tool: dict[str, Any] = {"name": spec.name}
    if spec.description:
        tool["description"] = spec.description
    check_schema_bounds(spec.parameters, what=f"tool {spec.name!r}")
    tool["input_schema"] = spec.parameters
    if spec.strict is not None:
        tool["strict"] = spec.strict
    if spec.defer_loading:
        tool["defer_loading"] = True
    return tool


def encode_tool_choice(
    choice: ToolChoice | None, *, parallel: bool | None
) -> dict[str, Any] | None:
    if choice is None:
        out: dict[str, Any] | None = {"type": "auto"} if parallel is False else None
    elif choice.mode == "none":
        return {"type": "none"}
    elif choice.mode == "required":
        out = {"type": "any"}
    elif choice.mode == "tool":
        out = {"type": "tool", "name": choice.name}
    else:
        out = {"type": "auto"}
    if out is not None and parallel is False:
        out["disable_parallel_tool_use"] = True
    return out
