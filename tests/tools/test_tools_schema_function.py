"""ToolSpec.from_function and @tool: schemas (golden), descriptions, context parameter, errors."""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Optional

import pytest
from pydantic import BaseModel, Field

import llmbridge as lb
from llmbridge.tools import Tool, ToolContext, ToolSpec, tool


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Place(BaseModel):
    """A place on Earth."""

    city: str
    country: str | None = None


@dataclass
class Window:
    start: int
    end: int


def get_weather(
    place: Place,
    unit: Unit = Unit.CELSIUS,
    days: Annotated[int, "How many days ahead", Field(ge=1, le=7)] = 1,
    detail: Literal["brief", "full"] = "brief",
    tags: list[str] | None = None,
    limits: dict[str, float] = {},  # noqa: B006 - a default the schema must show
) -> str:
    """Get the weather forecast.

    Uses the nearest station.

    Args:
        place: Where to look.
        unit: Temperature unit.
        days: Overridden by the Annotated text.

    Returns:
        The forecast as text.
    """
    return ""


GET_WEATHER_SCHEMA = {
    "$defs": {
        "Place": {
            "description": "A place on Earth.",
            "properties": {
                "city": {"type": "string"},
                "country": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            },
            "required": ["city"],
            "title": "Place",
            "type": "object",
        },
        "Unit": {"enum": ["celsius", "fahrenheit"], "title": "Unit", "type": "string"},
    },
    "additionalProperties": False,
    "properties": {
        "place": {"$ref": "#/$defs/Place", "description": "Where to look."},
        "unit": {"$ref": "#/$defs/Unit", "default": "celsius", "description": "Temperature unit."},
        "days": {
            "default": 1,
            "description": "How many days ahead",
            "maximum": 7,
            "minimum": 1,
            "type": "integer",
        },
        "detail": {"default": "brief", "enum": ["brief", "full"], "type": "string"},
        "tags": {
            "anyOf": [{"items": {"type": "string"}, "type": "array"}, {"type": "null"}],
            "default": None,
        },
        "limits": {"additionalProperties": {"type": "number"}, "default": {}, "type": "object"},
    },
    "required": ["place"],
    "type": "object",
}


def test_rich_signature_schema_is_golden() -> None:
    spec = ToolSpec.from_function(get_weather)
    assert spec.name == "get_weather"
    assert spec.description == "Get the weather forecast.\n\nUses the nearest station."
    assert spec.parameters == GET_WEATHER_SCHEMA
    # a plain data model: exactly the four fields, JSON-serialisable
    assert set(json.loads(spec.model_dump_json())) == {
        "name",
        "description",
        "parameters",
        "strict",
    }


def test_validated_arguments_are_python_values_with_defaults() -> None:
    spec = ToolSpec.from_function(get_weather)
    args = spec.validate_arguments({"place": {"city": "Paris"}, "unit": "fahrenheit", "days": "3"})
    assert args == {
        "place": Place(city="Paris"),
        "unit": Unit.FAHRENHEIT,
        "days": 3,
        "detail": "brief",
        "tags": None,
        "limits": {},
    }


def test_invalid_arguments_message_lists_every_problem() -> None:
    spec = ToolSpec.from_function(get_weather)
    with pytest.raises(lb.ToolArgumentsError) as info:
        spec.validate_arguments({"place": {}, "days": 9, "detail": "long", "color": "red"})
    message = str(info.value)
    assert message.startswith("Invalid arguments for tool 'get_weather':")
    assert "- place.city: Field required" in message
    assert "- days: Input should be less than or equal to 7 (got 9)" in message
    assert "- detail: Input should be 'brief' or 'full' (got 'long')" in message
    assert "- color: Extra inputs are not permitted" in message
    assert message.endswith("Call the tool again with corrected arguments.")
    assert info.value.tool_name == "get_weather"
    assert isinstance(info.value, lb.LLMBridgeError)


def test_arguments_must_be_an_object() -> None:
    spec = ToolSpec.from_function(get_weather)
    with pytest.raises(lb.ToolArgumentsError, match="expected a JSON object, got \\[1\\]"):
        spec.validate_arguments([1])  # type: ignore[arg-type]


def no_args() -> str:
    return "ok"


def optional_required(a: Optional[int], b: float, c: bool = False, d: Any = None) -> None:  # noqa: UP045
    """:param a: Nullable but required.
    :param float b: A number.
    """


def window_tool(window: Window, names: tuple[str, ...] = ()) -> None:
    """Numpy style.

    Parameters
    ----------
    window : Window
        The time window,
        in seconds.
    names : tuple of str, optional
        Who.

    Returns
    -------
    None
    """


@pytest.mark.parametrize(
    ("fn", "description", "schema"),
    [
        (no_args, "", {"additionalProperties": False, "properties": {}, "type": "object"}),
        (
            optional_required,
            "",
            {
                "additionalProperties": False,
                "properties": {
                    "a": {
                        "anyOf": [{"type": "integer"}, {"type": "null"}],
                        "description": "Nullable but required.",
                    },
                    "b": {"description": "A number.", "type": "number"},
                    "c": {"default": False, "type": "boolean"},
                    "d": {"default": None},
                },
                "required": ["a", "b"],
                "type": "object",
            },
        ),
        (
            window_tool,
            "Numpy style.",
            {
                "$defs": {
                    "Window": {
                        "additionalProperties": False,  # the root's extra="forbid" reaches dataclasses
                        "properties": {"start": {"type": "integer"}, "end": {"type": "integer"}},
                        "required": ["start", "end"],
                        "title": "Window",
                        "type": "object",
                    }
                },
                "additionalProperties": False,
                "properties": {
                    "window": {
                        "$ref": "#/$defs/Window",
                        "description": "The time window, in seconds.",
                    },
                    "names": {
                        "default": [],
                        "description": "Who.",
                        "items": {"type": "string"},
                        "type": "array",
                    },
                },
                "required": ["window"],
                "type": "object",
            },
        ),
    ],
    ids=["no-args", "rest-docstring", "numpy-docstring"],
)
def test_signature_schemas_are_golden(fn: Any, description: str, schema: dict[str, Any]) -> None:
    spec = ToolSpec.from_function(fn)
    assert spec.description == description
    assert spec.parameters == schema


def test_field_default_description_and_reserved_names() -> None:
    def f(
        model_config: str, _private: int = Field(2, description="hidden-ish"), schema: str = "x"
    ) -> None:
        """Reserved names.

        Args:
            model_config: Named like a pydantic attribute.
        """

    spec = ToolSpec.from_function(f)
    assert spec.parameters["properties"] == {
        "model_config": {"description": "Named like a pydantic attribute.", "type": "string"},
        "_private": {"default": 2, "description": "hidden-ish", "type": "integer"},
        "schema": {"default": "x", "type": "string"},
    }
    assert spec.validate_arguments({"model_config": "m", "_private": "5"}) == {
        "model_config": "m",
        "_private": 5,
        "schema": "x",
    }


def test_async_function_and_overrides() -> None:
    async def lookup(query: str) -> list[str]:
        """Search things."""
        return [query]

    spec = ToolSpec.from_function(lookup, name="search", description="Find documents.", strict=True)
    assert (spec.name, spec.description, spec.strict) == ("search", "Find documents.", True)
    assert spec.function is lookup


class Deps:
    pass


def with_context(ctx: ToolContext[Deps], city: str) -> str:
    return city


def test_context_parameter_is_hidden_from_the_schema() -> None:
    spec = ToolSpec.from_function(with_context)
    assert spec.parameters["properties"] == {"city": {"type": "string"}}
    assert spec.parameters["required"] == ["city"]
    assert spec.validate_arguments({"city": "Oslo"}) == {"city": "Oslo"}


def context_second(city: str, ctx: ToolContext[Deps]) -> str:
    return city


def test_context_parameter_anywhere_but_first_is_an_error() -> None:
    with pytest.raises(TypeError, match="'ctx' must be the first parameter"):
        ToolSpec.from_function(context_second)
    with pytest.raises(TypeError, match="must be the first parameter"):
        tool(context_second)


def test_var_args_are_rejected() -> None:
    def f(*names: str) -> None: ...

    with pytest.raises(TypeError, match=r"\*args / \*\*kwargs"):
        ToolSpec.from_function(f)


def test_decorator_bare_and_with_arguments() -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @tool(name="multiply", description="Product.")
    async def mul(a: int, b: int) -> int:
        return a * b

    assert isinstance(add, Tool)
    assert add(2, 3) == 5  # still callable as before
    assert add.tool_spec.name == "add"
    assert add.tool_spec.description == "Add two numbers."
    assert add.__name__ == "add"
    assert (mul.name, mul.description) == ("multiply", "Product.")
    assert mul.tool_spec.parameters["required"] == ["a", "b"]


def test_specs_compare_by_data() -> None:
    built = ToolSpec.from_function(no_args)
    plain = ToolSpec(name="no_args", parameters=built.parameters)
    assert built == plain
    assert built.model_dump() == plain.model_dump()
