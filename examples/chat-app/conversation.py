"""What the chat app's back-end asks the model: the model, the prompt, the tool, and the
recorded fixtures it replays when no model server is given.

``record.py`` records the fixtures with the same pieces, so a replayed request is byte for byte
the one the back-end builds from what the page sends back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import llmbridge as lb

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
MODEL = "llamacpp:gemma3-270m"
OPTIONS: dict[str, Any] = {"max_tokens": 60, "temperature": 0.0, "seed": 7, "stop": ["<|im_end|>"]}
PROMPTS = ["What is the weather in Paris?", "And in Oslo?"]
"""The two turns the recorded conversation answers (``example.json`` types them)."""

SYSTEM = "You are a weather assistant. Call get_weather for any city the user asks about."


def _example(n: int, city: str, sky: str, celsius: int) -> list[lb.ChatMessage]:
    call = lb.ToolCallPart(id=f"example-{n}", name="get_weather", arguments={"city": city})
    result = f'{{"city": "{city}", "sky": "{sky}", "celsius": {celsius}}}'
    return [
        lb.ChatMessage.user(f"What is the weather in {city}?"),
        lb.ChatMessage.assistant(tool_calls=[call]),
        lb.ChatMessage.tool_result(f"example-{n}", result),
        lb.ChatMessage.assistant(f"It is {sky} in {city}, {celsius} °C."),
    ]


EXAMPLES = [*_example(1, "Rome", "sunny", 24), *_example(2, "Madrid", "windy", 19)]
"""A tiny base model calls tools after seeing calls in the history (the server's README)."""


def get_weather(city: str) -> dict[str, Any]:
    """The weather now in a city (a fixed table: the example needs no weather service)."""
    table = {"paris": ("cloudy", 17), "oslo": ("snow", -3), "rome": ("sunny", 24)}
    sky, celsius = table.get(city.strip().lower(), ("clear", 20))
    return {"city": city, "sky": sky, "celsius": celsius}


def prompt(messages: list[lb.ChatMessage]) -> list[lb.ChatMessage]:
    """The conversation sent to the model: the system prompt and examples, then the page's."""
    return [lb.ChatMessage.system(SYSTEM), *EXAMPLES, *messages]


def turn_fixtures(messages: list[lb.ChatMessage]) -> list[Path]:
    """The recorded model calls of the turn that answers ``messages`` (by its user turns)."""
    turn = sum(1 for m in messages if m.role == "user")
    return sorted((FIXTURES / f"turn{turn}").glob("step*"))
