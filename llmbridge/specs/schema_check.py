"""Checking a tool's JSON schema before anything is built from it.

Rules: what no provider accepts at the root (a non-object, ``anyOf`` & co.), unknown types,
malformed ``enum`` / ``required`` / ``properties``, and ``$ref`` that are not local or do not
resolve are a ``ToolSchemaError`` naming the JSON pointer of the problem. Hostile schemas are
bounded: more than ``MAX_DEPTH`` levels of nesting or more than ``MAX_SCHEMA_BYTES`` is an
error, never a recursion error or a long load. ``check_tool_schema`` returns the schema's JSON
(the cache key of its validation model), so it is encoded once.
"""

from __future__ import annotations

from typing import Any

import orjson

from .errors import ToolSchemaError

__all__ = [
    "MAX_DEPTH",
    "MAX_SCHEMA_BYTES",
    "check_tool_schema",
    "normalize_root",
    "resolve_ref",
]

_JSON_TYPES = {"object", "array", "string", "integer", "number", "boolean", "null"}
_ROOT_FORBIDDEN = ("anyOf", "oneOf", "allOf", "not", "enum", "const")


def normalize_root(schema: dict[str, Any]) -> dict[str, Any]:
    """Inline a root that is only a ``$ref`` (pydantic does that for recursive models)."""
    ref = schema.get("$ref")
    if isinstance(ref, str) and schema.get("type") is None:
        target = resolve_ref(schema, ref, "#")
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        return {**target, **rest}
    return schema


MAX_DEPTH = 64
"""Nesting of schemas within schemas (properties, items, anyOf, ...) a tool schema may have."""
MAX_SCHEMA_BYTES = 1024 * 1024


def check_tool_schema(schema: Any, *, where: str = "#") -> bytes:
    """Raise ``ToolSchemaError`` for a parameters schema no provider accepts; else its JSON."""
    if not isinstance(schema, dict):
        raise ToolSchemaError(f"tool parameters must be a JSON schema object, got {schema!r}")
    kind = schema.get("type", "object")
    if kind != "object":
        raise ToolSchemaError(
            f"tool parameters must be a JSON schema of type 'object' at the root, got {kind!r}"
        )
    for key in _ROOT_FORBIDDEN:
        if key in schema:
            raise ToolSchemaError(
                f"tool parameters may not use {key!r} at the root (providers require a plain "
                "object there); wrap the alternatives in a property instead"
            )
    _check(schema, schema, where, 0)
    try:
        encoded = orjson.dumps(schema)
    except orjson.JSONEncodeError as exc:
        raise ToolSchemaError(f"tool parameters are not JSON: {exc}") from exc
    if len(encoded) > MAX_SCHEMA_BYTES:
        raise ToolSchemaError(
            f"tool parameters schema is {len(encoded):,} bytes; at most {MAX_SCHEMA_BYTES:,} "
            "are accepted"
        )
    return encoded


def _check(root: dict[str, Any], node: Any, where: str, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise ToolSchemaError(
            f"{where[:200]}...: schemas nest deeper than {MAX_DEPTH} levels; flatten the schema "
            "or use $defs"
        )
    depth += 1
    if isinstance(node, bool):
        return
    if not isinstance(node, dict):
        raise ToolSchemaError(f"{where}: a schema must be an object, got {node!r}")
    _check_own_keywords(root, node, where)
    props = node.get("properties", {})
    if not isinstance(props, dict):
        raise ToolSchemaError(f"{where}/properties: must be an object of schemas")
    for name, sub in props.items():
        _check(root, sub, f"{where}/properties/{name}", depth)
    required = node.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise ToolSchemaError(f"{where}/required: must be a list of property names")
    for key in ("items", "additionalProperties", "not"):
        if key in node:
            _check(root, node[key], f"{where}/{key}", depth)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        if key in node:
            if not isinstance(node[key], list):
                raise ToolSchemaError(f"{where}/{key}: must be a list of schemas")
            for i, sub in enumerate(node[key]):
                _check(root, sub, f"{where}/{key}/{i}", depth)
    for key in ("$defs", "definitions"):
        for name, sub in (node.get(key) or {}).items():
            _check(root, sub, f"{where}/{key}/{name}", depth)


def _check_own_keywords(root: dict[str, Any], node: dict[str, Any], where: str) -> None:
    """The node's own keywords: known types, a ``$ref`` that resolves, a non-empty ``enum``."""
    kind = node.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
    for k in kinds:
        if k not in _JSON_TYPES:
            raise ToolSchemaError(f"{where}: unknown JSON schema type {k!r}")
    if "$ref" in node:
        resolve_ref(root, node["$ref"], where)
    if "enum" in node and (not isinstance(node["enum"], list) or not node["enum"]):
        raise ToolSchemaError(f"{where}: 'enum' must be a non-empty list")


def resolve_ref(root: dict[str, Any], ref: Any, where: str) -> dict[str, Any]:
    if not isinstance(ref, str) or not ref.startswith("#/"):
        raise ToolSchemaError(
            f"{where}: only local references ('#/$defs/...') are supported, got $ref {ref!r}"
        )
    node: Any = root
    for token in ref[2:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or token not in node:
            raise ToolSchemaError(f"{where}: $ref {ref!r} does not resolve")
        node = node[token]
    if not isinstance(node, dict):
        raise ToolSchemaError(f"{where}: $ref {ref!r} does not point at a schema")
    return node
