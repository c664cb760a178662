"""Structured output: stream a typed answer, watch it fill in, get it back validated.

    python examples/structured_output.py            # live when ANTHROPIC_API_KEY is set
    python examples/structured_output.py --replay   # the recorded stream: no key, no network

``response_format=Recipe`` sends the model's JSON schema the way the provider takes it
(Anthropic: ``output_config.format``); ``stream()`` yields ``PartialObject`` events as the JSON
arrives, and ``complete()`` would return ``response.parsed``, a ``Recipe``. Replay mode serves
``examples/fixtures/anthropic/recipe`` through the real client.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
from pydantic import BaseModel, Field

import llmbridge as lb
from llmbridge.testing import replay_client

MODEL = "anthropic:claude-sonnet-4-5"
MESSAGES = [lb.ChatMessage.user("A quick soup recipe.")]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


class Recipe(BaseModel):
    title: str
    minutes: int = Field(ge=1, description="Total time")
    steps: list[str]


async def cook(client: lb.Client) -> Recipe:
    """Print each partial value as it changes; return the validated recipe."""
    acc = lb.Accumulator()
    async with client.stream(MODEL, MESSAGES, response_format=Recipe, max_tokens=400) as stream:
        async for event in stream:
            acc.add(event)
            if isinstance(event, lb.PartialObject):
                print("…", json.dumps(event.value, ensure_ascii=False))
    return Recipe.model_validate_json(acc.response().text)


def make_client(replay: bool) -> lb.Client:
    if not replay:
        return lb.Client()  # the key comes from ANTHROPIC_API_KEY
    return lb.Client(
        http_client=replay_client(FIXTURES / "anthropic" / "recipe"),
        providers={"anthropic": {"api_key": "replay"}},  # any key: replay never sends it
    )


async def main() -> None:
    replay = "--replay" in sys.argv or not os.environ.get("ANTHROPIC_API_KEY")
    if replay:
        print("(replaying a recorded stream)", file=sys.stderr)
    async with make_client(replay) as client:
        recipe = await cook(client)
    print(f"{recipe.title}: {recipe.minutes} min, {len(recipe.steps)} steps")


if __name__ == "__main__":
    anyio.run(main)
