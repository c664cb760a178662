"""The tool loop: the model calls a tool, llmbridge runs it, the model answers with the result.

    python examples/tool_loop.py            # live when OPENAI_API_KEY is set
    python examples/tool_loop.py --replay   # two recorded turns: no key, no network

Shows a ``ToolRegistry``, a tool with a hidden ``ToolContext`` parameter (the app's own object,
never shown to the model), ``client.run`` and the events it yields: the normal stream events of
every turn plus one ``ToolResult`` per executed call.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio

import llmbridge as lb
from llmbridge.testing import replay_client
from llmbridge.tools import ToolResult

MODEL = "openai:gpt-4.1-mini"
MESSAGES = [lb.ChatMessage.system("Be brief."), lb.ChatMessage.user("What's the weather in Paris?")]
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "openai"


class WeatherService:
    """Stands in for the app's real dependency (an API client, a database, ...)."""

    def __init__(self, readings: dict[str, str]) -> None:
        self.readings = readings

    def now(self, city: str) -> str:
        return self.readings.get(city, "no data")


def get_weather(ctx: lb.ToolContext[WeatherService], city: str) -> str:
    """Current weather for a city."""
    return ctx.context.now(city)


async def run(client: lb.Client) -> list[lb.ChatMessage]:
    """Run the loop, print what happens, return the whole conversation."""
    registry = lb.ToolRegistry([lb.tool(get_weather)], timeout=10)
    service = WeatherService({"Paris": "Sunny, 22 °C"})
    loop = client.run(MODEL, MESSAGES, tools=registry, max_steps=4, context=service)
    async for event in loop:
        if isinstance(event, lb.TextDelta):
            print(event.text, end="", flush=True)
        elif isinstance(event, lb.ToolCallEnd):
            print(f"→ {event.name}({event.raw_arguments})")
        elif isinstance(event, ToolResult):
            print(f"← {event.message.tool_results[0].text}")
    print(f"\n[{loop.stop_reason} after {loop.steps} model turns]")
    return loop.messages


def make_client(replay: bool) -> lb.Client:
    if not replay:
        return lb.Client()  # the key comes from OPENAI_API_KEY
    turns = [FIXTURES / "weather_call", FIXTURES / "weather_answer"]
    return lb.Client(http_client=replay_client(turns), providers={"openai": {"api_key": "replay"}})


async def main() -> None:
    replay = "--replay" in sys.argv or not os.environ.get("OPENAI_API_KEY")
    if replay:
        print("(replaying two recorded turns)", file=sys.stderr)
    async with make_client(replay) as client:
        await run(client)


if __name__ == "__main__":
    anyio.run(main)
