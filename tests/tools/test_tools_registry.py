"""ToolRegistry: registration, describe, call/acall, validation, limits, timeout, context."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import anyio
import pytest
from pydantic import BaseModel

import llmbridge as lb
from llmbridge.tools import (
    ToolContext,
    ToolLimitError,
    ToolOutput,
    ToolRegistry,
    ToolSpec,
    ToolTimeoutError,
    tool,
)
from llmbridge.types import ImagePart, TextPart, ToolCallPart


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool(name="slow_echo")
async def echo(text: str, delay: float = 0.0) -> str:
    """Echo after a delay."""
    await anyio.sleep(delay)
    return text


@dataclass
class Deps:
    user: str


@tool
def whoami(ctx: ToolContext[Deps], greeting: str = "hi") -> str:
    """Greet the current user."""
    return f"{greeting} {ctx.context.user} ({ctx.tool_name}, {ctx.tool_call_id})"


@tool
async def awhoami(ctx: ToolContext[Deps]) -> str:
    return ctx.context.user


class Remote:
    """A tool-like object: name + call(arguments)."""

    name = "remote"
    description = "Remote lookup."
    input_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"q": {"type": "string"}},
        "required": ["q"],
    }

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []

    async def call(self, arguments: dict[str, Any]) -> str:
        self.seen.append(arguments)
        return f"found {arguments['q']}"


def test_register_accepts_tools_specs_and_tool_like_objects() -> None:
    registry = ToolRegistry([add, echo])
    registry.register(ToolSpec.from_function(lambda x: x, name="ident"))
    remote = Remote()
    assert registry.register(remote) is remote
    assert registry.names == ["add", "slow_echo", "ident", "remote"]
    assert "add" in registry and len(registry) == 4
    assert [s.name for s in registry.specs()] == registry.names


@pytest.mark.parametrize(
    "bad",
    [
        42,
        ToolSpec(name="no_function"),
        ToolSpec.from_json_schema("schema_only", "", {}),
    ],
    ids=["int", "plain-spec", "schema-spec"],
)
def test_register_rejects_objects_without_a_spec_or_call(bad: Any) -> None:
    with pytest.raises(TypeError, match="cannot register"):
        ToolRegistry().register(bad)


def test_register_rejects_duplicate_names() -> None:
    registry = ToolRegistry([add])
    with pytest.raises(TypeError, match="already registered"):
        registry.register(add)


def test_describe() -> None:
    registry = ToolRegistry([add, Remote()])
    assert registry.describe() == {
        "add": {
            "description": "Add two integers.",
            "input_schema": {
                "additionalProperties": False,
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
                "type": "object",
            },
        },
        "remote": {"description": "Remote lookup.", "input_schema": Remote.input_schema},
    }


def test_sync_call_validates_then_runs() -> None:
    registry = ToolRegistry([add, echo])
    assert registry.call("add", {"a": 2, "b": "3"}) == 5
    assert registry.call("slow_echo", {"text": "hey"}) == "hey"  # async tool from sync code
    with pytest.raises(lb.ToolArgumentsError, match="b: Field required"):
        registry.call("add", {"a": 1})
    with pytest.raises(lb.ToolNotFoundError, match="unknown tool 'nope'") as raised:
        registry.call("nope", {})
    assert isinstance(raised.value, KeyError) and isinstance(raised.value, lb.LLMBridgeError)
    assert raised.value.tool_name == "nope"
    assert str(raised.value) == "unknown tool 'nope' (registered: add, slow_echo)"


@pytest.mark.anyio
async def test_acall_runs_sync_and_async_tools_and_objects() -> None:
    remote = Remote()
    registry = ToolRegistry([add, echo, remote])
    assert await registry.acall("add", {"a": 1, "b": 1}) == 2
    assert await registry.acall("slow_echo", {"text": "x"}) == "x"
    assert await registry.acall("remote", {"q": "cats"}) == "found cats"
    assert remote.seen == [{"q": "cats"}]
    with pytest.raises(lb.ToolArgumentsError, match="q: Field required"):
        await registry.acall("remote", {})
    assert remote.seen == [{"q": "cats"}]  # invalid arguments never reach the tool
    with pytest.raises(lb.ToolNotFoundError):
        await registry.acall("nope")
    with pytest.raises(lb.ToolNotFoundError, match="unknown tool 'nope'"):
        registry.unregister("nope")


@pytest.mark.anyio
async def test_context_is_injected_into_sync_and_async_tools() -> None:
    registry = ToolRegistry([whoami, awhoami])
    deps = Deps(user="ada")
    assert await registry.acall("whoami", {}, context=deps, call_id="c1") == "hi ada (whoami, c1)"
    assert registry.call("whoami", {"greeting": "yo"}, context=deps) == "yo ada (whoami, None)"
    assert await registry.acall("awhoami", {}, context=deps) == "ada"
    result = await registry.execute(
        ToolCallPart(id="c9", name="whoami", arguments={}), context=deps
    )
    assert result.message.tool_results[0].text == "hi ada (whoami, c9)"


def test_max_invocations() -> None:
    registry = ToolRegistry()
    registry.register(add, max_invocations=2)
    assert registry.call("add", {"a": 1, "b": 1}) == 2
    with pytest.raises(lb.ToolArgumentsError):
        registry.call("add", {})  # invalid calls do not count: the tool did not run
    assert registry.call("add", {"a": 1, "b": 2}) == 3
    with pytest.raises(ToolLimitError, match="may not be called again"):
        registry.call("add", {"a": 1, "b": 1})
    registry.reset_limits()
    assert registry.call("add", {"a": 0, "b": 0}) == 0


def test_max_exceptions() -> None:
    calls: list[int] = []

    @tool
    def flaky(n: int) -> int:
        calls.append(n)
        raise ValueError(f"bad {n}")

    registry = ToolRegistry(max_exceptions=2)
    registry.register(flaky)
    for n in (1, 2):
        with pytest.raises(ValueError, match=f"bad {n}"):
            registry.call("flaky", {"n": n})
    with pytest.raises(ToolLimitError, match="disabled: it failed 2 times"):
        registry.call("flaky", {"n": 3})
    assert calls == [1, 2]


@pytest.mark.anyio
async def test_timeout() -> None:
    registry = ToolRegistry([echo], timeout=0.05)
    assert await registry.acall("slow_echo", {"text": "fast"}) == "fast"
    with pytest.raises(ToolTimeoutError, match="did not finish within 0.05 seconds") as info:
        await registry.acall("slow_echo", {"text": "slow", "delay": 5})
    assert isinstance(info.value, TimeoutError)
    assert isinstance(info.value, lb.LLMBridgeError)


@pytest.mark.anyio
async def test_sync_tools_run_off_the_event_loop() -> None:
    import threading

    main = threading.get_ident()

    @tool
    def where() -> bool:
        return threading.get_ident() != main

    assert await ToolRegistry([where]).acall("where") is True
    assert await ToolRegistry([where], run_sync_in_thread=False).acall("where") is False


class Forecast(BaseModel):
    city: str
    high: float


@pytest.mark.parametrize(
    ("value", "parts"),
    [
        ("plain text", [TextPart(text="plain text")]),
        (42, [TextPart(text="42")]),
        (None, [TextPart(text="null")]),
        ({"a": [1, 2]}, [TextPart(text='{"a":[1,2]}')]),
        (Forecast(city="Oslo", high=3.5), [TextPart(text='{"city":"Oslo","high":3.5}')]),
        (Deps(user="ada"), [TextPart(text='{"user":"ada"}')]),
        (ImagePart(url="https://x.test/a.png"), [ImagePart(url="https://x.test/a.png")]),
        (ToolOutput("custom", is_error=True), [TextPart(text="custom")]),
    ],
    ids=["str", "int", "none", "dict", "model", "dataclass", "image", "tool-output"],
)
@pytest.mark.anyio
async def test_results_become_tool_messages(value: Any, parts: list[Any]) -> None:
    @tool
    def produce() -> Any:
        return value

    result = await ToolRegistry([produce]).execute(ToolCallPart(id="c1", name="produce"))
    assert result.type == "tool_result"
    assert (result.id, result.name) == ("c1", "produce")
    assert result.message.role == "tool"
    [part] = result.message.tool_results
    assert part.tool_call_id == "c1"
    assert part.name == "produce"
    assert part.content == parts
    assert part.is_error is result.is_error is isinstance(value, ToolOutput)


@pytest.mark.anyio
async def test_failures_become_error_results_the_model_can_read() -> None:
    @tool
    def boom(n: int) -> int:
        raise RuntimeError("disk on fire")

    registry = ToolRegistry([boom])
    cases = [
        (ToolCallPart(id="1", name="boom", arguments={"n": 1}), "RuntimeError: disk on fire"),
        (
            ToolCallPart(id="2", name="boom", arguments={"n": "x"}),
            "Invalid arguments for tool 'boom':\n- n:",
        ),
        (ToolCallPart(id="3", name="nope"), "Unknown tool 'nope'. Available tools: boom."),
        (
            ToolCallPart(id="4", name="boom", raw_arguments='{"n": ', error="invalid JSON"),
            "Could not read the arguments of tool 'boom': invalid JSON.",
        ),
    ]
    for call, text in cases:
        result = await registry.execute(call)
        assert result.is_error
        assert result.message.tool_results[0].is_error
        assert result.message.tool_results[0].text.startswith(text)
        assert result.exception is not None
