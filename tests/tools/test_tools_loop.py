"""The tool loop, driven by a fake model that replays scripted turns."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

import anyio
import anyio.lowlevel
import pytest

import llmbridge as lb
from llmbridge.events import (
    Finish,
    StreamEvent,
    TextDelta,
    ToolCallChunk,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from llmbridge.tools import ToolContext, ToolRegistry, ToolResult, run_tool_loop, tool
from llmbridge.types import ChatMessage


def call_events(
    index: int, call_id: str, name: str, raw: str, *, error: str | None = None
) -> list[StreamEvent]:
    import json

    half = len(raw) // 2
    return [
        ToolCallStart(id=call_id, name=name, index=index),
        ToolCallChunk(id=call_id, index=index, arguments_delta=raw[:half]),
        ToolCallChunk(id=call_id, index=index, arguments_delta=raw[half:]),
        ToolCallEnd(
            id=call_id,
            index=index,
            name=name,
            arguments={} if error else json.loads(raw),
            raw_arguments=raw,
            error=error,
        ),
    ]


def text_turn(text: str) -> list[StreamEvent]:
    return [
        TextDelta(text=text[:3]),
        TextDelta(text=text[3:]),
        Finish(reason="stop", usage=Usage(5, 2)),
    ]


class FakeModel:
    """``stream(messages)`` replaying one scripted turn per call; records what it was sent."""

    def __init__(self, turns: Sequence[list[StreamEvent]]) -> None:
        self.turns = list(turns)
        self.seen: list[list[ChatMessage]] = []

    async def __call__(self, messages: list[ChatMessage]) -> AsyncIterator[StreamEvent]:
        self.seen.append(list(messages))
        for event in self.turns[len(self.seen) - 1]:
            await anyio.lowlevel.checkpoint()
            yield event


@tool
def get_weather(city: str) -> dict[str, Any]:
    """Current weather for a city."""
    return {"city": city, "temp_c": 21}


async def collect(loop: Any) -> list[Any]:
    return [event async for event in loop]


@pytest.mark.anyio
async def test_two_step_conversation_with_a_tool_call_in_the_middle() -> None:
    model = FakeModel(
        [
            [
                TextDelta(text="Let me check. "),
                *call_events(0, "call_1", "get_weather", '{"city": "Paris"}'),
                Finish(reason="tool_calls"),
            ],
            text_turn("It is 21°C in Paris."),
        ]
    )
    registry = ToolRegistry([get_weather])
    start = [ChatMessage.user("Weather in Paris?")]
    loop = run_tool_loop(model, start, registry=registry, max_steps=4)
    events = await collect(loop)

    kinds = [e.type for e in events]
    assert kinds == [
        "text_delta",
        "tool_call_start",
        "tool_call_chunk",
        "tool_call_chunk",
        "tool_call_end",
        "finish",
        "tool_result",
        "text_delta",
        "text_delta",
        "finish",
    ]
    result = events[6]
    assert isinstance(result, ToolResult)
    assert (result.id, result.name, result.is_error) == ("call_1", "get_weather", False)
    assert result.value == {"city": "Paris", "temp_c": 21}

    # the second turn saw the question, the assistant's call and the tool's answer
    second = model.seen[1]
    assert [m.role for m in second] == ["user", "assistant", "tool"]
    assert second[1].text == "Let me check. "
    assert second[1].tool_calls[0].arguments == {"city": "Paris"}
    assert second[2].tool_results[0].tool_call_id == "call_1"
    assert second[2].tool_results[0].text == '{"city":"Paris","temp_c":21}'

    assert loop.stop_reason == "final"
    assert loop.steps == 2
    assert loop.response is not None and loop.response.text == "It is 21°C in Paris."
    assert [m.role for m in loop.messages] == ["user", "assistant", "tool", "assistant"]
    assert loop.new_messages == loop.messages[1:]
    assert start == [ChatMessage.user("Weather in Paris?")]  # the caller's list is not touched


@pytest.mark.anyio
async def test_calls_of_one_turn_run_concurrently_and_results_keep_call_order() -> None:
    running = 0
    peak = 0
    order: list[str] = []

    @tool
    async def slow(name: str, delay: float) -> str:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await anyio.sleep(delay)
        running -= 1
        order.append(name)
        return name

    model = FakeModel(
        [
            [
                *call_events(0, "a", "slow", '{"name": "first", "delay": 0.05}'),
                *call_events(1, "b", "slow", '{"name": "second", "delay": 0.0}'),
                Finish(reason="tool_calls"),
            ],
            text_turn("done!"),
        ]
    )
    events = await collect(
        run_tool_loop(model, [ChatMessage.user("go")], registry=ToolRegistry([slow]), max_steps=3)
    )
    results = [e for e in events if isinstance(e, ToolResult)]
    assert peak == 2  # both calls were in flight at once
    assert order == ["second", "first"]  # the short one finished first ...
    assert [r.id for r in results] == ["a", "b"]  # ... but results follow the calls' order
    assert [m.role for m in model.seen[1]] == ["user", "assistant", "tool", "tool"]


@pytest.mark.anyio
async def test_tool_errors_are_fed_back_as_error_results() -> None:
    @tool
    def divide(a: float, b: float) -> float:
        return a / b

    model = FakeModel(
        [
            [
                *call_events(0, "c1", "divide", '{"a": 1, "b": 0}'),
                *call_events(1, "c2", "divide", '{"a": "x"}'),
                *call_events(2, "c3", "missing_tool", "{}"),
                *call_events(3, "c4", "divide", '{"a": 1,', error="unterminated JSON"),
                Finish(reason="tool_calls"),
            ],
            text_turn("Sorry about that."),
        ]
    )
    loop = run_tool_loop(
        model, [ChatMessage.user("?")], registry=ToolRegistry([divide]), max_steps=2
    )
    events = await collect(loop)
    results = [e for e in events if isinstance(e, ToolResult)]
    assert all(r.is_error for r in results)
    texts = [m.tool_results[0].text for m in model.seen[1][2:]]
    assert texts[0] == "ZeroDivisionError: float division by zero"
    assert texts[1].startswith(
        "Invalid arguments for tool 'divide':\n- a: Input should be a valid number"
    )
    assert "- b: Field required" in texts[1]
    assert texts[2] == "Unknown tool 'missing_tool'. Available tools: divide."
    assert texts[3].startswith("Could not read the arguments of tool 'divide': unterminated JSON.")
    assert all(m.tool_results[0].is_error for m in model.seen[1][2:])
    assert loop.stop_reason == "final"


@pytest.mark.anyio
async def test_step_limit_stops_after_running_the_last_turns_calls() -> None:
    count = 0

    @tool
    def tick() -> int:
        nonlocal count
        count += 1
        return count

    def tool_turn(i: int) -> list[StreamEvent]:
        return [*call_events(0, f"t{i}", "tick", "{}"), Finish(reason="tool_calls")]

    model = FakeModel([tool_turn(1), tool_turn(2), tool_turn(3), text_turn("never reached")])
    loop = run_tool_loop(
        model, [ChatMessage.user("loop")], registry=ToolRegistry([tick]), max_steps=2
    )
    events = await collect(loop)
    assert len(model.seen) == 2  # two model turns, no third
    assert count == 2  # the last turn's call still ran ...
    assert isinstance(events[-1], ToolResult)  # ... and its result is the last event
    assert loop.stop_reason == "max_steps"
    # the conversation is valid and can be continued: every call has its result
    assert [m.role for m in loop.messages] == ["user", "assistant", "tool", "assistant", "tool"]

    with pytest.raises(ValueError, match="max_steps must be at least 1"):
        run_tool_loop(model, [], registry=ToolRegistry(), max_steps=0)


@pytest.mark.anyio
async def test_context_reaches_tools_through_the_loop() -> None:
    @tool
    def whoami(ctx: ToolContext[dict[str, str]]) -> str:
        return ctx.context["user"] + "/" + (ctx.tool_call_id or "")

    model = FakeModel(
        [[*call_events(0, "w1", "whoami", "{}"), Finish(reason="tool_calls")], text_turn("hello")]
    )
    loop = run_tool_loop(
        model,
        [ChatMessage.user("who?")],
        registry=ToolRegistry([whoami]),
        max_steps=3,
        context={"user": "ada"},
    )
    events = await collect(loop)
    [result] = [e for e in events if isinstance(e, ToolResult)]
    assert result.message.tool_results[0].text == "ada/w1"


@pytest.mark.anyio
async def test_stream_errors_propagate_after_the_events_that_arrived() -> None:
    class Broken:
        async def __call__(self, messages: list[ChatMessage]) -> AsyncIterator[StreamEvent]:
            yield TextDelta(text="par")
            raise lb.StreamTruncatedError("cut")

    seen: list[Any] = []
    with pytest.raises(lb.StreamTruncatedError):
        async for event in run_tool_loop(Broken(), [], registry=ToolRegistry(), max_steps=2):
            seen.append(event)
    assert [e.type for e in seen] == ["text_delta"]


@pytest.mark.anyio
async def test_final_answer_without_tools_is_one_step() -> None:
    model = FakeModel([text_turn("Just text.")])
    loop = run_tool_loop(model, [ChatMessage.user("hi")], registry=ToolRegistry(), max_steps=1)
    events = await collect(loop)
    assert [e.type for e in events] == ["text_delta", "text_delta", "finish"]
    assert loop.stop_reason == "final"
    assert loop.response is not None and loop.response.usage == Usage(5, 2)
