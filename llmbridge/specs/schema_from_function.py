"""Build a tool's argument model and JSON schema from a Python function's signature.

Rules:

* Type hints go through pydantic: defaults, ``Optional``, ``Literal``, ``Enum``, nested
  pydantic models, dataclasses, lists and dicts all work as pydantic renders them.
* Descriptions, strongest first: ``Field(description=...)`` (as default or in ``Annotated``),
  a plain string in ``Annotated[T, "text"]``, then the docstring's parameter section.
* A first parameter annotated ``ToolContext[T]`` is hidden from the schema; elsewhere it is a
  ``TypeError``, as are ``*args`` / ``**kwargs`` (the model can only send named arguments).
* The schema has no auto-generated titles (they cost tokens and say nothing) and
  ``additionalProperties: false`` at the root: unknown arguments are reported to the model.
* Parameter names are aliases of internal field names, so any name works (``model_config``,
  ``_private``, ``schema``).
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema

from ..errors import UsageError
from .context import is_tool_context
from .docstrings import parse_docstring

__all__ = ["FunctionSignature", "NoTitlesJsonSchema", "clean_schema", "signature_of"]


class NoTitlesJsonSchema(GenerateJsonSchema):
    """Pydantic's JSON schema without the titles it makes up from field names."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


@dataclass(slots=True)
class FunctionSignature:
    """What calling a function as a tool needs."""

    model: type[BaseModel]
    """Validates the model's arguments (fields aliased by parameter name)."""
    schema: dict[str, Any]
    description: str
    context_param: str | None
    """Name of the hidden ``ToolContext`` parameter, if the function takes one."""
    positional_only: tuple[str, ...]
    is_async: bool


def clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop the root title pydantic adds from the model's class name."""
    schema.pop("title", None)
    return schema


def _target(fn: Callable[..., Any]) -> Callable[..., Any]:
    if inspect.isfunction(fn) or inspect.ismethod(fn):
        return fn
    call = getattr(fn, "__call__", None)  # noqa: B004 - callable objects: hints live on __call__
    return call if call is not None else fn


def _is_async(fn: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(_target(fn))


def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(_target(fn), include_extras=True)
    except NameError as exc:
        raise UsageError(
            f"cannot resolve the type hints of tool function {_name(fn)!r}: {exc} "
            "(define the types at module level)"
        ) from exc


def _name(fn: Callable[..., Any]) -> str:
    return str(getattr(fn, "__name__", type(fn).__name__))


def _field(annotation: Any, default: Any, doc: str | None, alias: str) -> tuple[Any, FieldInfo]:
    """Annotation and FieldInfo for one parameter (descriptions merged as documented)."""
    text: str | None = None
    if typing.get_origin(annotation) is Annotated:
        base, *meta = typing.get_args(annotation)
        strings = [m for m in meta if isinstance(m, str)]
        text = strings[-1] if strings else None
        rest = [m for m in meta if not isinstance(m, str)]
        args = (base, *rest)
        annotation = Annotated[args] if rest else base
    info = default if isinstance(default, FieldInfo) else Field(default=default)
    overrides: dict[str, Any] = {
        "alias": alias,
        "validation_alias": alias,
        "serialization_alias": alias,
        "alias_priority": 2,
    }
    if info.description is None and (text or doc):
        overrides["description"] = text or doc
    return annotation, FieldInfo.merge_field_infos(info, **overrides)


def signature_of(fn: Callable[..., Any]) -> FunctionSignature:
    """Read ``fn``'s signature into a validation model and a JSON schema."""
    sig = inspect.signature(fn)
    hints = _hints(fn)
    doc = parse_docstring(inspect.getdoc(fn))
    fields: dict[str, Any] = {}
    context_param: str | None = None
    positional_only: list[str] = []
    for i, param in enumerate(sig.parameters.values()):
        annotation = hints.get(param.name, Any)
        if is_tool_context(annotation):
            if i != 0:
                raise UsageError(
                    f"tool function {_name(fn)!r}: the ToolContext parameter {param.name!r} "
                    "must be the first parameter"
                )
            context_param = param.name
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise UsageError(
                f"tool function {_name(fn)!r}: *args / **kwargs cannot be tool parameters "
                f"({param.name!r}); the model sends named arguments only"
            )
        if param.kind is param.POSITIONAL_ONLY:
            positional_only.append(param.name)
        default = ... if param.default is param.empty else param.default
        annotation, info = _field(annotation, default, doc.params.get(param.name), param.name)
        fields[f"p_{len(fields)}"] = (annotation, info)
    config = ConfigDict(extra="forbid", arbitrary_types_allowed=False)
    title = "".join(w[:1].upper() + w[1:] for w in _name(fn).split("_") if w) or "Arguments"
    model: type[BaseModel] = create_model(title, __config__=config, **fields)
    schema = clean_schema(model.model_json_schema(schema_generator=NoTitlesJsonSchema))
    schema.setdefault("properties", {})
    return FunctionSignature(
        model=model,
        schema=schema,
        description=doc.description,
        context_param=context_param,
        positional_only=tuple(positional_only),
        is_async=_is_async(fn),
    )
