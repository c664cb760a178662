"""Function declarations and the tool config for ``generateContent`` (pure).

Follows https://ai.google.dev/api/caching#FunctionDeclaration and ``ToolConfig``. Rules:

* tools → ``functionDeclarations``; parameters converted to Gemini's ``Schema``
  (``schema.py``), or sent untouched (minus ``$schema``) as ``parametersJsonSchema`` when the
  provider option ``json_schema`` is set. A tool without parameters declares none (Gemini
  rejects an empty ``OBJECT``). A custom (freeform) tool (``ToolSpec.input_format``, OpenAI
  only) is an ``UnsupportedFeatureError`` naming it, never silently dropped (docs/tools.md).
* tool choice → ``functionCallingConfig``: auto → AUTO, none → NONE, required → ANY, a named
  tool → ANY + ``allowedFunctionNames``; Vertex may stream call arguments
  (``streamFunctionCallArguments``).
"""

from __future__ import annotations

from typing import Any

from ...errors import UnsupportedFeatureError
from ...request import ToolChoice
from ...specs.schema_bounds import check_schema_bounds
from ...tool_spec import ToolSpec
from .schema import to_gemini_schema

__all__ = ["encode_tool_choice", "encode_tools"]

_MODES = {"auto": "AUTO", "none": "NONE", "required": "ANY", "tool": "ANY"}


def encode_tool_choice(choice: ToolChoice, *, stream_arguments: bool) -> dict[str, Any]:
    config: dict[str, Any] = {"mode": _MODES[choice.mode]}
    if choice.mode == "tool" and choice.name:
        config["allowedFunctionNames"] = [choice.name]
    if stream_arguments:
        config["streamFunctionCallArguments"] = True
    return {"functionCallingConfig": config}


def encode_tools(tools: list[ToolSpec], *, json_schema: bool, vertex: bool) -> list[dict[str, Any]]:
    out = []
    for tool in tools:
        if tool.input_format is not None:
            raise UnsupportedFeatureError(
                f"tool {tool.name!r} is a custom (freeform) tool, which Gemini cannot "
                "declare: use spec.as_function() (one string parameter, 'input'; a grammar is "
                "then only described) or tool_mode='prompt'",
                provider="gemini",
            )
        decl: dict[str, Any] = {"name": tool.name}
        if tool.description:
            decl["description"] = tool.description
        params = tool.parameters
        if params.get("properties") or params.get("$ref") or params.get("anyOf"):
            if json_schema:
                check_schema_bounds(params, what=f"tool {tool.name!r}")
                decl["parametersJsonSchema"] = {k: v for k, v in params.items() if k != "$schema"}
            else:
                decl["parameters"] = to_gemini_schema(
                    params, additional_properties=vertex, what=f"tool {tool.name!r}"
                )
        out.append(decl)
    return out
