"""Tools, ``tool_choice`` and JSON-schema response formats for Chat Completions.

Follows https://platform.openai.com/docs/api-reference/chat/create (``tools``,
``tool_choice``, ``response_format``) and the structured-outputs rules for ``strict`` schemas:
every object has ``additionalProperties: false`` and lists all its properties as required;
properties that were optional become nullable so the model can still leave them out (null).

Custom (freeform) tools (``ToolSpec.input_format`` set) follow the openai SDK's
``ChatCompletionCustomToolParam``: ``{"type": "custom", "custom": {"name", "description",
"format"}}``, where ``format`` is ``{"type": "text"}`` or the *nested* grammar
``{"type": "grammar", "grammar": {"definition", "syntax"}}`` (the Responses API's is flat).

Rules: pure functions, keyword-only, no mutation of the caller's schemas. Every schema is
checked against the schema bounds first (``llmbridge.specs.schema_bounds``: nesting, inlined
size); ``strict_schema`` inlines a ``$ref`` that has siblings, but never one it is already
inside (a recursive reference stays a ``$ref``), and counts what it builds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...request import ResponseFormat, ToolChoice
from ...specs.schema_bounds import SchemaBudget, check_schema_bounds
from ...tool_spec import CustomToolFormat, ToolSpec

__all__ = [
    "encode_response_format",
    "encode_tool_choice",
    "encode_tools",
    "response_schema",
    "response_schema_warning",
    "schema_format",
    "sends_strict",
    "strict_schema",
]

_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_MAPS = ("$defs", "definitions")


def strict_schema(
    schema: dict[str, Any],
    *,
    nullable_optional: bool = True,
    notes: list[str] | None = None,
    _root: dict[str, Any] | None = None,
    _path: str = "$",
    _budget: SchemaBudget | None = None,
    _inside: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """A copy of ``schema`` that OpenAI strict mode accepts (see module docstring).

    ``nullable_optional=False`` (response formats, as the openai SDK's ``.parse()`` sends
    them): properties that were optional become required but not nullable, so a typed reply
    still validates. ``notes`` collects what changed, for the request's warnings."""
    root = schema if _root is None else _root
    budget = SchemaBudget("schema") if _budget is None else _budget
    budget.enter()
    try:
        return _strict_node(schema, nullable_optional, notes, root, _path, budget, _inside)
    finally:
        budget.leave()


def _strict_node(
    schema: dict[str, Any],
    nullable_optional: bool,
    notes: list[str] | None,
    root: dict[str, Any],
    _path: str,
    budget: SchemaBudget,
    inside: frozenset[str],
) -> dict[str, Any]:
    out, inside = _flatten(dict(schema), root, inside)

    def sub(value: Any, where: str) -> Any:
        if not isinstance(value, dict):
            return value
        return strict_schema(
            value,
            nullable_optional=nullable_optional,
            notes=notes,
            _root=root,
            _path=where,
            _budget=budget,
            _inside=inside,
        )

    props = out.get("properties")
    if isinstance(props, dict) and (out.get("type") == "object" or "type" not in out):
        _close_object(out, props, sub, nullable_optional, notes, _path)
    elif out.get("type") == "object":
        out.setdefault("properties", {})
        out["required"] = []
        out["additionalProperties"] = False
    if isinstance(out.get("items"), dict):
        out["items"] = sub(out["items"], f"{_path}[]")
    for key in _SUBSCHEMA_LISTS:
        subs = out.get(key)
        if isinstance(subs, list):
            out[key] = [sub(s, f"{_path}.{key}.{i}") for i, s in enumerate(subs)]
    for key in _SUBSCHEMA_MAPS:
        defs = out.get(key)
        if isinstance(defs, dict):
            out[key] = {k: sub(v, f"{_path}.{key}.{k}") for k, v in defs.items()}
    return out


def _flatten(
    out: dict[str, Any], root: dict[str, Any], inside: frozenset[str]
) -> tuple[dict[str, Any], frozenset[str]]:
    """A ``$ref`` with siblings inlined (strict mode takes none beside it; not into itself), a
    one-part ``allOf`` merged, a ``default`` of null dropped."""
    ref = out.get("$ref")
    if isinstance(ref, str) and len(out) > 1:
        resolved = _resolve(root, ref)
        if resolved is not None and ref not in inside:
            del out["$ref"]
            out = {**resolved, **out}
            inside = inside | {ref}
    all_of = out.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
        del out["allOf"]
        out = {**all_of[0], **out}
    if "default" in out and out["default"] is None:
        del out["default"]
    return out, inside


def _close_object(
    out: dict[str, Any],
    props: dict[str, Any],
    sub: Callable[[Any, str], Any],
    nullable_optional: bool,
    notes: list[str] | None,
    path: str,
) -> None:
    """Every property required (optional ones nullable, when asked), no others allowed."""
    required = set(out.get("required") or ())
    new_props: dict[str, Any] = {}
    for name, value in props.items():
        value = sub(value, f"{path}.{name}")
        if name not in required and nullable_optional:
            value = _nullable(value)
        new_props[name] = value
    optional = [name for name in props if name not in required]
    if optional and notes is not None:
        notes.append(f"{path}: {', '.join(optional)}")
    out["properties"] = new_props
    out["required"] = list(props)
    out["additionalProperties"] = False


def _resolve(root: dict[str, Any], ref: str) -> dict[str, Any] | None:
    if not ref.startswith("#/"):
        return None
    node: Any = root
    for key in ref[2:].split("/"):
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else None


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
        check_schema_bounds(tool.parameters, what=f"tool {tool.name!r}")
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


def open_maps(schema: Any, path: str = "$") -> list[str]:
    """Where ``schema`` has an object with open keys (``additionalProperties`` a schema or
    true: a ``dict[str, X]``), which strict mode cannot express."""
    if isinstance(schema, list):
        return [p for i, s in enumerate(schema) for p in open_maps(s, f"{path}.{i}")]
    if not isinstance(schema, dict):
        return []
    extra = schema.get("additionalProperties")
    found = [path] if extra is True or isinstance(extra, dict) else []
    for key, value in schema.items():
        if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            found += [p for k, s in value.items() for p in open_maps(s, f"{path}.{k}")]
        elif key in ("items", *_SUBSCHEMA_LISTS):
            found += open_maps(value, f"{path}[]" if key == "items" else f"{path}.{key}")
    return found


def sends_strict(fmt: ResponseFormat) -> bool:
    """Whether ``fmt`` goes out in strict mode: asked for, and expressible."""
    check_schema_bounds(fmt.json_schema, what="response_format")
    return fmt.strict and not open_maps(fmt.json_schema)


def response_schema(fmt: ResponseFormat, notes: list[str] | None = None) -> dict[str, Any]:
    """The schema of a response format as sent (Chat and Responses alike), strict-mode rules
    applied. Optional properties become required: nullable for a plain schema (the model can
    still leave them out), as they are for a type (as the openai SDK's ``.parse()`` sends a
    model: a field with a default does not take ``null``). A schema with open maps
    (``dict[str, X]``) cannot be strict: it is sent as written, with ``strict: false``."""
    return _strict(fmt, notes) if sends_strict(fmt) else fmt.json_schema


def _strict(fmt: ResponseFormat, notes: list[str] | None) -> dict[str, Any]:
    return strict_schema(fmt.json_schema, nullable_optional=fmt._target is None, notes=notes)


def schema_format(fmt: ResponseFormat) -> dict[str, Any]:
    """``name``, ``schema`` and ``strict`` of a response format as sent: the members of
    Chat's ``json_schema`` and of Responses' ``text.format`` (one walk for open maps)."""
    strict = sends_strict(fmt)
    schema = _strict(fmt, None) if strict else fmt.json_schema
    return {"name": fmt.name, "schema": schema, "strict": strict}


def encode_response_format(*, fmt: ResponseFormat, json_schema: bool) -> dict[str, Any]:
    if not json_schema or fmt.any_object:
        return {"type": "json_object"}
    return {"type": "json_schema", "json_schema": schema_format(fmt)}


def response_schema_warning(fmt: ResponseFormat) -> str | None:
    """What strict mode changed in ``fmt``'s schema, said once (``None``: nothing)."""
    if not fmt.strict:
        return None
    check_schema_bounds(fmt.json_schema, what="response_format")
    if maps := open_maps(fmt.json_schema):
        return (
            "response_format: strict mode takes no open maps (dict fields at "
            f"{', '.join(maps)}); sent with strict false, and llmbridge validates the reply"
        )
    notes: list[str] = []
    _strict(fmt, notes)
    if not notes:
        return None
    how = "required" if fmt._target is not None else "required and nullable"
    return (
        "response_format: strict mode needs every property required; these optional ones "
        f"were sent as {how} ({'; '.join(notes)})"
    )
