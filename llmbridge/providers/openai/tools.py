"""Tools, ``tool_choice`` and JSON-schema response formats for Chat Completions.

Follows https://platform.openai.com/docs/api-reference/chat/create (``tools``,
``tool_choice``, ``response_format``) and the structured-outputs rules for ``strict`` schemas:
every object has ``additionalProperties: false`` and lists all its properties as required;
properties that were optional become nullable so the model can still leave them out (null).

Custom (freeform) tools (``ToolSpec.input_format`` set) follow the openai SDK's
``ChatCompletionCustomToolParam``: ``{"type": "custom", "custom": {"name", "description",
"format"}}``, where ``format`` is ``{"type": "text"}`` or the *nested* grammar
``{"type": "grammar", "grammar": {"definition", "syntax"}}`` (the Responses API's is flat).

Rules: pure functions, keyword-only, no mutation of the caller's schemas.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...request import CustomToolFormat
from ...types import ResponseFormat, ToolChoice, ToolSpec

__all__ = ["encode_response_format", "encode_tool_choice", "encode_tools", "strict_schema"]

_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_MAPS = ("$defs", "definitions")


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` that OpenAI strict mode accepts (see module docstring)."""
    out = dict(schema)
    props = out.get("properties")
    if isinstance(props, dict) and (out.get("type") == "object" or "type" not in out):
        required = set(out.get("required") or ())
        new_props: dict[str, Any] = {}
        for name, sub in props.items():
            sub = strict_schema(sub) if isinstance(sub, dict) else sub
            new_props[name] = sub if name in required else _nullable(sub)
        out["properties"] = new_props
        out["required"] = list(props)
        out["additionalProperties"] = False
    elif out.get("type") == "object":
        out.setdefault("properties", {})
        out["required"] = []
        out["additionalProperties"] = False
    items = out.get("items")
    if isinstance(items, dict):
        out["items"] = strict_schema(items)
    for key in _SUBSCHEMA_LISTS:
        subs = out.get(key)
        if isinstance(subs, list):
            out[key] = [strict_schema(s) if isinstance(s, dict) else s for s in subs]
    for key in _SUBSCHEMA_MAPS:
        defs = out.get(key)
        if isinstance(defs, dict):
            out[key] = {k: strict_schema(v) if isinstance(v, dict) else v for k, v in defs.items()}
    return out


def _nullable(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    enum = schema.get("enum")
    if isinstance(enum, list) and None not in enum:
        schema = {**schema, "enum": [*enum, None]}
    kind = schema.get("type")
    if isinstance(kind, str):
        return schema if kind == "null" else {**schema, "type": [kind, "null"]}
    if isinstance(kind, list):
        return schema if "null" in kind else {**schema, "type": [*kind, "null"]}
    any_of = schema.get("anyOf")
    if isinstance(any_of, list):
        if any(isinstance(s, dict) and s.get("type") == "null" for s in any_of):
            return schema
        return {**schema, "anyOf": [*any_of, {"type": "null"}]}
    return {"anyOf": [schema, {"type": "null"}]}


def _custom_format(fmt: CustomToolFormat) -> dict[str, Any]:
    if fmt.type == "text":
        return {"type": "text"}
    grammar = {"definition": fmt.definition, "syntax": fmt.syntax}
    return {"type": "grammar", "grammar": grammar}


def _custom_tool(tool: ToolSpec, fmt: CustomToolFormat) -> dict[str, Any]:
    custom: dict[str, Any] = {"name": tool.name}
    if tool.description:
        custom["description"] = tool.description
    custom["format"] = _custom_format(fmt)
    return {"type": "custom", "custom": custom}


def encode_tools(*, tools: list[ToolSpec], strict_supported: bool) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for tool in tools:
        if tool.input_format is not None:
            out.append(_custom_tool(tool, tool.input_format))
            continue
        function: dict[str, Any] = {"name": tool.name}
        if tool.description:
            function["description"] = tool.description
        strict = bool(tool.strict) and strict_supported
        function["parameters"] = strict_schema(tool.parameters) if strict else tool.parameters
        if strict:
            function["strict"] = True
        out.append({"type": "function", "function": function})
    return out


def encode_tool_choice(
    *, choice: ToolChoice, tools: Sequence[ToolSpec] = ()
) -> str | dict[str, Any]:
    """``auto`` / ``none`` / ``required``, or the named tool in its own kind's shape (a custom
    tool is ``{"type": "custom", "custom": {"name"}}``, as the SDK's named-choice types say)."""
    if choice.mode == "tool":
        if any(t.name == choice.name and t.input_format is not None for t in tools):
            return {"type": "custom", "custom": {"name": choice.name}}
        return {"type": "function", "function": {"name": choice.name}}
    return choice.mode  # auto / none / required


def encode_response_format(*, fmt: ResponseFormat, json_schema: bool) -> dict[str, Any]:
    if not json_schema:
        return {"type": "json_object"}
    schema = strict_schema(fmt.json_schema) if fmt.strict else fmt.json_schema
    return {
        "type": "json_schema",
        "json_schema": {"name": fmt.name, "schema": schema, "strict": fmt.strict},
    }
