"""What ``ToolSpec``'s builders compute, and the validation of a call's arguments.

Rules: the ``ToolSpec`` model lives on the ground floor (``llmbridge.tool_spec``, beside the
other request models, with the ``ToolBinding`` it keeps; ``llmbridge`` exports it). Its classmethods (``from_function``, ``from_model``, ``from_json_schema``, ``from_mcp``)
and ``validate_arguments`` call the functions below, so the schema machinery
(``schema_from_function``, ``schema_check``, ``schema_to_model``) loads only when a spec is
built or used. The builders never import the request models back: each returns the parts of
a spec (``SpecParts``: the wire fields, the validation model and the function), and the
classmethod builds its own class from them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ValidationError

from ..errors import UsageError

if TYPE_CHECKING:
    from .schema_from_function import FunctionSignature

__all__ = [
    "MAX_ARGUMENT_DEPTH",
    "SpecParts",
    "spec_from_function",
    "spec_from_json_schema",
    "spec_from_mcp",
    "spec_from_model",
    "validate_arguments",
]

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


@dataclass(frozen=True, slots=True)
class SpecParts:
    """A spec as a builder computed it: the wire fields and what validating and calling need."""

    name: str
    description: str
    parameters: dict[str, Any]
    kind: Literal["function", "model", "schema"]
    model: type[BaseModel]
    function: Callable[..., Any] | None = None
    signature: FunctionSignature | None = None


class _Spec(Protocol):
    """What ``validate_arguments`` reads of a ``ToolSpec``."""

    @property
    def name(self) -> str: ...
    @property
    def validation_model(self) -> type[BaseModel]: ...
    @property
    def binding_kind(self) -> Literal["function", "model", "schema"]: ...


def spec_from_function(fn: Callable[..., Any], *, name: str, description: str | None) -> SpecParts:
    """``ToolSpec.from_function``: the schema from ``fn``'s type hints and docstring (the
    classmethod has checked ``name``)."""
    from .schema_from_function import signature_of

    sig = signature_of(fn)
    return SpecParts(
        name=name,
        description=sig.description if description is None else description,
        parameters=sig.schema,
        kind="function",
        model=sig.model,
        function=fn,
        signature=sig,
    )


def spec_from_model(
    model: type[BaseModel], *, name: str | None, description: str | None
) -> SpecParts:
    """``ToolSpec.from_model``: arguments are ``model``'s fields, description its docstring."""
    from .schema_check import check_tool_schema, normalize_root
    from .schema_from_function import NoTitlesJsonSchema, clean_schema

    schema = normalize_root(model.model_json_schema(schema_generator=NoTitlesJsonSchema))
    schema = clean_schema(schema)
    doc = schema.pop("description", None)
    check_tool_schema(schema)
    return SpecParts(
        name=name or model.__name__,
        description=(doc or "") if description is None else description,
        parameters=schema,
        kind="model",
        model=model,
    )


def spec_from_json_schema(
    *, name: str, description: str | None, schema: Mapping[str, Any]
) -> SpecParts:
    """``ToolSpec.from_json_schema``: ``ToolSchemaError`` for a schema no provider accepts."""
    from .schema_check import normalize_root
    from .schema_to_model import model_for_schema

    parameters = normalize_root({"type": "object", "properties": {}, **schema})
    model = model_for_schema(parameters)
    return SpecParts(
        name=name, description=description or "", parameters=parameters, kind="schema", model=model
    )


def spec_from_mcp(tool: Any) -> SpecParts:
    """``ToolSpec.from_mcp``: an ``mcp.types.Tool`` or its dict form."""

    def get(key: str) -> Any:
        return tool.get(key) if isinstance(tool, Mapping) else getattr(tool, key, None)

    schema = get("inputSchema")
    if schema is None:
        schema = get("input_schema")
    if get("name") is None:
        raise UsageError(f"not an MCP tool definition (no name): {tool!r}")
    return spec_from_json_schema(
        name=str(get("name")), description=get("description"), schema=schema or {}
    )


def validate_arguments(spec: _Spec, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
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
    kind = spec.binding_kind
    if kind == "schema":
        from .schema_to_model import dump_arguments

        return dict(dump_arguments(instance))
    if kind == "model":
        return dict(instance)
    return {info.alias or key: getattr(instance, key) for key, info in model.model_fields.items()}
