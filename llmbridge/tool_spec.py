"""``ToolSpec``: a tool the app offers the model (name, description, JSON-schema parameters).
The name is checked against what every built-in provider accepts (``^[a-zA-Z0-9_-]{1,64}$``);
parameters are a JSON-schema object. A spec is plain data: it serialises to exactly ``name``,
``description``, ``parameters``, ``strict`` and compares by those fields. Specs built by
``from_function`` / ``from_model`` / ``from_json_schema`` / ``from_mcp`` also hold (as a
private ``ToolBinding``, never serialised) what validating and calling need: the function and
the validation model. A spec built directly gets its validation model from ``parameters`` on
first use (cached per schema).

Custom (freeform) tools: ``ToolSpec.custom(name, description, grammar=..., syntax=...)`` sets
``input_format`` (a ``CustomToolFormat``: free text, or text a Lark / regex grammar constrains).
The model calls such a tool with raw text, not JSON (OpenAI's ``custom`` tools). Its
``parameters`` are fixed to one required string property ``input``, so a call's documented
``arguments`` shape is ``{"input": <the raw text>}`` (``raw_arguments`` is the text itself) and
``validate_arguments`` checks exactly that. ``input_format`` is serialised only when set, so a
function tool still dumps to its four fields.

What ``validate_arguments`` returns: for function specs, the keyword arguments to call the
function with (validated Python values: enums, nested models, defaults filled in); for model
specs, the model's field values; for schema specs, a JSON-ready dict with what the model sent
plus explicit defaults.

Rules: plain data on the ground floor (it imports only ``llmbridge.errors`` and
``llmbridge.parts``); ``ToolSpec``'s builders, schemas and argument validation live in
``llmbridge.specs``, called through function-local imports (see ``llmbridge.request``).
``llmbridge.request`` re-exports every name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from .errors import UsageError
from .parts import _Model

if TYPE_CHECKING:
    from .specs.builders import SpecParts
    from .specs.schema_from_function import FunctionSignature

__all__ = [
    "CUSTOM_INPUT",
    "TOOL_NAME_PATTERN",
    "CustomToolFormat",
    "ToolBinding",
    "ToolSpec",
    "custom_parameters",
]

TOOL_NAME_PATTERN = r"^[a-zA-Z0-9_-]{1,64}$"
_TOOL_NAME = re.compile(TOOL_NAME_PATTERN)


def _empty_object() -> dict[str, Any]:
    return {"type": "object", "properties": {}}


CUSTOM_INPUT = "input"
"""The one argument of a custom tool call: ``arguments == {"input": <raw text>}``."""


def custom_parameters(description: str) -> dict[str, Any]:
    """The fixed ``parameters`` of a custom tool (one required string, ``input``)."""
    return {
        "type": "object",
        "properties": {CUSTOM_INPUT: {"type": "string", "description": description}},
        "required": [CUSTOM_INPUT],
        "additionalProperties": False,
    }


class CustomToolFormat(_Model):
    """How a custom (freeform) tool's input is written: free ``text``, or a ``grammar``.

    Mirrors the OpenAI SDK's ``CustomToolInputFormat``: ``{"type": "text"}`` or
    ``{"type": "grammar", "syntax": "lark" | "regex", "definition": ...}``.
    """

    type: Literal["text", "grammar"] = "text"
    syntax: Literal["lark", "regex"] | None = None
    definition: str | None = None

    @model_validator(mode="after")
    def _grammar(self) -> CustomToolFormat:
        if (self.type == "grammar") != (self.definition is not None and self.syntax is not None):
            raise ValueError(
                "a grammar format needs syntax= ('lark' or 'regex') and definition=, "
                "and only a grammar format takes them"
            )
        return self

    @property
    def note(self) -> str:
        """What the ``input`` string must be, in words (for a schema description)."""
        if self.type == "text":
            return "Free text: the tool's whole input."
        return f"Text matching this {self.syntax} grammar:\n{self.definition}"


@dataclass(slots=True)
class ToolBinding:
    """What a built spec keeps for validating and calling (never serialised)."""

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
    input_format: CustomToolFormat | None = None
    """Set for a custom (freeform) tool: the model writes raw text, not JSON (see
    ``ToolSpec.custom``). ``None``, the default, is an ordinary JSON function tool."""
    defer_loading: bool = False
    """Keep this tool's definition out of the prompt until a tool search finds it (a
    ``llmbridge.ToolSearch`` among the tools; docs/hosted-tools.md). Without one, the tool is
    sent as an ordinary tool, with a warning."""
    namespace: str | None = Field(default=None, pattern=TOOL_NAME_PATTERN)
    """A group of tools the model searches as one (Responses ``namespace`` tools, which OpenAI
    recommends for deferred tools: the model sees the group's name and description until a
    search loads its functions). Other APIs send the tool as it is."""

    _binding: ToolBinding | None = PrivateAttr(default=None)

    @field_validator("parameters")
    @classmethod
    def _object_schema(cls, value: dict[str, Any]) -> dict[str, Any]:
        kind = value.get("type", "object")
        if kind != "object":
            raise ValueError(
                f"tool parameters must be a JSON schema of type 'object', got {kind!r}"
            )
        return value

    @model_validator(mode="after")
    def _custom_parameters(self) -> ToolSpec:
        if self.input_format is not None:
            fixed = custom_parameters(self.input_format.note)
            if self.parameters not in (_empty_object(), fixed):
                raise ValueError(
                    f"custom tool {self.name!r} takes raw text: its parameters are fixed "
                    "(one string, 'input'), so leave parameters= out"
                )
            self.parameters = fixed
        return self

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if self.input_format is None:
            data.pop("input_format", None)
        if not self.defer_loading:
            data.pop("defer_loading", None)
        if self.namespace is None:
            data.pop("namespace", None)
        return data

    @property
    def is_custom(self) -> bool:
        """Whether this is a custom (freeform) tool: called with raw text, not JSON."""
        return self.input_format is not None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolSpec):
            return NotImplemented
        mine = (
            self.name,
            self.description,
            self.parameters,
            self.strict,
            self.input_format,
            self.defer_loading,
            self.namespace,
        )
        return mine == (
            other.name,
            other.description,
            other.parameters,
            other.strict,
            other.input_format,
            other.defer_loading,
            other.namespace,
        )

    @classmethod
    def custom(
        cls,
        name: str,
        description: str = "",
        *,
        grammar: str | None = None,
        syntax: Literal["lark", "regex"] = "lark",
    ) -> ToolSpec:
        """A custom (freeform) tool: called with raw text, constrained by ``grammar`` if given.

        Native on OpenAI (Chat Completions and Responses ``custom`` tools); the call's
        ``arguments`` are ``{"input": <text>}``. Other native-tool providers refuse it with
        ``UnsupportedFeatureError``; ``as_function()`` is the explicit fallback.
        """
        fmt = (
            CustomToolFormat()
            if grammar is None
            else CustomToolFormat(type="grammar", syntax=syntax, definition=grammar)
        )
        return cls(name=name, description=description, input_format=fmt)

    def as_function(self) -> ToolSpec:
        """This custom tool as an ordinary function tool with one string parameter, ``input``.

        The fallback for providers without custom tools: the call's arguments keep the same
        ``{"input": <text>}`` shape, but a grammar is only described (in the parameter's
        description), not enforced. A function tool is returned unchanged.
        """
        if self.input_format is None:
            return self
        spec = ToolSpec(
            name=self.name,
            description=self.description,
            parameters=self.parameters,
            strict=self.strict,
            defer_loading=self.defer_loading,
            namespace=self.namespace,
        )
        spec._binding = self._binding
        return spec

    def deferred(self, defer_loading: bool = True, *, namespace: str | None = None) -> ToolSpec:
        """A copy of this spec with ``defer_loading`` set (the same function and validation),
        and in ``namespace`` when one is given."""
        update: dict[str, Any] = {"defer_loading": defer_loading}
        if namespace is not None:
            if not _TOOL_NAME.fullmatch(namespace):
                raise UsageError(f"{namespace!r} cannot name a namespace (as a tool name)")
            update["namespace"] = namespace
        spec = self.model_copy(update=update)
        spec._binding = self._binding
        return spec

    # -- builders (in llmbridge.specs.builders) ---------------------------------------
    @classmethod
    def _from_parts(
        cls, parts: SpecParts, *, strict: bool | None, defer_loading: bool = False
    ) -> ToolSpec:
        spec = cls(
            name=parts.name,
            description=parts.description,
            parameters=parts.parameters,
            strict=strict,
            defer_loading=defer_loading,
        )
        spec._binding = ToolBinding(
            parts.kind, parts.model, function=parts.function, signature=parts.signature
        )
        return spec

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        strict: bool | None = None,
        defer_loading: bool = False,
    ) -> ToolSpec:
        """A spec for a sync or async function, schema from its type hints and docstring."""
        from .specs.builders import spec_from_function

        if isinstance(getattr(fn, "tool_spec", None), ToolSpec):  # an @tool function
            fn = getattr(fn, "fn", fn)
        name = name or str(getattr(fn, "__name__", type(fn).__name__))
        if not _TOOL_NAME.fullmatch(name):
            raise UsageError(
                f"{name!r} cannot name a tool (letters, digits, '_' and '-', at most 64): use a "
                "def with such a name, or ToolSpec.from_function(fn, name=...)"
            )
        parts = spec_from_function(fn, name=name, description=description)
        return cls._from_parts(parts, strict=strict, defer_loading=defer_loading)

    @classmethod
    def from_model(
        cls,
        model: type[BaseModel],
        *,
        name: str | None = None,
        description: str | None = None,
        strict: bool | None = None,
        defer_loading: bool = False,
    ) -> ToolSpec:
        """A spec whose arguments are ``model``'s fields (description from its docstring)."""
        from .specs.builders import spec_from_model

        parts = spec_from_model(model, name=name, description=description)
        return cls._from_parts(parts, strict=strict, defer_loading=defer_loading)

    @classmethod
    def from_json_schema(
        cls,
        name: str,
        description: str | None,
        schema: Mapping[str, Any],
        *,
        strict: bool | None = None,
        defer_loading: bool = False,
    ) -> ToolSpec:
        """A spec from a JSON schema; ``ToolSchemaError`` for one no provider accepts."""
        from .specs.builders import spec_from_json_schema

        parts = spec_from_json_schema(name=name, description=description, schema=schema)
        return cls._from_parts(parts, strict=strict, defer_loading=defer_loading)

    @classmethod
    def from_mcp(cls, tool: Any, *, defer_loading: bool = False) -> ToolSpec:
        """A spec from an MCP tool definition (an ``mcp.types.Tool`` or its dict form)."""
        from .specs.builders import spec_from_mcp

        return cls._from_parts(spec_from_mcp(tool), strict=None, defer_loading=defer_loading)

    # -- use ---------------------------------------------------------------------------
    @property
    def function(self) -> Callable[..., Any] | None:
        """The function this spec calls (``from_function`` specs only)."""
        return self._binding.function if self._binding else None

    @property
    def validation_model(self) -> type[BaseModel]:
        """The pydantic model that validates this tool's arguments."""
        if self._binding is None:
            from .specs.schema_to_model import model_for_schema

            return model_for_schema(self.parameters)
        return self._binding.model

    @property
    def binding_kind(self) -> Literal["function", "model", "schema"]:
        """How this spec was built (a spec built directly validates by its schema)."""
        return self._binding.kind if self._binding else "schema"

    @property
    def schema_warnings(self) -> tuple[str, ...]:
        """What the argument validation skips of this tool's schema (and why)."""
        from .specs.schema_to_model import schema_warnings

        return schema_warnings(self.validation_model)

    def validate_arguments(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """Validated arguments, or ``ToolArgumentsError`` with a message for the model."""
        from .specs.builders import validate_arguments

        return validate_arguments(self, arguments)
