"""``ToolSpec``: a tool the app offers the model (name, description, JSON-schema parameters).

Rules: the name is checked against what every built-in provider accepts
(``^[a-zA-Z0-9_-]{1,64}$``); parameters are a JSON-schema object. A spec is plain data: it
serialises to exactly ``name``, ``description``, ``parameters``, ``strict`` and compares by
those fields. Specs built by ``from_function`` / ``from_model`` / ``from_json_schema`` /
``from_mcp`` also hold (as private attributes, never serialised) what validating and calling
need: the function and the validation model. A spec built directly gets its validation model
from ``parameters`` on first use (cached per schema).

What ``validate_arguments`` returns: for function specs, the keyword arguments to call the
function with (validated Python values: enums, nested models, defaults filled in); for model
specs, the model's field values; for schema specs, a JSON-ready dict with what the model sent
plus explicit defaults.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from ..errors import UsageError

if TYPE_CHECKING:
    from .schema_from_function import FunctionSignature

__all__ = ["TOOL_NAME_PATTERN", "ToolSpec"]

TOOL_NAME_PATTERN = r"^[a-zA-Z0-9_-]{1,64}$"
_TOOL_NAME = re.compile(TOOL_NAME_PATTERN)


def _empty_object() -> dict[str, Any]:
    return {"type": "object", "properties": {}}


@dataclass(slots=True)
class _Binding:
    kind: Literal["function", "model", "schema"]
    model: type[BaseModel]
    function: Callable[..., Any] | None = None
    signature: FunctionSignature | None = None


class ToolSpec(BaseModel):
    """A tool the model may call. ``parameters`` is a JSON schema of type ``object``."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    name: str = Field(pattern=TOOL_NAME_PATTERN)
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=_empty_object)
    strict: bool | None = None
    """Ask for strict schema adherence where the provider supports it (OpenAI)."""

    _binding: _Binding | None = PrivateAttr(default=None)

    @field_validator("parameters")
    @classmethod
    def _object_schema(cls, value: dict[str, Any]) -> dict[str, Any]:
        kind = value.get("type", "object")
        if kind != "object":
            raise ValueError(
                f"tool parameters must be a JSON schema of type 'object', got {kind!r}"
            )
        return value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolSpec):
            return NotImplemented
        return (self.name, self.description, self.parameters, self.strict) == (
            other.name,
            other.description,
            other.parameters,
            other.strict,
        )

    # -- builders ----------------------------------------------------------------------
    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        strict: bool | None = None,
    ) -> ToolSpec:
        """A spec for a sync or async function, schema from its type hints and docstring."""
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
        spec._binding = _Binding("function", sig.model, function=fn, signature=sig)
        return spec

    @classmethod
    def from_model(
        cls,
        model: type[BaseModel],
        *,
        name: str | None = None,
        description: str | None = None,
        strict: bool | None = None,
    ) -> ToolSpec:
        """A spec whose arguments are ``model``'s fields (description from its docstring)."""
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
        spec._binding = _Binding("model", model)
        return spec

    @classmethod
    def from_json_schema(
        cls,
        name: str,
        description: str | None,
        schema: Mapping[str, Any],
        *,
        strict: bool | None = None,
    ) -> ToolSpec:
        """A spec from a JSON schema; ``ToolSchemaError`` for one no provider accepts."""
        from .schema_check import normalize_root
        from .schema_to_model import model_for_schema

        parameters = normalize_root({"type": "object", "properties": {}, **schema})
        model = model_for_schema(parameters)
        spec = cls(name=name, description=description or "", parameters=parameters, strict=strict)
        spec._binding = _Binding("schema", model)
        return spec

    @classmethod
    def from_mcp(cls, tool: Any) -> ToolSpec:
        """A spec from an MCP tool definition (an ``mcp.types.Tool`` or its dict form)."""

        def get(key: str) -> Any:
            return tool.get(key) if isinstance(tool, Mapping) else getattr(tool, key, None)

        schema = get("inputSchema")
        if schema is None:
            schema = get("input_schema")
        if get("name") is None:
            raise UsageError(f"not an MCP tool definition (no name): {tool!r}")
        return cls.from_json_schema(str(get("name")), get("description"), schema or {})

    # -- use ---------------------------------------------------------------------------
    @property
    def function(self) -> Callable[..., Any] | None:
        """The function this spec calls (``from_function`` specs only)."""
        return self._binding.function if self._binding else None

    @property
    def validation_model(self) -> type[BaseModel]:
        """The pydantic model that validates this tool's arguments."""
        if self._binding is None:
            from .schema_to_model import model_for_schema

            return model_for_schema(self.parameters)
        return self._binding.model

    @property
    def schema_warnings(self) -> tuple[str, ...]:
        """What the argument validation skips of this tool's schema (and why)."""
        from .schema_to_model import schema_warnings

        return schema_warnings(self.validation_model)

    def validate_arguments(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """Validated arguments, or ``ToolArgumentsError`` with a message for the model."""
        from .argument_errors import arguments_error, not_an_object

        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            raise not_an_object(self.name, arguments)
        model = self.validation_model
        try:
            instance = model.model_validate(dict(arguments))
        except ValidationError as exc:
            raise arguments_error(self.name, exc) from exc
        kind = self._binding.kind if self._binding else "schema"
        if kind == "schema":
            from .schema_to_model import dump_arguments

            return dict(dump_arguments(instance))
        if kind == "model":
            return dict(instance)
        return {
            info.alias or key: getattr(instance, key) for key, info in model.model_fields.items()
        }
