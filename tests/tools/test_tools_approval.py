"""Approvals in the tool loop and ``ToolRegistry.subset`` views (no servers: app tools)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.lowlevel
import pytest

import llmbridge as lb
from llmbridge.events import Finish, StreamEvent, ToolCallEnd, ToolCallStart
from llmbridge.tools import ToolRegistry, ToolResult, run_tool_loop
from llmbridge.tools.approval import ApprovalDecision, ToolApprovalRequest
from llmbridge.types import ChatMessage, ToolCallPart

pytestmark = pytest.mark.anyio

ran: list[str] = []


@lb.tool(approval="always")
def delete_file(path: str) -> str:
    """Delete a file."""
    ran.append(f"delete {path}")
    return "deleted"


@lb.tool(approval=lambda args: args["amount"] > 100)
def pay(amount: int) -> str:
    """Pay someone."""
    ran.append(f"pay {amount}")
    return "paid"


@lb.tool
def read_file(path: str) -> str:
    """Read a file."""
    ran.append(f"read {path}")
    return "contents"


def calls(*items: tuple[str, dict[str, Any]]) -> list[ToolCallPart]:
    return [ToolCallPart(id=f"c{i}", name=n, arguments=a) for i, (n, a) in enumerate(items)]


@pytest.fixture(autouse=True)
def _clear() -> None:
    ran.clear()


async def test_calls_needing_approval_ask_the_app_in_order_and_denials_are_errors() -> None:
    asked: list[ToolApprovalRequest] = []

    def approve(request: ToolApprovalRequest) -> bool:  # sync: runs in a worker thread
        asked.append(request)
        return request.arguments.get("path") != "/etc/passwd"

    registry = ToolRegistry([delete_file, pay, read_file])
    results = await registry.execute_all(
        calls(
            ("delete_file", {"path": "/tmp/x"}),
            ("delete_file", {"path": "/etc/passwd"}),
            ("pay", {"amount": 5}),
            ("pay", {"amount": 500}),
            ("read_file", {"path": "a"}),
        ),
        approve=approve,
    )
    assert [(a.name, a.arguments) for a in asked] == [
        ("delete_file", {"path": "/tmp/x"}),
        ("delete_file", {"path": "/etc/passwd"}),
        ("pay", {"amount": 500}),
    ]
    assert [a.call_id for a in asked] == ["c0", "c1", "c3"]
    assert all(a.kind == "tool_call" and a.server is None for a in asked)
    assert [r.is_error for r in results] == [False, True, False, False, False]
    denied = results[1]
    assert "was not approved" in denied.message.tool_results[0].text
    assert isinstance(denied.exception, lb.LLMBridgeError)
    assert sorted(ran) == ["delete /tmp/x", "pay 5", "pay 500", "read a"]


async def test_no_approver_fails_closed_and_a_reason_reaches_the_model() -> None:
    registry = ToolRegistry([delete_file])
    [result] = await registry.execute_all(calls(("delete_file", {"path": "x"})))
    assert result.is_error and "gave no approver" in result.message.tool_results[0].text

    async def approve(request: ToolApprovalRequest) -> ApprovalDecision:
        await anyio.lowlevel.checkpoint()
        return ApprovalDecision(False, "the user is away")

    [result] = await registry.execute_all(calls(("delete_file", {"path": "x"})), approve=approve)
    assert "the user is away" in result.message.tool_results[0].text
    assert ran == []
    # bad arguments are reported without bothering the user
    [result] = await registry.execute_all(calls(("delete_file", {})), approve=approve)
    assert result.is_error and "path" in result.message.tool_results[0].text


async def test_the_registry_approver_and_direct_calls() -> None:
    registry = ToolRegistry([delete_file], approve=lambda request: True)
    [result] = await registry.execute_all(calls(("delete_file", {"path": "y"})))
    assert not result.is_error
    assert await registry.acall("delete_file", {"path": "z"}) == "deleted"  # the app's own call
    assert ran == ["delete y", "delete z"]
    assert registry.describe()["delete_file"]["approval"] == "always"


async def test_client_run_approve_pauses_the_loop() -> None:
    turns: list[list[StreamEvent]] = [
        [
            ToolCallStart(id="a", name="delete_file", index=0),
            ToolCallEnd(
                id="a", index=0, name="delete_file", arguments={"path": "q"}, raw_arguments=""
            ),
            Finish(reason="tool_calls"),
        ],
        [Finish(reason="stop")],
    ]
    seen: list[str] = []

    async def model(messages: list[ChatMessage]) -> AsyncIterator[StreamEvent]:
        seen.append(messages[-1].role)
        for event in turns.pop(0):
            yield event

    async def approve(request: ToolApprovalRequest) -> bool:
        assert ran == []  # asked before the tool runs
        return False

    registry = ToolRegistry([delete_file])
    loop = run_tool_loop(model, [ChatMessage.user("rm q")], registry=registry, approve=approve)
    events = [e async for e in loop]
    [result] = [e for e in events if isinstance(e, ToolResult)]
    assert result.is_error and seen == ["user", "tool"]  # the model read the denial
    assert ran == [] and loop.stop_reason == "final"


def test_bad_approval_rules_are_usage_errors() -> None:
    with pytest.raises(lb.UsageError, match="approval="):

        @lb.tool(approval="sometimes")  # type: ignore[call-overload]
        def f() -> None: ...

    with pytest.raises(lb.UsageError, match="approval="):
        ToolRegistry().register(read_file, approval="maybe")  # type: ignore[arg-type]


async def test_subset_is_a_live_view_sharing_limits() -> None:
    class Remote:
        def __init__(self, name: str, server: str) -> None:
            self.name, self.server, self.description = name, server, ""

        async def call(self, arguments: dict[str, Any]) -> str:
            return self.name

    full = ToolRegistry([read_file], max_invocations=2)
    full.register(Remote("a_search", "a"))
    full.register(Remote("b_search", "b"))
    full.declare_server("c")  # configured, no tools (e.g. failed)
    view = full.subset(servers=["a"], tools=["read_file"])
    assert view.names == ["read_file", "a_search"]
    assert [s.name for s in view.specs()] == ["read_file", "a_search"]
    assert full.subset(servers=["c"]).names == []
    assert full.subset(servers="a").names == full.subset(servers=["a"]).names == ["a_search"]
    assert full.subset(tools="read_file").names == ["read_file"]  # one name, not its letters
    assert full.subset().names == full.names
    nested = view.subset(tools=["a_search"])
    assert nested.names == ["a_search"]
    assert full.describe()["a_search"]["server"] == "a"
    assert "server" not in full.describe()["read_file"]

    # limits are shared: two calls through the view use up the full registry's budget
    await view.acall("read_file", {"path": "1"})
    await view.acall("read_file", {"path": "2"})
    with pytest.raises(lb.ToolLimitError):
        await full.acall("read_file", {"path": "3"})
    # a tool outside the view is an unknown tool for the model
    [result] = await view.execute_all(calls(("b_search", {})))
    assert result.is_error and "Unknown tool 'b_search'" in result.message.tool_results[0].text
    # live: tools registered later show up in views that select their server
    full.register(Remote("a_new", "a"))
    assert "a_new" in view and "a_new" not in nested
    full.unregister("a_search")
    assert view.names == ["read_file", "a_new"]

    with pytest.raises(lb.UsageError, match="no server"):
        full.subset(servers=["nope"])
    with pytest.raises(lb.UsageError, match="typo"):
        full.subset(tools=["typo"])
    with pytest.raises(lb.UsageError, match="full registry"):
        view.register(pay)


async def test_client_run_asks_the_approver_over_a_replayed_openai_conversation() -> None:
    from pathlib import Path

    from llmbridge.testing import replay_client

    examples = Path(__file__).resolve().parents[2] / "examples" / "fixtures" / "openai"
    turns = [examples / "weather_call", examples / "weather_answer"]

    @lb.tool(approval="always")
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return "Sunny, 22 °C"

    asked: list[ToolApprovalRequest] = []

    async def approve(request: ToolApprovalRequest) -> bool:
        asked.append(request)
        return True

    messages = [ChatMessage.system("Be brief."), ChatMessage.user("What's the weather in Paris?")]
    http = replay_client(turns)
    async with lb.Client(http_client=http, providers={"openai": {"api_key": "k"}}) as client:
        loop = client.run("openai:gpt-4.1-mini", messages, tools=[get_weather], approve=approve)
        results = [e async for e in loop if isinstance(e, ToolResult)]
    assert [(a.name, a.arguments) for a in asked] == [("get_weather", {"city": "Paris"})]
    assert [r.value for r in results] == ["Sunny, 22 °C"] and loop.stop_reason == "final"
