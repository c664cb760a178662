"""Turn a tool's JSON schema into a pydantic model that validates the model's arguments.

Rules:

* The schema is checked first (``schema_check.check_tool_schema``); what no provider accepts,
  what cannot be resolved, or what is too large or deep is a ``ToolSchemaError``.
* Supported: local ``$ref`` into ``$defs`` / ``definitions`` (recursive ones too), nested
  objects, typed arrays, ``enum`` / ``const`` as ``Literal``, ``oneOf`` with a
  ``discriminator``, ``anyOf`` / ``oneOf`` / type lists / ``nullable`` as unions, ``allOf``
  merged, ``default`` and ``required``, and the usual string / number / array constraints.
  Unknown keywords are ignored: validation is never stricter than the schema says.
* Validated arguments are dumped as a JSON-ready dict holding only what the model sent plus
  explicit defaults (an optional property the model left out stays out).
* Property names are kept as aliases, so any JSON name works (``model_config``, ``_x``, ``a b``).
"""

from __future__ import annotations

import keyword
import re
import typing
import warnings
from functools import lru_cache
from typing import Annotated, Any, ForwardRef, Literal

import orjson
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PydanticSchemaGenerationError,
    PydanticUserError,
    TypeAdapter,
    create_model,
)
from pydantic_core import SchemaError
from typing_extensions import Never, TypeAliasType

from .errors import ToolSchemaError, ToolSchemaWarning
from .schema_check import check_tool_schema, normalize_root, resolve_ref

__all__ = [
    "ABSENT",
    "dump_arguments",
    "model_for_schema",
    "schema_warnings",
]

ABSENT: Any = type("Absent", (), {"__repr__": lambda self: "ABSENT"})()
"""Default of an optional property the model left out (dropped when dumping)."""

_SCALARS: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": typing.Union[int, float],  # noqa: UP007 - keeps 5 as 5, not 5.0
    "boolean": bool,
    "null": type(None),
}
_NUMBER_CONSTRAINTS = {
    "minimum": "ge",
    "maximum": "le",
    "exclusiveMinimum": "gt",
    "exclusiveMaximum": "lt",
    "multipleOf": "multiple_of",
}
_CONSTRAINTS: dict[str, dict[str, str]] = {
    "string": {"minLength": "min_length", "maxLength": "max_length", "pattern": "pattern"},
    "array": {"minItems": "min_length", "maxItems": "max_length"},
    "integer": _NUMBER_CONSTRAINTS,
    "number": _NUMBER_CONSTRAINTS,
}


@lru_cache(maxsize=512)
def _model_for_schema_json(schema_json: bytes) -> type[BaseModel]:
    schema = orjson.loads(schema_json)
    return _Converter(schema).root_model()


def model_for_schema(schema: dict[str, Any]) -> type[BaseModel]:
    """The (cached) validation model of a checked parameters schema."""
    return _model_for_schema_json(check_tool_schema(normalize_root(schema)))


_WARNINGS: dict[type[BaseModel], tuple[str, ...]] = {}


def schema_warnings(model: type[BaseModel]) -> tuple[str, ...]:
    """What a validation model does not check that its schema asks for (skipped patterns)."""
    return _WARNINGS.get(model, ())


@lru_cache(maxsize=1024)
def _linear_pattern(pattern: str) -> bool:
    """Whether pydantic's Rust regex engine (linear in the input) compiles ``pattern``: never a
    backtracking engine on text a model wrote (one pattern could freeze the process)."""
    try:
        TypeAdapter(Annotated[str, Field(pattern=pattern)])
    except (PydanticSchemaGenerationError, SchemaError, ValueError):
        return False
    return True


def dump_arguments(value: Any) -> Any:
    """JSON-ready arguments from a validated instance (left-out optionals stay out)."""
    if isinstance(value, BaseModel):
        out: dict[str, Any] = {}
        for name, info in type(value).model_fields.items():
            item = getattr(value, name)
            if item is not ABSENT:
                out[info.alias or name] = dump_arguments(item)
        for key, item in (value.__pydantic_extra__ or {}).items():
            out[key] = dump_arguments(item)
        return out
    if isinstance(value, (list, tuple)):
        return [dump_arguments(v) for v in value]
    if isinstance(value, dict):
        return {k: dump_arguments(v) for k, v in value.items()}
    return value


def _pascal(text: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", text)
    name = "".join(w[:1].upper() + w[1:] for w in words) or "Object"
    return name if name[0].isalpha() else f"M{name}"


def _field_name(prop: str, taken: set[str]) -> str:
    plain = prop.isidentifier() and not keyword.iskeyword(prop) and not prop.startswith("_")
    if plain and not prop.startswith("model_") and not hasattr(BaseModel, prop):
        base = prop  # the property's own name keeps pydantic's messages readable
    else:
        base = "p_" + re.sub(r"\W", "_", prop)
    name, i = base, 1
    while name in taken:
        name, i = f"{base}_{i}", i + 1
    taken.add(name)
    return name


class _Converter:
    """One schema → types; recursive ``$ref`` cycles become forward references."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.refs: dict[str, Any] = {}  # ref -> built type
        self.building: dict[str, str] = {}  # ref -> forward-ref name while being built
        self.namespace: dict[str, Any] = {}
        self.models: list[type[BaseModel]] = []
        self.warnings: list[str] = []

    def root_model(self) -> type[BaseModel]:
        try:
            model = self.object_model(self.root, "Arguments")
            for m in self.models:
                if not m.__pydantic_complete__:
                    m.model_rebuild(_types_namespace=self.namespace)
        except (PydanticUserError, PydanticSchemaGenerationError, NameError, TypeError) as exc:
            raise ToolSchemaError(
                f"tool parameters schema cannot be turned into a validator: {exc}"
            ) from exc
        if not model.__pydantic_complete__:
            raise ToolSchemaError(
                "tool parameters schema has a $ref cycle that passes through no object "
                "(e.g. A: anyOf[B], B: anyOf[A]); put an object with properties in the cycle"
            )
        _WARNINGS[model] = tuple(self.warnings)
        for warning in self.warnings:
            warnings.warn(warning, ToolSchemaWarning, stacklevel=4)
        return model

    def ref(self, ref: str) -> Any:
        """One type per definition, however often it is referenced: a model, or a named alias
        pydantic builds once (an inlined union referenced twice per level is 2^depth)."""
        if ref in self.refs:
            return self.refs[ref]
        if ref in self.building:
            return ForwardRef(self.building[ref])
        name = f"{_pascal(ref.rsplit('/', 1)[-1])}_{len(self.building)}"
        self.building[ref] = name
        built = self.convert(resolve_ref(self.root, ref, "#"), ref.rsplit("/", 1)[-1])
        if not (isinstance(built, type) and issubclass(built, BaseModel)):
            built = TypeAliasType(name, built)  # type: ignore[misc]
        self.refs[ref] = self.namespace[name] = built
        return built

    def convert(self, node: Any, hint: str) -> Any:
        """The Python type validating ``node`` (a JSON schema)."""
        if node is True or node == {}:
            return Any
        if node is False:
            return Never
        if "$ref" in node:
            return self.ref(node["$ref"])
        if "const" in node:
            return self._literal([node["const"]])
        if "enum" in node:
            return self._literal(node["enum"])
        if "allOf" in node:
            return self.convert(self._merge(node), hint)
        for key in ("oneOf", "anyOf"):
            if key in node:
                return self._union(node, key, hint)
        kind = node.get("type")
        if isinstance(kind, list):
            types = [self.convert({**node, "type": k}, hint) for k in kind]
            return self._nullable(typing.Union[tuple(types)], node)  # noqa: UP007
        if kind is None:
            kind = "object" if "properties" in node else "array" if "items" in node else None
        if kind is None:
            return Any
        if kind == "object":
            result: Any = self._object(node, hint)
        elif kind == "array":
            item = self.convert(node.get("items", True), f"{hint}Item")
            result = self._constrained(list[item], node, kind)  # type: ignore[valid-type]
        else:
            result = self._constrained(_SCALARS[kind], node, kind)
        return self._nullable(result, node)

    def _object(self, node: dict[str, Any], hint: str) -> Any:
        props = node.get("properties")
        extra = node.get("additionalProperties", True)
        if not props and isinstance(extra, dict):
            return dict[str, self.convert(extra, f"{hint}Value")]  # type: ignore[misc]
        if not props and extra is not False:
            return dict[str, Any]
        return self.object_model(node, hint)

    def object_model(self, node: dict[str, Any], hint: str) -> type[BaseModel]:
        required = set(node.get("required", []))
        fields: dict[str, Any] = {}
        taken: set[str] = set()
        for prop, sub in (node.get("properties") or {}).items():
            kind = self.convert(sub, _pascal(prop))
            info: dict[str, Any] = {"alias": prop}
            if isinstance(sub, dict) and isinstance(sub.get("description"), str):
                info["description"] = sub["description"]
            if isinstance(sub, dict) and "default" in sub:
                info["default"] = sub["default"]
            elif prop not in required:
                info["default"] = ABSENT
            fields[_field_name(prop, taken)] = (kind, Field(**info))
        extra: Literal["forbid", "allow"] = (
            "forbid" if node.get("additionalProperties") is False else "allow"
        )
        config = ConfigDict(extra=extra, populate_by_name=False)  # Rust regex: linear time
        model: type[BaseModel] = create_model(_pascal(hint), __config__=config, **fields)
        self.models.append(model)
        return model

    def _literal(self, values: list[Any]) -> Any:
        if all(isinstance(v, (str, int, float, bool)) or v is None for v in values):
            return Literal[tuple(values)]
        return Any  # object / array enum values: accepted unchecked

    def _merge(self, node: dict[str, Any]) -> dict[str, Any]:
        merged: dict[str, Any] = {k: v for k, v in node.items() if k != "allOf"}
        for part in node["allOf"]:
            sub = resolve_ref(self.root, part["$ref"], "#") if "$ref" in part else part
            sub = self._merge(sub) if "allOf" in sub else sub
            for key, value in sub.items():
                if key == "properties":
                    merged["properties"] = {**merged.get("properties", {}), **value}
                elif key == "required":
                    merged["required"] = sorted({*merged.get("required", []), *value})
                else:
                    merged.setdefault(key, value)
        return merged

    def _union(self, node: dict[str, Any], key: str, hint: str) -> Any:
        variants = node[key]
        types = tuple(self.convert(v, f"{hint}{i}") for i, v in enumerate(variants))
        union: Any = typing.Union[types]  # noqa: UP007
        disc = node.get("discriminator")
        prop = disc.get("propertyName") if isinstance(disc, dict) else None
        models = [t for t in types if isinstance(t, type) and issubclass(t, BaseModel)]
        if isinstance(prop, str) and len(models) == len(types) > 1:
            names = {n for m in models for n, f in m.model_fields.items() if f.alias == prop}
            if len(names) == 1:
                tagged: Any = Annotated[union, Field(discriminator=names.pop())]
                try:
                    create_model("Probe", x=(tagged, ...))
                except Exception:  # not taggable (a variant lacks a literal tag): plain union
                    tagged = union
                union = tagged
        return self._nullable(union, node)

    def _constrained(self, kind: Any, node: dict[str, Any], json_type: str) -> Any:
        table = _CONSTRAINTS.get(json_type, {})
        kwargs = {table[k]: v for k, v in node.items() if k in table}
        pattern = kwargs.get("pattern")
        if isinstance(pattern, str) and not _linear_pattern(pattern):
            del kwargs["pattern"]
            self.warnings.append(
                f"pattern {pattern[:100]!r} is not checked: only patterns a linear-time engine "
                "runs are (no look-arounds, no back-references)"
            )
        return Annotated[kind, Field(**kwargs)] if kwargs else kind

    @staticmethod
    def _nullable(kind: Any, node: dict[str, Any]) -> Any:
        return typing.Optional[kind] if node.get("nullable") is True else kind  # noqa: UP045
