"""JSON Schema → Gemini Schema conversion."""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel

from llmbridge.providers.gemini.partial_args import parse_json_path
from llmbridge.providers.gemini.schema import KEPT_KEYWORDS, to_gemini_schema


def test_refs_are_inlined_and_recursion_stops() -> None:
    schema = {
        "type": "object",
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"value": {"type": "integer"}, "next": {"$ref": "#/$defs/Node"}},
            }
        },
        "properties": {"head": {"$ref": "#/$defs/Node", "description": "first"}},
    }
    original = copy.deepcopy(schema)
    out = to_gemini_schema(schema)
    head = out["properties"]["head"]
    assert head["description"] == "first"
    assert head["properties"]["value"] == {"type": "INTEGER"}
    assert head["properties"]["next"] == {}  # recursive: accept anything
    assert schema == original  # never mutated


def test_nullability_and_unions() -> None:
    out = to_gemini_schema(
        {
            "type": "object",
            "properties": {
                "a": {"type": ["string", "null"]},
                "b": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                "c": {"oneOf": [{"type": "string"}, {"type": "number"}]},
                "d": {"type": ["string", "integer"]},
                "e": {"type": "null"},
            },
        }
    )
    props = out["properties"]
    assert props["a"] == {"type": "STRING", "nullable": True}
    assert props["b"] == {"type": "INTEGER", "nullable": True}
    assert props["c"] == {"anyOf": [{"type": "STRING"}, {"type": "NUMBER"}]}
    assert props["d"] == {"anyOf": [{"type": "STRING"}, {"type": "INTEGER"}]}
    assert props["e"] == {"nullable": True}


def test_unsupported_keywords_dropped_and_enums_kept_as_strings() -> None:
    out = to_gemini_schema(
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "n": {
                    "type": "integer",
                    "exclusiveMinimum": 0,
                    "enum": [1, 2],
                    "description": "Size.",
                },
                "k": {"const": "fixed"},
                "all": {
                    "allOf": [{"properties": {"x": {"type": "string"}}}, {"required": ["x"]}],
                    "type": "object",
                },
            },
        }
    )
    assert set(_keys(out)) <= KEPT_KEYWORDS
    props = out["properties"]
    assert props["n"] == {"type": "INTEGER", "description": "Size. One of: 1, 2."}
    assert props["k"] == {"type": "STRING", "enum": ["fixed"]}
    assert props["all"] == {
        "type": "OBJECT",
        "properties": {"x": {"type": "STRING"}},
        "required": ["x"],
    }


def test_additional_properties_kept_for_vertex_only() -> None:
    schema = {"type": "object", "additionalProperties": {"type": "string"}}
    assert "additionalProperties" not in to_gemini_schema(schema)
    assert to_gemini_schema(schema, additional_properties=True)["additionalProperties"] == {
        "type": "STRING"
    }


def test_pydantic_model_schema_converts() -> None:
    class Item(BaseModel):
        label: str
        count: int | None = None

    class Order(BaseModel):
        items: list[Item]

    out = to_gemini_schema(Order.model_json_schema())
    item = out["properties"]["items"]["items"]
    assert item["properties"]["count"]["nullable"] is True
    assert item["required"] == ["label"]


def test_json_paths() -> None:
    assert parse_json_path("$.a.b[2]['c d'][\"e\"]") == ["a", "b", 2, "c d", "e"]
    assert parse_json_path("a.b") is None
    assert parse_json_path("$.a[") is None


def _keys(schema: Any) -> list[str]:
    if isinstance(schema, list):
        return [k for s in schema for k in _keys(s)]
    if not isinstance(schema, dict):
        return []
    out = list(schema)
    for key, value in schema.items():
        if key == "properties":
            out += [k for v in value.values() for k in _keys(v)]
        elif key in ("items", "anyOf"):
            out += _keys(value)
    return out
