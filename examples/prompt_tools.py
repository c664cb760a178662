"""Tool calling for a model without native tools: prompt tools, against Ollama.

    ollama serve & ollama pull gemma3:4b
    python examples/prompt_tools.py --live   # a local Ollama server (no key needed)
    python examples/prompt_tools.py          # two recorded turns: no server, no network

The provider option ``native_tools: False`` tells llmbridge this model cannot call tools, so
``tool_mode="auto"`` (the default) picks prompt tools: the tools and the calling format go into
the system prompt, the model writes ``<function_call>{...}</function_call>`` in its text, and
llmbridge turns that into the same ``ToolCallStart`` / ``ToolCallChunk`` / ``ToolCallEnd``
events native tools give. ``tool_mode="prompt"`` forces the same for any model.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio

import llmbridge as lb
from llmbridge.testing import replay_client
from llmbridge.tools import ToolResult

MODEL = "ollama:gemma3:4b"
OPTIONS = {"ollama": {"native_tools": False}}
MESSAGES = [lb.ChatMessage.system("Be brief."), lb.ChatMessage.user("What's the weather in Paris?")]
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "ollama"


@lb.tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return {"Paris": "Sunny, 22 °C"}.get(city, "no data")


async def run(client: lb.Client) -> list[lb.ChatMessage]:
    loop = client.run(MODEL, MESSAGES, tools=[get_weather], max_steps=4)
    async for event in loop:
        if isinstance(event, lb.TextDelta):
            print(event.text, end="", flush=True)  # the <function_call> tag never shows here
        elif isinstance(event, lb.ToolCallEnd):
            print(f"→ {event.name}({event.raw_arguments})")
        elif isinstance(event, ToolResult):
            print(f"← {event.message.tool_results[0].text}")
    print(f"\n[{loop.stop_reason} after {loop.steps} model turns]")
    return loop.messages


def make_client(live: bool) -> lb.Client:
    if live:
        return lb.Client(providers=OPTIONS)
    turns = [FIXTURES / "prompt_tools_call", FIXTURES / "prompt_tools_answer"]
    return lb.Client(http_client=replay_client(turns), providers=OPTIONS)


async def main() -> None:
    live = "--live" in sys.argv
    if not live:
        print("(replaying two recorded turns; --live talks to Ollama)", file=sys.stderr)
    async with make_client(live) as client:
        await run(client)


if __name__ == "__main__":
    anyio.run(main)
