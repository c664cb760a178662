"""JSON Schema → what Anthropic's structured outputs accept (``output_config.format``).

Follows the structured-outputs schema limits (https://docs.claude.com/en/docs/build-with-claude/
structured-outputs, "JSON Schema limitations") the way the official SDK's ``transform_schema``
(``anthropic.lib._parse._transform``) applies them; a test checks both give the same schema.

* every object gets ``additionalProperties: false`` (the only value the API takes);
* kept: ``type``, ``enum`` / ``const`` of primitives, ``anyOf`` (``oneOf`` becomes ``anyOf``),
  ``allOf``, ``$ref`` / ``$defs``, ``properties`` / ``required``, ``items``, ``description``,
  ``title``, string ``format`` of the supported formats, ``minItems`` of 0 or 1;
* anything else (``minimum``, ``maxLength``, ``pattern``, other formats, ``default``...) is not
  enforceable: it moves into the description as ``{key: value}``, so the model still reads it,
  and the reply is validated against the full schema by llmbridge. Each move is reported.
* the input is never mutated.
"""

from __future__ import annotations

from typing import Any

from ...specs.schema_bounds import check_schema_bounds

__all__ = ["STRING_FORMATS", "output_schema"]

STRING_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
)
_TYPES = frozenset({"object", "array", "string", "integer", "number", "boolean", "null"})


def output_schema(schema: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The schema to send and what could not be kept (one note per moved keyword set)."""
    check_schema_bounds(schema, what="response_format")  # nesting bounded: _transform recurses
    notes: list[str] = []
    return _transform(schema, "$", notes), notes


def _primitive(value: object) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _transform(schema: dict[str, Any], path: str, notes: list[str]) -> dict[str, Any]:
    rest = dict(schema)
    out: dict[str, Any] = {}
    defs = rest.pop("$defs", None)
    if isinstance(defs, dict):
        out["$defs"] = {k: _transform(v, f"{path}.$defs.{k}", notes) for k, v in defs.items()}
    ref = rest.pop("$ref", None)
    if ref is not None:
        out["$ref"] = ref
        return out
    kind = rest.pop("type", None)
    variants = {key: rest.pop(key, None) for key in ("anyOf", "oneOf", "allOf")}
    if _literal(rest, out):
        kind = None
    literal = "enum" in out or "const" in out
    if not _variants(variants, path, notes, out) and not literal and kind is not None:
        out["type"] = kind
    for key in ("description", "title"):
        if key in rest:
            out[key] = rest.pop(key)
    _by_kind(kind, rest, path, notes, out)
    if rest:
        _move_into_description(rest, path, notes, out)
    return out


def _literal(rest: dict[str, Any], out: dict[str, Any]) -> bool:
    """``enum`` / ``const`` of primitives, moved to ``out``; whether there was one."""
    enum = rest.get("enum")
    if isinstance(enum, list) and enum and all(_primitive(v) for v in enum):
        out["enum"] = list(rest.pop("enum"))
    if "const" in rest and _primitive(rest["const"]):
        out["const"] = rest.pop("const")
    return "enum" in out or "const" in out


def _variants(variants: dict[str, Any], path: str, notes: list[str], out: dict[str, Any]) -> bool:
    """``anyOf`` (or ``oneOf``, sent as ``anyOf``) else ``allOf``; whether one was written."""
    subs = variants["anyOf"] if isinstance(variants["anyOf"], list) else variants["oneOf"]
    if isinstance(subs, list):
        out["anyOf"] = [_transform(s, f"{path}.anyOf.{i}", notes) for i, s in enumerate(subs)]
        return True
    if isinstance(variants["allOf"], list):
        subs = variants["allOf"]
        out["allOf"] = [_transform(s, f"{path}.allOf.{i}", notes) for i, s in enumerate(subs)]
        return True
    return False


def _by_kind(
    kind: Any, rest: dict[str, Any], path: str, notes: list[str], out: dict[str, Any]
) -> None:
    """What each type keeps: an object's properties (closed), a string's format, an array's
    items and ``minItems`` 0 or 1."""
    if kind == "object":
        props = rest.pop("properties", {})
        out["properties"] = {
            k: _transform(v, f"{path}.{k}", notes) for k, v in (props or {}).items()
        }
        rest.pop("additionalProperties", None)
        out["additionalProperties"] = False
        if "required" in rest:
            out["required"] = list(rest.pop("required"))
    elif kind == "string":
        if rest.get("format") in STRING_FORMATS:
            out["format"] = rest.pop("format")
    elif kind == "array":
        items = rest.pop("items", None)
        if isinstance(items, dict):
            out["items"] = _transform(items, f"{path}[]", notes)
        if rest.get("minItems") in (0, 1):
            out["minItems"] = rest.pop("minItems")
    elif kind is not None and kind not in _TYPES:
        out["type"] = kind  # not a JSON Schema type: the API will say so


def _move_into_description(
    rest: dict[str, Any], path: str, notes: list[str], out: dict[str, Any]
) -> None:
    """Keywords the API does not take, written into the description (and noted)."""
    moved = ", ".join(f"{key}: {value}" for key, value in rest.items())
    description = out.get("description")
    out["description"] = (f"{description}\n\n" if description is not None else "") + f"{{{moved}}}"
    notes.append(f"{path}: {', '.join(rest)}")
