"""Schemas and arguments written by someone else: validation stays linear, loading polynomial."""

from __future__ import annotations

import time
import warnings
from typing import Any

import pytest

import llmbridge as lb

CATASTROPHIC = r"^([a-zA-Z0-9]+)*@example\.com$"  # 28 characters took 9.5 s with python-re


def nested_defs(levels: int) -> dict[str, Any]:
    """``$defs`` of the form ``anyOf[ref next, array of ref next]``, ``levels`` deep (~2 KB)."""
    defs: dict[str, Any] = {}
    for i in range(levels):
        nxt: dict[str, Any] = (
            {"$ref": f"#/$defs/D{i + 1}"} if i + 1 < levels else {"type": "string"}
        )
        defs[f"D{i}"] = {"anyOf": [nxt, {"type": "array", "items": nxt}]}
    return {"type": "object", "properties": {"x": {"$ref": "#/$defs/D0"}}, "$defs": defs}


def test_a_catastrophic_pattern_validates_in_linear_time() -> None:
    spec = lb.ToolSpec.from_json_schema(
        "t",
        "",
        {"type": "object", "properties": {"email": {"type": "string", "pattern": CATASTROPHIC}}},
    )
    start = time.process_time()  # CPU time: the machine's other load does not count
    with pytest.raises(lb.ToolArgumentsError, match="pattern"):
        spec.validate_arguments({"email": "a" * 10_000 + "!"})
    assert time.process_time() - start < 1.0
    assert spec.validate_arguments({"email": "bob@example.com"}) == {"email": "bob@example.com"}
    assert spec.schema_warnings == ()


@pytest.mark.parametrize("pattern", [r"(?=a)b", r"(a)\1", r"^(?!x).*$"])
def test_patterns_only_a_backtracking_engine_runs_are_skipped_with_a_warning(pattern: str) -> None:
    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": pattern}}}
    with pytest.warns(lb.ToolSchemaWarning, match="not checked"):
        spec = lb.ToolSpec.from_json_schema("t", "", schema)
    assert spec.validate_arguments({"s": "anything"}) == {"s": "anything"}
    assert len(spec.schema_warnings) == 1 and "look-arounds" in spec.schema_warnings[0]


def test_references_to_union_definitions_load_in_polynomial_time() -> None:
    start = time.process_time()
    spec = lb.ToolSpec.from_json_schema("t", "", nested_defs(20))  # 38 s before
    assert time.process_time() - start < 5
    assert spec.validate_arguments({"x": [["a"], "b"]}) == {"x": [["a"], "b"]}
    with pytest.raises(lb.ToolArgumentsError):
        spec.validate_arguments({"x": [[1]]})


def test_ref_cycles_through_unions_are_recursive_types() -> None:
    schema = {
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/A"}},
        "$defs": {
            "A": {"anyOf": [{"$ref": "#/$defs/B"}, {"type": "integer"}]},
            "B": {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/A"}}, {"type": "string"}]},
        },
    }
    spec = lb.ToolSpec.from_json_schema("t", "", schema)
    assert spec.validate_arguments({"x": [1, ["s", [2]]]}) == {"x": [1, ["s", [2]]]}
    with pytest.raises(lb.ToolArgumentsError):
        spec.validate_arguments({"x": [1.5]})


def test_absurd_nesting_is_a_schema_error_not_a_recursion_error() -> None:
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(3_000):
        deep = {"type": "object", "properties": {"a": deep}}
    with pytest.raises(lb.ToolSchemaError, match="nest deeper"):
        lb.ToolSpec.from_json_schema("t", "", deep)


def test_a_huge_schema_is_a_schema_error() -> None:
    props = {f"p{i}": {"type": "string", "description": "x" * 1000} for i in range(2_000)}
    with pytest.raises(lb.ToolSchemaError, match="bytes"):
        lb.ToolSpec.from_json_schema("t", "", {"type": "object", "properties": props})


def test_no_warning_for_ordinary_schemas() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spec = lb.ToolSpec.from_json_schema(
            "t",
            "",
            {"type": "object", "properties": {"d": {"type": "string", "pattern": r"^\d{4}$"}}},
        )
    with pytest.raises(lb.ToolArgumentsError):
        spec.validate_arguments({"d": "12345"})
