"""MCP sampling answered by the app's model, against the ``mcp``-package server
``mcp_interact_server.py`` (stdio and streamable HTTP): model preferences and settings behind
the approver, tools, denials, and ``includeContext`` up to what the app grants."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from llmbridge.errors import UsageError
from llmbridge.tools import ToolApprovalRequest
from llmbridge.tools.mcp_sampling_context import MAX_CHARS, MAX_ENTRY_CHARS, SamplingContext
from tests.tools.mcp_helpers import INTERACT_STDIO as STDIO
from tests.tools.mcp_helpers import descendants
from tests.tools.mcp_helpers import first_text as text
from tests.tools.scripted_model import Model, said, tool_call

pytestmark = pytest.mark.anyio


async def test_sampling_honours_preferences_and_settings_behind_the_approver(
    interact_web: tuple[str, int],
) -> None:
    url, _ = interact_web
    model = Model(said("Paris END"))
    asked: list[ToolApprovalRequest] = []

    def approve(request: ToolApprovalRequest) -> bool:
        asked.append(request)
        return True

    models = ["openai:gpt-small", "openai:claude-3-sonnet-compatible", "openai:gpt-large"]
    async with model.client() as client:
        with anyio.fail_after(60):
            async with lb.connect_mcp_servers(
                {"mcpServers": {"remote": {"url": url}}},
                client=client,
                sampling_models=models,
                approve=approve,
            ) as servers:
                answer = text(await servers.registry.acall("sample", {"question": "Capital?"}))
    assert answer == "served-model|endTurn|Paris END"
    body = model.requests[0]
    assert body["model"] == "claude-3-sonnet-compatible"  # the first hint matched
    assert body["temperature"] == 0.3 and body["stop"] == ["END"]
    assert 77 in (body.get("max_tokens"), body.get("max_completion_tokens"))
    assert body["messages"][0] == {"role": "system", "content": "Answer briefly."}
    assert "tools" not in body
    (request,) = asked
    assert (request.kind, request.name, request.server) == (
        "sampling",
        "openai:claude-3-sonnet-compatible",
        "remote",
    )
    args = request.arguments
    assert args["include_context"] == "thisServer" and args["stop_sequences"] == ["END"]
    assert args["model_preferences"]["intelligencePriority"] == 0.9


async def test_sampling_with_tools_sends_the_models_calls_back_to_the_server() -> None:
    model = Model(tool_call("lookup", {"word": "hola"}), said("It means hello."))
    async with model.client() as client:
        with anyio.fail_after(60):
            async with lb.connect_mcp_servers(
                {"mcpServers": {"local": STDIO}}, client=client, sampling_model="openai:gpt-x"
            ) as servers:
                answer = text(await servers.registry.acall("sample_tools", {"question": "hola?"}))
    assert answer == "toolUse:lookup({'word': 'hola'})|endTurn:It means hello."
    first, second = model.requests
    assert [t["function"]["name"] for t in first["tools"]] == ["lookup"]
    assert first["tool_choice"] == "auto"
    tool_message = second["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_1"
    assert "hola means hello" in str(tool_message["content"])
    assert second["messages"][-2]["tool_calls"][0]["function"]["name"] == "lookup"


async def test_sampling_denied_by_the_approver_reaches_the_server_as_an_error() -> None:
    model = Model()
    async with model.client() as client:
        with anyio.fail_after(60):
            async with lb.connect_mcp_servers(
                {"mcpServers": {"local": STDIO}},
                client=client,
                sampling_models=["openai:a", "openai:b"],
                approve=lambda request: lb.ApprovalDecision(False, "not now"),
            ) as servers:
                with pytest.raises(lb.LLMBridgeError, match="denied by the user: not now"):
                    await servers.registry.acall("sample", {"question": "?"})
    assert model.requests == []


def _system(body: dict[str, Any]) -> str:
    first = body["messages"][0]
    assert first["role"] == "system"
    return str(first["content"])


async def test_include_context_this_server_adds_what_the_server_returned_before() -> None:
    model = Model(said("Ok."))
    config = {"mcpServers": {"local": STDIO, "other": STDIO}}
    before = descendants()
    async with model.client() as client:
        with anyio.fail_after(60):
            async with lb.connect_mcp_servers(
                config, client=client, sampling_model="openai:m"
            ) as servers:
                await servers.registry.acall("local__echo", {"words": "first"})
                await servers.registry.acall("other__echo", {"words": "private"})
                await servers.registry.acall("local__work", {"steps": 1})
                await servers.registry.acall(
                    "local__sample", {"question": "Go on", "include": "allServers"}
                )
    system = _system(model.requests[0])
    assert system == (
        "Answer briefly.\n\n"
        "Context from this session's exchanges with MCP servers (oldest first):\n"
        "[local]\n"
        'tool echo({"words":"first"}) returned: echo: first\n'
        'tool work({"steps":1}) returned: worked 1'
    )  # allServers asked, thisServer granted (the default): the other server's words stay out
    assert "private" not in str(model.requests)
    assert descendants() == before


async def test_all_servers_when_granted_the_asking_server_first_and_the_approver_sees_it() -> None:
    model = Model(said("Ok."))
    asked: list[ToolApprovalRequest] = []

    def approve(request: ToolApprovalRequest) -> bool:
        asked.append(request)
        return request.kind == "sampling"

    secret = "other-server-key-0123456789"
    other = {**STDIO, "env": {"MCP_SECRET": "${SECRET}"}}
    config = {"mcpServers": {"local": STDIO, "other": other}}
    async with model.client() as client:
        with anyio.fail_after(60):
            async with lb.connect_mcp_servers(
                config,
                client=client,
                sampling_model="openai:m",
                approve=approve,
                sampling_context="allServers",
                environ={"SECRET": secret},
            ) as servers:
                await servers.registry.acall("other__echo", {"words": "from other"})
                await servers.registry.acall("other__whoami", {})
                await servers.registry.acall("local__echo", {"words": "from local"})
                caps = text(await servers.registry.acall("local__sampling_capability", {}))
                await servers.registry.acall(
                    "local__sample", {"question": "Go on", "include": "allServers"}
                )
    assert caps == "context tools"
    block = (
        "Context from this session's exchanges with MCP servers (oldest first):\n"
        "[local]\n"
        'tool echo({"words":"from local"}) returned: echo: from local\n'
        "tool sampling_capability({}) returned: context tools\n"
        "[other]\n"
        'tool echo({"words":"from other"}) returned: echo: from other\n'
        "tool whoami({}) returned: key=<redacted>"  # its config's secret stays with it
    )
    assert _system(model.requests[0]) == "Answer briefly.\n\n" + block
    (request,) = [r for r in asked if r.kind == "sampling"]
    assert request.arguments["context"] == block
    assert request.arguments["include_context"] == "allServers"
    assert secret not in str(model.requests) and secret not in str(asked)


async def test_no_grant_announces_no_context_and_adds_none() -> None:
    model = Model(said("Ok."))
    async with model.client() as client:
        with anyio.fail_after(60):
            async with lb.connect_mcp_servers(
                {"mcpServers": {"local": STDIO}},
                client=client,
                sampling_model="openai:m",
                sampling_context="none",
            ) as servers:
                await servers.registry.acall("echo", {"words": "first"})
                caps = text(await servers.registry.acall("sampling_capability", {}))
                await servers.registry.acall("sample", {"question": "Go on"})
    assert caps == "tools"
    assert _system(model.requests[0]) == "Answer briefly."


def test_a_resource_read_and_a_failed_call_are_context_too() -> None:
    context = SamplingContext()
    context.record_resource("s", "file:///a.txt", "alpha")
    context.record_call("s", "t", {"x": 1}, "no such thing", failed=True)
    context.record_resource("s", "file:///b.png", "[image/png]")
    assert context.for_request("s", "thisServer") == (
        "Context from this session's exchanges with MCP servers (oldest first):\n[s]\n"
        "resource file:///a.txt: alpha\n"
        'tool t({"x":1}) failed: no such thing\n'
        "resource file:///b.png: [image/png]"
    )
    assert context.for_request("s", "none") is None
    assert context.for_request("s", None) is None
    assert context.for_request("s", "bogus") is None
    assert context.for_request("nobody", "thisServer") is None


def test_context_is_bounded_newest_kept() -> None:
    context = SamplingContext("allServers")
    for i in range(100):
        context.record_call("s", "t", {"i": i}, "x" * 10_000, failed=False)
    block = context.for_request("s", "thisServer")
    assert block is not None
    lines = block.splitlines()[2:]
    assert all(len(line) <= MAX_ENTRY_CHARS for line in lines)
    assert sum(len(line) for line in lines) <= MAX_CHARS
    assert lines[-1].startswith('tool t({"i":99})')  # the newest is kept


def test_an_unknown_grant_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="sampling_context must be one of"):
        SamplingContext("everything")  # type: ignore[arg-type]
    assert "secret" not in repr(SamplingContext())
