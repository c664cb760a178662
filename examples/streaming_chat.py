"""Streaming chat: print an answer as it arrives, then why it stopped and what it cost.

    python examples/streaming_chat.py            # live when ANTHROPIC_API_KEY is set
    python examples/streaming_chat.py --replay   # the recorded stream: no key, no network

Replay mode serves ``examples/fixtures/anthropic/haiku`` through the real client, and checks that
the request this script builds is the one that was recorded.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio

import llmbridge as lb
from llmbridge.testing import replay_client

MODEL = "anthropic:claude-sonnet-4-5"
MESSAGES = [
    lb.ChatMessage.system("You are a poet. Answer with the poem only."),
    lb.ChatMessage.user("Write a haiku about rivers."),
]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


async def chat(client: lb.Client) -> lb.ChatResponse:
    """Stream one answer to stdout; return it folded into a ``ChatResponse``."""
    acc = lb.Accumulator()
    async with client.stream(MODEL, MESSAGES, max_tokens=200) as stream:
        async for event in stream:
            acc.add(event)
            if isinstance(event, lb.TextDelta):
                print(event.text, end="", flush=True)
            elif isinstance(event, lb.Finish) and event.usage is not None:
                usage = event.usage
                print(f"\n[{event.reason}: {usage.input_tokens} in, {usage.output_tokens} out]")
    return acc.response()


def make_client(replay: bool) -> lb.Client:
    if not replay:
        return lb.Client()  # the key comes from ANTHROPIC_API_KEY
    return lb.Client(
        http_client=replay_client(FIXTURES / "anthropic" / "haiku"),
        providers={"anthropic": {"api_key": "replay"}},  # any key: replay never sends it
    )


async def main() -> None:
    replay = "--replay" in sys.argv or not os.environ.get("ANTHROPIC_API_KEY")
    if replay:
        print("(replaying a recorded stream)", file=sys.stderr)
    async with make_client(replay) as client:
        await chat(client)


if __name__ == "__main__":
    anyio.run(main)
