"""MCP servers, approvals and sampling: edge cases found in review (a server's unusable tool or
answer, secrets from ``${VAR}``, name clashes with app tools, model references, cancellation)."""

from __future__ import annotations

import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

import llmbridge as lb
from llmbridge.mcp import load_mcp_config
from tests.tools.mcp_helpers import APP_SERVER, HANG, alive, free_port

BAD_SCHEMA = str(Path(__file__).with_name("mcp_bad_schema_server.py"))
SECRET = "sk-live-0123456789"
ENV = {"TOKEN": SECRET}
NO_SCHEMA = """
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    result = {}
    if msg["method"] == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "no-schema", "version": "0"}}
    elif msg["method"] == "tools/list":  # inputSchema is required: the SDK cannot read this
        result = {"tools": [{"name": "x", "description": "no schema"}]}
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
"""


@pytest.mark.anyio
async def test_a_tool_no_provider_accepts_is_left_out_not_fatal(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pytest.importorskip("mcp")
    config = {
        "bad": {"command": sys.executable, "args": [BAD_SCHEMA]},
        "alpha": {"command": sys.executable, "args": [APP_SERVER, "alpha", "stdio"]},
    }
    with caplog.at_level(logging.WARNING, logger="llmbridge.mcp"), anyio.fail_after(HANG):
        async with lb.connect_mcp_servers(config) as servers:
            assert servers.failures == {}
            assert servers.registry.server_of("ok") == "bad" and "huge" not in servers.registry
            assert "whoami" in servers.registry  # the other server is untouched
            assert (await servers.registry.acall("ok", {})).content[0].text == "ok"
    assert "'huge' left out" in caplog.text


@pytest.mark.parametrize(
    "entry",
    [
        {"url": "https://x.example/mcp", "headers": "Bearer ${TOKEN}"},
        {"command": "srv", "env": ["KEY=${TOKEN}"]},
        {"url": "${TOKEN}"},
    ],
)
def test_config_errors_show_the_entry_as_written_not_the_secret(entry: Any) -> None:
    with pytest.raises(lb.MCPConfigError) as info:
        load_mcp_config({"mcpServers": {"s": entry}}, environ=ENV)
    assert SECRET not in str(info.value) and "${TOKEN}" in str(info.value)


def test_config_reprs_hide_secrets() -> None:
    configs = load_mcp_config(
        {
            "web": {"url": "https://x.example/mcp?key=${TOKEN}", "headers": {"X-Key": "literal"}},
            "cli": {"command": "srv", "args": ["--token", "${TOKEN}"], "env": {"K": "${TOKEN}"}},
        },
        environ=ENV,
    )
    shown = repr(configs)
    assert SECRET not in shown and "literal" not in shown
    assert "${TOKEN}" in shown and "X-Key" in shown
    web, cli = configs.values()
    assert web.where == "https://x.example/mcp?key=${TOKEN}"  # type: ignore[union-attr]
    assert cli.where == "srv --token '${TOKEN}'"


@pytest.mark.anyio
async def test_start_up_failures_do_not_show_expanded_secrets() -> None:
    pytest.importorskip("mcp")
    config = {
        "cli": {"command": sys.executable, "args": ["-c", "raise SystemExit(3)", "${TOKEN}"]},
        "web": {"url": f"http://127.0.0.1:{free_port()}/mcp?key=${{TOKEN}}", "timeout": 5},
    }
    with anyio.fail_after(HANG):
        async with lb.connect_mcp_servers(config, environ=ENV, startup_timeout=10) as servers:
            assert set(servers.failures) == {"cli", "web"}
            for error in servers.failures.values():
                assert SECRET not in str(error) and "${TOKEN}" in str(error.where)
            assert servers.failures["cli"].exit_status == 3


@pytest.mark.anyio
async def test_a_result_with_only_structured_content_reaches_the_model() -> None:
    pytest.importorskip("mcp")
    from llmbridge.mcp import MCPConnection
    from llmbridge.tools.results import result_message

    class Session:  # a server that sends structuredContent without the (optional) text copy
        async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            return {"content": [], "structuredContent": {"sum": 3}}

    output = await MCPConnection(Session(), where="test").call_tool("add", {"a": 1, "b": 2})
    assert output.data == {"sum": 3}
    result = result_message(call_id="1", name="add", value=output)
    assert result.message.tool_results[0].text == '{"sum":3}'


@pytest.mark.anyio
async def test_a_server_answering_what_the_sdk_cannot_read_is_a_failure_not_a_crash() -> None:
    pytest.importorskip("mcp")
    config = {
        "odd": {"command": sys.executable, "args": ["-c", NO_SCHEMA]},
        "alpha": {"command": sys.executable, "args": [APP_SERVER, "alpha", "stdio"]},
    }
    with anyio.fail_after(HANG):
        async with lb.connect_mcp_servers(config) as servers:
            assert set(servers.failures) == {"odd"}
            assert "tools/list" in str(servers.failures["odd"])
            assert "whoami" in servers.registry


@pytest.mark.anyio
async def test_a_new_server_tool_named_like_an_app_tool_is_prefixed_not_fatal() -> None:
    pytest.importorskip("mcp")

    @lb.tool
    def extra() -> str:
        """The app's own tool, in the servers' registry."""
        return "mine"

    config = {"alpha": {"command": sys.executable, "args": [APP_SERVER, "alpha", "stdio"]}}
    with anyio.fail_after(HANG):
        async with lb.connect_mcp_servers(config) as servers:
            registry = servers.registry
            registry.register(extra)
            await registry.acall("grow", {})  # the server adds 'extra', then tools/list_changed
            while "alpha__extra" not in registry:  # noqa: ASYNC110 - polling the registry itself
                await anyio.sleep(0.02)
            assert registry.server_of("extra") is None and await registry.acall("extra") == "mine"
            assert (await registry.acall("alpha__extra")).content[0].text == "extra!"


def test_reserved_names_are_not_given_out() -> None:
    from llmbridge.mcp.hub.names import assign_tool_names

    names = assign_tool_names({"a": ["extra", "x"]}, reserved=["extra"])
    assert names == {("a", "extra"): "a__extra", ("a", "x"): "x"}


@pytest.mark.parametrize(
    ("model", "label"),
    [
        ("openai:gpt-4.1-mini", "openai:gpt-4.1-mini"),
        ("provider", "fake"),  # a provider object, as Client takes one
        ("tuple", "fake-1"),
        (["openai:gpt-4.1-mini", "anthropic:claude-haiku-4-5"], "openai:gpt-4.1-mini"),
    ],
)
@pytest.mark.anyio
async def test_sampling_takes_every_model_reference_the_client_takes(
    model: Any, label: str
) -> None:
    pytest.importorskip("mcp")
    from llmbridge.mcp.sampling.callback import sampling_callback
    from tests.fakes import FakeProvider

    if model == "provider":
        model = FakeProvider()
    elif model == "tuple":
        model = (FakeProvider(), "fake-1")
    asked: list[lb.ToolApprovalRequest] = []

    def deny(request: lb.ToolApprovalRequest) -> bool:
        asked.append(request)
        return False

    answer = sampling_callback(server="s", client=None, model=model, approve=deny)
    params = {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}
    denied = await answer(None, params)
    assert "denied" in denied.message and asked[0].name == label


@pytest.mark.anyio
async def test_a_blocking_sync_approver_does_not_hold_up_cancellation() -> None:
    import threading
    import time

    from llmbridge.tools.approval import ToolApprovalRequest, ask_approval

    answered = threading.Event()

    def approve(request: ToolApprovalRequest) -> bool:  # the user never answers input()
        answered.wait(10)
        return True

    start = time.monotonic()
    with anyio.move_on_after(0.2) as scope:
        await ask_approval(approve, ToolApprovalRequest("tool_call", "t"))
    answered.set()
    assert scope.cancelled_caught and time.monotonic() - start < 5


def test_the_stderr_tail_of_a_chatty_server_reads_only_the_tail() -> None:
    import tempfile
    import tracemalloc

    from llmbridge.mcp.errors import _Boundary

    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as log:
        for _ in range(20_000):  # 20 MB of stderr over a long session
            log.write("é" * 499 + "\n")
        log.write("the end\n")
        boundary = _Boundary("srv", log)
        tracemalloc.start()
        try:
            tail = boundary.stderr_tail()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert tail is not None and tail.endswith("é\nthe end") and len(tail) == 800
    assert peak < 1_000_000


def test_vs_code_and_cursor_env_references_are_expanded() -> None:
    [entry] = load_mcp_config(
        {"servers": {"gh": {"url": "https://x.example/mcp", "headers": {"A": "${env:TOKEN}"}}}},
        environ=ENV,
    ).values()
    assert entry.headers == {"A": SECRET}  # type: ignore[union-attr]
    with pytest.raises(lb.MCPConfigError, match="NOPE"):
        load_mcp_config({"s": {"command": "srv", "args": ["${env:NOPE}"]}}, environ=ENV)


@pytest.mark.anyio
async def test_an_http_server_that_is_not_there_is_an_mcp_error() -> None:
    pytest.importorskip("mcp")
    from llmbridge.mcp import connect_http

    url = f"http://127.0.0.1:{free_port()}/mcp"
    with anyio.fail_after(20), pytest.raises(lb.MCPError) as info:
        async with connect_http(url, timeout=10, name="web"):
            pass
    assert url in str(info.value) and info.value.server == "web"


@pytest.mark.anyio
async def test_refreshing_a_server_that_is_not_configured_is_an_mcp_error() -> None:
    pytest.importorskip("mcp")
    config = {"broken": {"command": sys.executable, "args": ["-c", "raise SystemExit(2)"]}}
    with anyio.fail_after(20):
        async with lb.connect_mcp_servers(config) as servers:
            await servers.refresh("broken")  # failed to start: nothing to list, as before
            with pytest.raises(lb.MCPError, match="no MCP server named 'typo'"):
                await servers.refresh("typo")


@pytest.mark.anyio
async def test_what_a_server_left_running_in_its_process_group_is_stopped_with_it() -> None:
    pytest.importorskip("mcp")
    from tests.tools.mcp_helpers import descendants

    # the server exits as soon as its stdin closes, leaving a background child behind (that
    # child is reparented when the server exits: counting our descendants cannot see it)
    script = f"sleep 300 & exec {sys.executable} {APP_SERVER} a stdio"
    config = {"a": {"command": "sh", "args": ["-c", script]}}
    before = descendants()
    with anyio.fail_after(HANG):
        async with lb.connect_mcp_servers(config) as servers:
            assert "whoami" in servers.registry
            started = descendants() - before
            assert len(started) == 2  # the server and its sleep
    with anyio.move_on_after(2):  # a killed process takes a moment to die
        while any(alive(pid) for pid in started):  # noqa: ASYNC110 - polling /proc
            await anyio.sleep(0.02)
    left = [pid for pid in started if alive(pid)]
    for pid in left:  # do not leave it to the next test
        os.kill(pid, signal.SIGKILL)
    assert left == []


def test_an_async_approval_rule_is_a_usage_error_not_always_true() -> None:
    async def over_100(args: Any) -> bool:  # a coroutine is truthy: every call would ask
        return bool(args["amount"] > 100)

    with pytest.raises(lb.UsageError, match="plain function"):

        @lb.tool(approval=over_100)  # type: ignore[arg-type]
        def pay(amount: int) -> str:
            return "paid"


@pytest.mark.parametrize("rule", ["sometimes", {"search": "maybe"}])
def test_a_bad_approval_rule_is_refused_before_anything_starts(rule: Any) -> None:
    pytest.importorskip("mcp")

    async def enter() -> None:
        config = {"a": {"command": "never-started"}}
        async with lb.connect_mcp_servers(config, approval={"a": rule}):
            pytest.fail("nothing may start")

    with pytest.raises(lb.UsageError, match="approval="):
        anyio.run(enter)


def test_base64_as_servers_send_it_and_a_bad_block_does_not_fail_the_result() -> None:
    import base64

    from llmbridge.mcp.content import content_parts

    png = b"\x89PNG\r\n\x1a\n" + b"x" * 7
    unpadded = base64.b64encode(png).decode().rstrip("=")
    wrapped = base64.b64encode(png).decode()
    wrapped = wrapped[:8] + "\n" + wrapped[8:]
    parts = content_parts(
        [
            {"type": "image", "data": unpadded, "mimeType": "image/png"},
            {"type": "image", "data": wrapped, "mimeType": "image/png"},
            {"type": "audio", "data": "not base64 at all!", "mimeType": "audio/wav"},
            {"type": "text", "text": "done"},
        ]
    )
    assert [type(p).__name__ for p in parts] == ["ImagePart", "ImagePart", "TextPart", "TextPart"]
    assert parts[0].data == parts[1].data == png  # type: ignore[union-attr]
    assert parts[2].text == "[audio: its data is not valid base64, not shown]"  # type: ignore[union-attr]
    assert parts[3].text == "done"  # type: ignore[union-attr]
