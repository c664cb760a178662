"""What ``tools=`` accepts on the client, and specs from decorated functions."""

from __future__ import annotations

import llmbridge as lb
from llmbridge.client.tool_options import as_specs as _as_specs


def forecast(city: str, days: int = 1) -> str:
    """Forecast for a city.

    Args:
        city: Where.
        days: How many days.
    """
    return city * days


def test_plain_functions_decorated_tools_and_registries_become_specs() -> None:
    decorated = lb.tool(forecast)
    registry = lb.ToolRegistry([decorated])
    from_plain = _as_specs([forecast])[0]
    assert from_plain == decorated.tool_spec == _as_specs(registry)[0]
    assert from_plain.parameters["properties"]["days"]["type"] == "integer"


def test_from_function_on_a_decorated_tool_keeps_its_types() -> None:
    decorated = lb.tool(forecast)
    spec = lb.ToolSpec.from_function(decorated, name="forecast2")
    assert spec.name == "forecast2"
    assert spec.parameters["properties"]["city"]["type"] == "string"
