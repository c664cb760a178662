"""ToolSpec.from_json_schema / from_model / from_mcp: checking, validation models, messages."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Literal

import pytest
from pydantic import BaseModel

import llmbridge as lb
from llmbridge.tools import ToolSchemaError, ToolSpec

SCHEMA: dict[str, Any] = {
    "type": "object",
    "$defs": {
        "Node": {
            "type": "object",
            "properties": {
                "value": {"type": "integer"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            },
            "required": ["value"],
        },
        "Cat": {
            "type": "object",
            "properties": {"kind": {"const": "cat"}, "lives": {"type": "integer", "default": 9}},
            "required": ["kind"],
        },
        "Dog": {
            "type": "object",
            "properties": {"kind": {"const": "dog"}, "bark": {"type": "string", "minLength": 1}},
            "required": ["kind", "bark"],
            "additionalProperties": False,
        },
    },
    "properties": {
        "tree": {"$ref": "#/$defs/Node", "description": "A recursive tree."},
        "pet": {
            "oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}],
            "discriminator": {"propertyName": "kind"},
        },
        "color": {"enum": ["red", "green"]},
        "count": {"type": ["integer", "null"], "minimum": 0},
        "ratio": {"type": "number", "default": 0.5, "maximum": 1},
        "label": {"anyOf": [{"type": "string", "maxLength": 5}, {"type": "null"}]},
        "note": {"type": "string", "nullable": True},
        "scores": {"type": "object", "additionalProperties": {"type": "number"}},
        "point": {
            "type": "object",
            "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
            "required": ["x", "y"],
        },
        "model_config": {"type": "string"},
        "with space": {"type": "boolean"},
    },
    "required": ["tree", "pet"],
}


@pytest.fixture(scope="module")
def spec() -> ToolSpec:
    return ToolSpec.from_json_schema("shapes", "Exercise every keyword.", SCHEMA)


def test_schema_is_kept_as_given(spec: ToolSpec) -> None:
    assert spec.parameters == SCHEMA
    assert spec.description == "Exercise every keyword."


def test_valid_arguments_round_trip_as_json(spec: ToolSpec) -> None:
    args = {
        "tree": {"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]},
        "pet": {"kind": "dog", "bark": "woof"},
        "color": "green",
        "count": None,
        "label": "short",
        "note": None,
        "scores": {"a": 1, "b": 2.5},
        "point": {"x": 1, "y": 2.0},
        "model_config": "kept",
        "with space": True,
    }
    # only explicit defaults are added; left-out optionals stay out; ints stay ints
    assert spec.validate_arguments(args) == {**args, "ratio": 0.5}
    minimal = spec.validate_arguments({"tree": {"value": 0}, "pet": {"kind": "cat"}})
    assert minimal == {"tree": {"value": 0}, "pet": {"kind": "cat", "lives": 9}, "ratio": 0.5}


def test_unknown_properties_pass_through_unless_forbidden(spec: ToolSpec) -> None:
    args = spec.validate_arguments({"tree": {"value": 0, "extra": 1}, "pet": {"kind": "cat"}})
    assert args["tree"] == {"value": 0, "extra": 1}
    with pytest.raises(
        lb.ToolArgumentsError, match=r"pet\.dog\.extra: Extra inputs are not permitted"
    ):
        spec.validate_arguments(
            {"tree": {"value": 0}, "pet": {"kind": "dog", "bark": "x", "extra": 1}}
        )


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"pet": {"kind": "cat"}}, "- tree: Field required"),
        (
            {"tree": {"value": 1, "children": [{"value": "x"}]}, "pet": {"kind": "cat"}},
            "- tree.children[0].value: Input should be a valid integer, unable to parse string "
            "as an integer (got 'x')",
        ),
        (
            {"tree": {"value": 1}, "pet": {"kind": "cow"}},
            "- pet: Input tag 'cow' found using 'kind' does not match any of the expected tags: "
            "'cat', 'dog' (got {'kind': 'cow'})",
        ),
        (
            {"tree": {"value": 1}, "pet": {"kind": "dog", "bark": ""}},
            "- pet.dog.bark: String should have at least 1 character (got '')",
        ),
        (
            {"tree": {"value": 1}, "pet": {"kind": "cat"}, "color": "blue"},
            "- color: Input should be 'red' or 'green' (got 'blue')",
        ),
        (
            {"tree": {"value": 1}, "pet": {"kind": "cat"}, "count": -1},
            "- count: Input should be greater than or equal to 0 (got -1)",
        ),
        ({"tree": {"value": 1}, "pet": {"kind": "cat"}, "ratio": 2}, "- ratio"),
        (
            {"tree": {"value": 1}, "pet": {"kind": "cat"}, "label": "too long"},
            "- label: String should have at most 5 characters (got 'too long')",
        ),
        (
            {"tree": {"value": 1}, "pet": {"kind": "cat"}, "point": {"x": 1}},
            "- point.y: Field required",
        ),
        ({"tree": {"value": 1}, "pet": {"kind": "cat"}, "scores": {"a": "high"}}, "- scores.a"),
    ],
    ids=[
        "missing",
        "nested-recursive",
        "bad-tag",
        "min-length",
        "enum",
        "minimum",
        "maximum",
        "anyof",
        "nested-object",
        "dict-values",
    ],
)
def test_invalid_arguments_are_rejected_with_a_path(
    spec: ToolSpec, arguments: dict[str, Any], expected: str
) -> None:
    with pytest.raises(lb.ToolArgumentsError) as info:
        spec.validate_arguments(arguments)
    assert expected in str(info.value)
    assert str(info.value).startswith("Invalid arguments for tool 'shapes':")


def test_plain_spec_validates_from_its_parameters() -> None:
    spec = lb.ToolSpec(
        name="echo",
        parameters={
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    )
    assert spec.validate_arguments({"text": "hi"}) == {"text": "hi"}
    with pytest.raises(lb.ToolArgumentsError, match="text: Field required"):
        spec.validate_arguments({})
    assert spec == lb.ToolSpec(name="echo", parameters=spec.parameters)  # caching changes nothing


def test_all_of_is_merged() -> None:
    spec = ToolSpec.from_json_schema(
        "merge",
        None,
        {
            "type": "object",
            "$defs": {
                "Base": {
                    "type": "object",
                    "properties": {"id": {"type": "integer"}},
                    "required": ["id"],
                }
            },
            "properties": {
                "item": {
                    "allOf": [
                        {"$ref": "#/$defs/Base"},
                        {
                            "type": "object",
                            "properties": {"name": {"type": "string"}},
                            "required": ["name"],
                        },
                    ]
                }
            },
        },
    )
    assert spec.validate_arguments({"item": {"id": "1", "name": "a"}}) == {
        "item": {"id": 1, "name": "a"}
    }
    with pytest.raises(lb.ToolArgumentsError, match="item.name: Field required"):
        spec.validate_arguments({"item": {"id": 1}})


def test_missing_root_type_and_properties_are_filled_in() -> None:
    spec = ToolSpec.from_json_schema("bare", "", {})
    assert spec.parameters == {"type": "object", "properties": {}}
    assert spec.validate_arguments(None) == {}


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"type": "array"}, "of type 'object' at the root, got 'array'"),
        ({"type": "object", "anyOf": [{}, {}]}, "may not use 'anyOf' at the root"),
        (
            {"type": "object", "properties": {"a": {"$ref": "https://x.test/s.json"}}},
            "#/properties/a: only local references",
        ),
        (
            {"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"}}},
            "#/properties/a: $ref '#/$defs/Missing' does not resolve",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "text"}}},
            "#/properties/a: unknown JSON schema type 'text'",
        ),
        ({"type": "object", "properties": {"a": {"enum": []}}}, "'enum' must be a non-empty list"),
        ({"type": "object", "properties": {"a": 3}}, "#/properties/a: a schema must be an object"),
        (
            {"type": "object", "properties": {"a": {"type": "array", "items": "x"}}},
            "#/properties/a/items",
        ),
        ({"type": "object", "required": "a"}, "#/required: must be a list of property names"),
    ],
)
def test_schemas_no_provider_accepts_are_clear_errors(schema: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolSchemaError) as info:
        ToolSpec.from_json_schema("bad", "", schema)
    assert message in str(info.value)
    assert isinstance(info.value, lb.LLMBridgeError)


class TreeNode(BaseModel):
    """A node of a tree."""

    value: int
    kind: Literal["leaf", "branch"] = "leaf"
    children: list[TreeNode] = []


def test_from_model_handles_a_recursive_model() -> None:
    spec = ToolSpec.from_model(TreeNode)
    assert spec.name == "TreeNode"
    assert spec.description == "A node of a tree."
    assert spec.parameters == {
        "$defs": {
            "TreeNode": {
                "description": "A node of a tree.",
                "properties": {
                    "value": {"type": "integer"},
                    "kind": {"default": "leaf", "enum": ["leaf", "branch"], "type": "string"},
                    "children": {
                        "default": [],
                        "items": {"$ref": "#/$defs/TreeNode"},
                        "type": "array",
                    },
                },
                "required": ["value"],
                "title": "TreeNode",
                "type": "object",
            }
        },
        "properties": {
            "value": {"type": "integer"},
            "kind": {"default": "leaf", "enum": ["leaf", "branch"], "type": "string"},
            "children": {"default": [], "items": {"$ref": "#/$defs/TreeNode"}, "type": "array"},
        },
        "required": ["value"],
        "type": "object",
    }
    args = spec.validate_arguments({"value": 1, "children": [{"value": 2}]})
    assert args == {"value": 1, "kind": "leaf", "children": [TreeNode(value=2)]}
    with pytest.raises(lb.ToolArgumentsError, match=r"children\[0\]\.kind"):
        spec.validate_arguments({"value": 1, "children": [{"value": 2, "kind": "root"}]})
    named = ToolSpec.from_model(TreeNode, name="make_tree", description="Build a tree.")
    assert (named.name, named.description) == ("make_tree", "Build a tree.")


MCP_TOOL = {
    "name": "add",
    "description": "Add numbers.",
    "inputSchema": {
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
    },
}


def test_from_mcp_accepts_dicts_and_objects() -> None:
    from_dict = ToolSpec.from_mcp(MCP_TOOL)
    camel = SimpleNamespace(**MCP_TOOL)
    snake = SimpleNamespace(
        name="add", description="Add numbers.", input_schema=MCP_TOOL["inputSchema"]
    )
    assert from_dict == ToolSpec.from_mcp(camel) == ToolSpec.from_mcp(snake)
    assert from_dict.parameters == MCP_TOOL["inputSchema"]
    assert from_dict.validate_arguments({"a": 1, "b": 2.5}) == {"a": 1, "b": 2.5}
    with pytest.raises(lb.ToolArgumentsError, match="b: Field required"):
        from_dict.validate_arguments({"a": 1})
    no_description = ToolSpec.from_mcp({"name": "ping", "inputSchema": {"type": "object"}})
    assert no_description.description == ""
    with pytest.raises(TypeError, match="no name"):
        ToolSpec.from_mcp({"description": "x"})
