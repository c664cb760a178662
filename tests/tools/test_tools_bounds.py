"""Bounds on one turn's tool calls (issue 49, item 21): a turn of 2,000 calls ran 2,000 tool
bodies at once. Now at most ``max_parallel_tools`` (16) run at once and at most
``max_tool_calls`` (256) run per turn: the others get an error result the model reads.

Concurrency is counted inside the tool (bodies running now, the most ever), never timed."""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.tools import ToolApprovalRequest, ToolRegistry, tool
from tests.tools.scripted_model import Model, anthropic_turn, chat_chunks, said

pytestmark = pytest.mark.anyio

MODEL = "openai:gpt-4.1-mini"


def many_calls(count: int, name: str = "lookup") -> bytes:
    """One model turn asking for ``count`` calls of ``name``."""
    calls = [
        {
            "index": i,
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": name, "arguments": orjson.dumps({"n": i}).decode()},
        }
        for i in range(count)
    ]
    return chat_chunks(
        {"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": calls}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    )


class Counted:
    """A tool that counts its bodies running at once (``peak``) and in all (``ran``)."""

    def __init__(self) -> None:
        self.running = self.peak = self.ran = 0

        @tool
        async def lookup(n: int) -> str:
            """Look a number up."""
            self.running += 1
            self.ran += 1
            self.peak = max(self.peak, self.running)
            for _ in range(3):  # let every other started body run meanwhile
                await anyio.lowlevel.checkpoint()
            self.running -= 1
            return f"#{n}"

        self.tool = lookup


async def run_turn(
    count: int, *, client: dict[str, Any] | None = None, **options: Any
) -> tuple[Counted, lb.ToolLoop[Any], Model]:
    counted = Counted()
    model = Model(many_calls(count), said("done"))
    tools: Any = options.pop("tools", None)
    if tools is None:
        tools = [counted.tool]
    else:
        tools.register(counted.tool)
    async with model.client(**(client or {})) as c:
        loop = c.run(MODEL, "go", tools=tools, **options)
        with anyio.fail_after(60):
            async for _ in loop:
                pass
    return counted, loop, model


async def test_a_turn_of_2000_calls_runs_16_bodies_at_once_and_256_calls() -> None:
    counted, loop, model = await run_turn(2000)
    assert counted.peak == 16  # was 2,000
    assert counted.ran == 256
    results = [m for m in loop.new_messages if m.role == "tool"]
    assert len(results) == 2000 and loop.stop_reason == "final"
    refused = [r for r in results if r.content[0].is_error]  # type: ignore[union-attr]
    assert len(refused) == 2000 - 256
    text = refused[0].content[0].content[0].text  # type: ignore[union-attr]
    assert "was not run" in text and "max_tool_calls" in text and "256" in text
    sent = model.requests[1]["messages"]  # the model reads every result, the errors too
    assert sum(1 for m in sent if m["role"] == "tool") == 2000


async def test_without_a_cap_all_2000_run_still_16_at_once() -> None:
    counted, _, _ = await run_turn(2000, max_tool_calls=None)
    assert (counted.peak, counted.ran) == (16, 2000)


@pytest.mark.parametrize(
    ("registry", "client", "run", "peak"),
    [
        ({"max_parallel_tools": 4}, {}, {}, 4),
        ({"max_parallel_tools": 4}, {"max_parallel_tools": 2}, {}, 2),
        ({"max_parallel_tools": 4}, {"max_parallel_tools": 2}, {"max_parallel_tools": 3}, 3),
        ({}, {}, {"max_parallel_tools": None}, 40),  # None: no bound, all at once
        ({"max_parallel_tools": None}, {}, {}, 40),
    ],
)
async def test_the_run_s_bound_wins_then_the_client_s_then_the_registry_s(
    registry: dict[str, Any], client: dict[str, Any], run: dict[str, Any], peak: int
) -> None:
    counted, _, _ = await run_turn(40, client=client, tools=ToolRegistry(**registry), **run)
    assert (counted.peak, counted.ran) == (peak, 40)


async def test_the_cap_from_the_client_and_from_run() -> None:
    counted, _, _ = await run_turn(30, client={"max_tool_calls": 10})
    assert counted.ran == 10
    counted, _, _ = await run_turn(30, client={"max_tool_calls": 10}, max_tool_calls=20)
    assert counted.ran == 20


async def test_calls_past_the_cap_are_not_asked_about() -> None:
    asked: list[str] = []

    async def approve(request: ToolApprovalRequest) -> bool:
        asked.append(request.call_id)
        return True

    @tool(approval="always")
    async def lookup(n: int) -> str:
        """Look a number up."""
        return str(n)

    model = Model(many_calls(8), said("done"))
    async with model.client() as c:
        loop = c.run(MODEL, "go", tools=[lookup], approve=approve, max_tool_calls=5)
        async for _ in loop:
            pass
    assert asked == [f"call_{i}" for i in range(5)]


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "16"])
async def test_a_bound_that_is_not_a_positive_int_or_none_is_refused(bad: Any) -> None:
    for name in ("max_parallel_tools", "max_tool_calls"):
        with pytest.raises(lb.UsageError, match=name):
            ToolRegistry(**{name: bad})
        with pytest.raises(lb.UsageError, match=name):
            lb.Client(**{name: bad})
        async with lb.Client(providers={"openai": {"api_key": "sk-x"}}) as c:
            with pytest.raises(lb.UsageError, match=name):
                c.run(MODEL, "go", tools=[Counted().tool], **{name: bad})


async def test_the_defaults_are_documented_values() -> None:
    registry = ToolRegistry()
    assert (registry.max_parallel_tools, registry.max_tool_calls) == (16, 256)
    view = ToolRegistry(max_parallel_tools=3, max_tool_calls=None).subset()
    assert (view.max_parallel_tools, view.max_tool_calls) == (3, None)


def test_the_sync_client_takes_the_same_bounds() -> None:
    counted = Counted()
    model = Model(many_calls(30), said("done"))
    http = httpx.AsyncClient(transport=httpx.MockTransport(model))
    keys = {"openai": {"api_key": "sk-x"}}
    with lb.SyncClient(http_client=http, providers=keys, max_parallel_tools=3) as c:
        loop = c.run(MODEL, "go", tools=[counted.tool], max_tool_calls=12)
        for _ in loop:
            pass
    assert (counted.peak, counted.ran) == (3, 12)


async def test_client_searches_past_the_cap_find_nothing_without_searching() -> None:
    """A turn of many client tool searches: the app's search function runs for the first
    ``max_tool_calls`` only; every search still gets its answer (the conversation stays valid)."""
    asked: list[str] = []

    def mine(query: str, specs: list[lb.ToolSpec]) -> list[str]:
        asked.append(query)
        return ["lookup"]

    @tool(defer_loading=True)
    async def lookup(n: int) -> str:
        """Look a number up."""
        return str(n)

    searches = [
        {"type": "tool_use", "id": f"toolu_{i}", "name": "tool_search", "input": {"query": f"q{i}"}}
        for i in range(7)
    ]
    bodies: list[dict[str, Any]] = []
    answers = [anthropic_turn(*searches, stop="tool_use"), anthropic_turn(*[], stop="end_turn")]

    def handle(request: httpx.Request) -> httpx.Response:
        bodies.append(orjson.loads(request.content))
        body = answers[len(bodies) - 1]
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    http = httpx.AsyncClient(transport=httpx.MockTransport(handle))
    async with lb.Client(http_client=http, providers={"anthropic": {"api_key": "k"}}) as c:
        tools = [lookup, lb.ToolSearch(execution="client", search=mine)]
        loop = c.run("anthropic:claude-sonnet-4-6", "go", tools=tools, max_tool_calls=3)
        async for _ in loop:
            pass
    assert asked == ["q0", "q1", "q2"]
    blocks = [b for m in bodies[1]["messages"][-7:] for b in m["content"]]
    answered = [b for b in blocks if b.get("type") == "tool_result"]
    assert [b["tool_use_id"] for b in answered] == [f"toolu_{i}" for i in range(7)]
    assert answered[0]["content"] == [{"type": "tool_reference", "tool_name": "lookup"}]
    assert answered[6]["content"] == [{"type": "text", "text": "No tools matched the search."}]
