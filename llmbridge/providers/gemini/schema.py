"""JSON Schema → the OpenAPI-3.0 ``Schema`` subset Gemini accepts in ``parameters`` / ``responseSchema``.

Follows the ``Schema`` type of the Gemini API (https://ai.google.dev/api/caching#Schema) and the
official SDK's own conversion (``google.genai._transformers.process_schema``). Rules:

* ``$ref`` / ``$defs`` / ``definitions`` are inlined; a recursive reference becomes ``{}``
  (Gemini has no recursion), never an endless loop. Inlining is bounded
  (``llmbridge.specs.schema_bounds``): a schema that nests too deep or would inline to more
  than ``MAX_INLINED_SCHEMAS`` subschemas (definitions that each refer to the next twice: a
  "billion laughs") is a ``ToolSchemaError`` before any work, and the conversion itself counts
  what it builds (a dense cycle of references stops at the same bound).
* nullability: ``type: [T, "null"]``, ``anyOf: [..., {"type": "null"}]`` and ``type: "null"`` map
  to ``nullable: true``; other unions (``oneOf``, ``anyOf``, ``type: [A, B]``) map to ``anyOf``;
  ``allOf`` is merged shallowly.
* ``const`` becomes a one-value ``enum``. Gemini enums hold strings only: a non-string enum is
  dropped and its values are listed in the description instead (so the model still sees them).
* every keyword outside ``KEPT_KEYWORDS`` is dropped (``$schema``, ``examples``, ``not``,
  ``exclusiveMinimum``...); ``additionalProperties`` is kept only where the API takes it (Vertex).
* objects with several properties get ``propertyOrdering`` in their declared order (as the SDK
  does; Gemini otherwise orders structured output alphabetically).
* the input is never mutated; the output is a fresh dict.
"""

from __future__ import annotations

from typing import Any

from ...specs.schema_bounds import SchemaBudget, check_schema_bounds

__all__ = ["KEPT_KEYWORDS", "dropped_keywords", "to_gemini_schema"]

KEPT_KEYWORDS = frozenset(
    {
        "description", "enum", "example", "format", "items", "maxItems", "maxLength",
        "maxProperties", "maximum", "minItems", "minLength", "minProperties", "minimum",
        "nullable", "pattern", "properties", "propertyOrdering", "required", "title",
        "default", "anyOf", "type",
    }
)  # fmt: skip

_TYPES = {
    "string": "STRING",
    "number": "NUMBER",
    "integer": "INTEGER",
    "boolean": "BOOLEAN",
    "array": "ARRAY",
    "object": "OBJECT",
}


_READ = KEPT_KEYWORDS | {
    "$ref", "$defs", "definitions", "$schema", "allOf", "oneOf", "const", "additionalProperties",
}  # fmt: skip
"""Keywords the conversion reads (kept, or mapped onto kept ones); any other is dropped."""


class _Converter:
    def __init__(self, defs: dict[str, Any], *, additional_properties: bool, what: str) -> None:
        self.defs = defs
        self.budget = SchemaBudget(what)
        self.additional_properties = additional_properties
        self.resolving: list[str] = []
        self.dropped: set[str] = set()
        """Keywords of the input with no place in Gemini's ``Schema``."""

    def resolve(self, ref: str) -> dict[str, Any]:
        name = ref.rsplit("/", 1)[-1]
        target = self.defs.get(name)
        if not isinstance(target, dict) or name in self.resolving:
            return {}  # unknown or recursive reference: accept anything
        self.resolving.append(name)
        try:
            return self.convert(target)
        finally:
            self.resolving.pop()

    def convert(self, schema: Any) -> dict[str, Any]:
        if not isinstance(schema, dict):
            return {}
        self.budget.enter()
        try:
            return self._convert(schema)
        finally:
            self.budget.leave()

    def _convert(self, schema: dict[str, Any]) -> dict[str, Any]:
        if isinstance(schema.get("$ref"), str):
            resolved = self.resolve(schema["$ref"])
            extra = {k: v for k, v in schema.items() if k != "$ref"}
            return {**resolved, **self.convert(extra)} if extra else resolved
        schema = _merge_all_of(schema)
        self.dropped.update(k for k in schema if k not in _READ)
        if "additionalProperties" in schema and not self.additional_properties:
            self.dropped.add("additionalProperties")
        out: dict[str, Any] = {}
        nullable = self._type(schema, out)
        nullable = self._union(schema, out) or nullable
        _copy_bounds(schema, out)
        self._enum(schema, out)
        self._structure(schema, out)
        if nullable:
            out["nullable"] = True
        return out

    def _type(self, schema: dict[str, Any], out: dict[str, Any]) -> bool:
        """``type`` (a list of types becomes ``anyOf``); whether ``null`` was among them."""
        nullable = bool(schema.get("nullable"))
        kind = schema.get("type")
        if isinstance(kind, list):
            kinds = [k for k in kind if k != "null"]
            nullable = nullable or len(kinds) < len(kind)
            if len(kinds) == 1:
                kind = kinds[0]
            else:
                kind = None
                if kinds:
                    out["anyOf"] = [self.convert({**schema, "type": k}) for k in kinds]
        if kind == "null":
            nullable, kind = True, None
        if isinstance(kind, str) and kind in _TYPES:
            out["type"] = _TYPES[kind]
        return nullable

    def _union(self, schema: dict[str, Any], out: dict[str, Any]) -> bool:
        """``anyOf`` / ``oneOf`` (a one-option union is merged in); whether it allowed null."""
        union = schema.get("anyOf", schema.get("oneOf"))
        if not isinstance(union, list) or "anyOf" in out:
            return False
        options = [s for s in union if not (isinstance(s, dict) and s.get("type") == "null")]
        converted = [self.convert(s) for s in options]
        if len(converted) == 1:
            out.update({k: v for k, v in converted[0].items() if k not in out})
        elif converted:
            out["anyOf"] = converted
        return len(options) < len(union)

    def _structure(self, schema: dict[str, Any], out: dict[str, Any]) -> None:
        """``properties`` (with their order), ``required``, ``items``, ``additionalProperties``."""
        if isinstance(schema.get("properties"), dict):
            out["properties"] = {
                name: self.convert(sub) for name, sub in schema["properties"].items()
            }
            ordering = schema.get("propertyOrdering")
            if isinstance(ordering, list):
                out["propertyOrdering"] = ordering
            elif len(out["properties"]) > 1:  # as the SDK does: keep the app's key order
                out["propertyOrdering"] = list(out["properties"])
        if isinstance(schema.get("required"), list):
            out["required"] = [r for r in schema["required"] if isinstance(r, str)]
        if "items" in schema and isinstance(schema["items"], dict):
            out["items"] = self.convert(schema["items"])
        more = schema.get("additionalProperties")
        if self.additional_properties and more is not None:
            out["additionalProperties"] = (
                self.convert(more) if isinstance(more, dict) else bool(more)
            )

    @staticmethod
    def _enum(schema: dict[str, Any], out: dict[str, Any]) -> None:
        values = schema.get("enum")
        if "const" in schema:
            values = [schema["const"]]
        if not isinstance(values, list):
            return
        if all(isinstance(v, str) for v in values):
            out["enum"] = values
            out.setdefault("type", "STRING")
            return
        listed = ", ".join(str(v) for v in values)
        note = f"One of: {listed}."
        out["description"] = f"{out['description']} {note}" if out.get("description") else note


def _copy_bounds(schema: dict[str, Any], out: dict[str, Any]) -> None:
    """The annotations and numeric bounds Gemini keeps, copied when well typed."""
    for key in ("description", "title", "format", "pattern", "example", "default"):
        if key in schema:
            out[key] = schema[key]
    for key in ("minimum", "maximum", "minItems", "maxItems", "minLength", "maxLength"):
        if isinstance(schema.get(key), (int, float)) and not isinstance(schema[key], bool):
            out[key] = schema[key]
    for key in ("minProperties", "maxProperties"):
        if isinstance(schema.get(key), int):
            out[key] = schema[key]


def _merge_all_of(schema: dict[str, Any]) -> dict[str, Any]:
    parts = schema.get("allOf")
    if not isinstance(parts, list):
        return schema
    merged = {k: v for k, v in schema.items() if k != "allOf"}
    for part in parts:
        if not isinstance(part, dict):
            continue
        for key, value in part.items():
            if key == "properties" and isinstance(value, dict):
                merged["properties"] = {**merged.get("properties", {}), **value}
            elif key == "required" and isinstance(value, list):
                merged["required"] = [*merged.get("required", []), *value]
            else:
                merged.setdefault(key, value)
    return merged


def _converter(schema: dict[str, Any], additional_properties: bool, what: str) -> _Converter:
    check_schema_bounds(schema, what=what, inlined=True)
    defs: dict[str, Any] = {}
    for key in ("definitions", "$defs"):
        if isinstance(schema.get(key), dict):
            defs.update(schema[key])
    return _Converter(defs, additional_properties=additional_properties, what=what)


def to_gemini_schema(
    schema: dict[str, Any], *, additional_properties: bool = False, what: str = "schema"
) -> dict[str, Any]:
    """Convert a JSON schema to Gemini's ``Schema`` (pure; ``schema`` is left untouched).
    ``ToolSchemaError`` (naming ``what``) past the bounds of the module rules."""
    return _converter(schema, additional_properties, what).convert(schema)


def dropped_keywords(
    schema: dict[str, Any], *, additional_properties: bool = False, what: str = "schema"
) -> list[str]:
    """The keywords of ``schema`` that ``to_gemini_schema`` leaves out, sorted."""
    converter = _converter(schema, additional_properties, what)
    converter.convert(schema)
    return sorted(converter.dropped)
