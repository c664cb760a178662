"""Building ``ToolSpec`` objects and validating their arguments.

Rules: the ``ToolSpec`` model itself lives on the ground floor (``llmbridge.request``, beside
the other request models) and is re-exported here, where apps and plug-ins have always
imported it. Its classmethods (``from_function``, ``from_model``, ``from_json_schema``,
``from_mcp``) and ``validate_arguments`` call the functions below, so the schema machinery
(``schema_from_function``, ``schema_check``, ``schema_to_model``) loads only when a spec is
built or used. Builders take the class to build (subclasses build themselves) and attach a
``ToolBinding``: the function and the validation model. ``from_json_schema`` (and so
``from_mcp``) accepts a schema whose ``$ref`` would inline to a huge tree (its validation model
is built per definition, in linear time): the encoders of APIs without ``$ref`` (Gemini) refuse
it with a ``ToolSchemaError`` (``schema_bounds``). ``validate_arguments`` refuses arguments nested deeper than ``MAX_ARGUMENT_DEPTH``
(a ``ToolArgumentsError``, checked without recursion) before pydantic sees them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from ..errors import UsageError
from ..request import TOOL_NAME_PATTERN, ToolBinding, ToolSpec

__all__ = [
    "MAX_ARGUMENT_DEPTH",
    "TOOL_NAME_PATTERN",
    "ToolSpec",
    "spec_from_function",
    "spec_from_json_schema",
    "spec_from_mcp",
    "spec_from_model",
    "validate_arguments",
]

_TOOL_NAME = re.compile(TOOL_NAME_PATTERN)

MAX_ARGUMENT_DEPTH = 128
"""Levels of objects and arrays tool arguments may nest (deeper is a ``ToolArgumentsError``)."""


def _nests_deeper(value: Any, limit: int) -> bool:
    """Whether ``value``'s dicts and lists nest more than ``limit`` deep (no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        items = node.values() if isinstance(node, Mapping) else node
        stack.extend((v, depth + 1) for v in items if isinstance(v, Mapping | list | tuple))
    return False


def spec_from_function(
    cls: type[ToolSpec],
    fn: Callable[..., Any],
    *,
    name: str | None,
    description: str | None,
    strict: bool | None,
) -> ToolSpec:
    """``ToolSpec.from_function``: the schema from ``fn``'s type hints and docstring."""
    from .schema_from_function import signature_of

    fn = getattr(fn, "fn", fn) if isinstance(getattr(fn, "tool_spec", None), ToolSpec) else fn
    name = name or str(getattr(fn, "__name__", type(fn).__name__))
    if not _TOOL_NAME.fullmatch(name):
        raise UsageError(
            f"{name!r} cannot name a tool (letters, digits, '_' and '-', at most 64): use a "
            "def with such a name, or ToolSpec.from_function(fn, name=...)"
        )
    sig = signature_of(fn)
    spec = cls(
        name=name,
        description=sig.description if description is None else description,
        parameters=sig.schema,
        strict=strict,
    )
    spec._binding = ToolBinding("function", sig.model, function=fn, signature=sig)
    return spec


def spec_from_model(
    cls: type[ToolSpec],
    model: type[BaseModel],
    *,
    name: str | None,
    description: str | None,
    strict: bool | None,
) -> ToolSpec:
    """``ToolSpec.from_model``: arguments are ``model``'s fields, description its docstring."""
    from .schema_check import check_tool_schema, normalize_root
    from .schema_from_function import NoTitlesJsonSchema, clean_schema

    schema = normalize_root(model.model_json_schema(schema_generator=NoTitlesJsonSchema))
    schema = clean_schema(schema)
    doc = schema.pop("description", None)
    check_tool_schema(schema)
    spec = cls(
        name=name or model.__name__,
        description=(doc or "") if description is None else description,
        parameters=schema,
        strict=strict,
    )
    spec._binding = ToolBinding("model", model)
    return spec


def spec_from_json_schema(
    cls: type[ToolSpec],
    *,
    name: str,
    description: str | None,
    schema: Mapping[str, Any],
    strict: bool | None,
) -> ToolSpec:
    """``ToolSpec.from_json_schema``: ``ToolSchemaError`` for a schema no provider accepts."""
    from .schema_check import normalize_root
    from .schema_to_model import model_for_schema

    parameters = normalize_root({"type": "object", "properties": {}, **schema})
    model = model_for_schema(parameters)
    spec = cls(name=name, description=description or "", parameters=parameters, strict=strict)
    spec._binding = ToolBinding("schema", model)
    return spec


def spec_from_mcp(cls: type[ToolSpec], tool: Any) -> ToolSpec:
    """``ToolSpec.from_mcp``: an ``mcp.types.Tool`` or its dict form."""

    def get(key: str) -> Any:
        return tool.get(key) if isinstance(tool, Mapping) else getattr(tool, key, None)

    schema = get("inputSchema")
    if schema is None:
        schema = get("input_schema")
    if get("name") is None:
        raise UsageError(f"not an MCP tool definition (no name): {tool!r}")
    return cls.from_json_schema(str(get("name")), get("description"), schema or {})


def validate_arguments(spec: ToolSpec, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
    """``ToolSpec.validate_arguments``: see ``llmbridge.request`` for what each kind returns."""
    from .argument_errors import arguments_error, not_an_object, too_deep

    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise not_an_object(spec.name, arguments)
    if _nests_deeper(arguments, MAX_ARGUMENT_DEPTH):
        raise too_deep(spec.name, MAX_ARGUMENT_DEPTH)
    model = spec.validation_model
    try:
        instance = model.model_validate(dict(arguments))
    except ValidationError as exc:
        raise arguments_error(spec.name, exc) from exc
    binding = spec._binding
    kind = binding.kind if binding else "schema"
    if kind == "schema":
        from .schema_to_model import dump_arguments

        return dict(dump_arguments(instance))
    if kind == "model":
        return dict(instance)
    return {info.alias or key: getattr(instance, key) for key, info in model.model_fields.items()}
