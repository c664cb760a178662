"""``connect_mcp_servers`` against real servers written with the ``mcp`` package: one over stdio,
one over streamable HTTP, and one that cannot start, in one config; on asyncio, uvloop and trio.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from llmbridge.events import Finish, StreamEvent, ToolCallEnd, ToolCallStart
from llmbridge.mcp import MCPConnectionLostError
from llmbridge.tools import ToolApprovalRequest, ToolResult, run_tool_loop
from llmbridge.tools.results import ToolOutput
from tests.fakes import FakeProvider, mock_client, sse_body, sse_response
from tests.tools.mcp_helpers import APP_SERVER, HANG, descendants, free_port, http_app_server

pytestmark = pytest.mark.anyio

PAGED = str(Path(__file__).with_name("mcp_server_fixture.py"))
BROKEN = "import sys; print('config missing: TOKEN', file=sys.stderr); sys.exit(4)"


@pytest.fixture(scope="module")
def web() -> Iterator[tuple[str, int]]:
    with http_app_server("web") as server:
        yield server


def config(url: str, *, paged: bool = False) -> dict[str, Any]:
    return {
        "mcpServers": {
            "alpha": {
                "command": sys.executable,
                "args": [APP_SERVER, "alpha", "stdio"],
                "env": {"MCP_SECRET": "${SECRET}"},
                "approval": ["whoami"],
            },
            "web": {
                "url": url,
                "headers": {"Authorization": "Bearer ${SECRET}"},
                "allowed_tools": ["search", "slow", "speak", "link"],
                "timeout": 1,
            },
            "broken": {"command": sys.executable, "args": ["-c", BROKEN]},
            "paged": {
                "command": sys.executable,
                "args": [PAGED, "stdio"],  # one tool per page of tools/list
                "disabled": not paged,
            },
            "off": {"command": "does-not-exist", "disabled": True},
        }
    }


def registry_server(servers: Any, name: str) -> str | None:
    return servers.registry.server_of(name)  # type: ignore[no-any-return]


def turn(*calls: tuple[str, str, dict[str, Any]]) -> list[StreamEvent]:
    events: list[StreamEvent] = []
    for i, (call_id, name, args) in enumerate(calls):
        events.append(ToolCallStart(id=call_id, name=name, index=i))
        events.append(ToolCallEnd(id=call_id, index=i, name=name, arguments=args, raw_arguments=""))
    return [*events, Finish(reason="tool_calls" if calls else "stop")]


async def run_turns(registry: Any, turns: list[list[StreamEvent]], **kw: Any) -> list[ToolResult]:
    async def model(messages: list[lb.ChatMessage]) -> AsyncIterator[StreamEvent]:
        for event in turns.pop(0):
            yield event

    loop = run_tool_loop(model, [lb.ChatMessage.user("go")], registry=registry, **kw)
    return [e async for e in loop if isinstance(e, ToolResult)]


async def test_many_servers_one_registry(web: tuple[str, int]) -> None:
    url, web_pid = web
    asked: list[ToolApprovalRequest] = []

    async def approve(request: ToolApprovalRequest) -> bool:
        asked.append(request)
        return True

    before = descendants(exclude={web_pid})
    with anyio.fail_after(HANG):
        async with lb.connect_mcp_servers(
            config(url, paged=True),
            approve=approve,
            approval={"web": {"search": lambda args: args["query"].startswith("rm ")}},
            environ={"SECRET": "s3"},
        ) as servers:
            # the broken server is reported, the others run
            assert set(servers.failures) == {"broken"}
            failure = servers.failures["broken"]
            assert failure.exit_status == 4 and failure.server == "broken"
            assert "config missing: TOKEN" in str(failure) and "-c" in str(failure)
            assert len(descendants(exclude={web_pid}) - before) == 2  # alpha and paged
            assert [
                n for n in servers.registry.names if registry_server(servers, n) == "paged"
            ] == [
                "add",
                "fail",
                "pixel",
            ]  # every page of tools/list followed

            registry = servers.registry
            described = registry.describe()
            # 'search' and 'slow'… exist on both: prefixed on both; the rest keep their names
            assert described["alpha__search"]["server"] == "alpha"
            assert described["web__search"]["server"] == "web"
            assert "search" not in registry and "whoami" in registry  # web hides whoami
            assert {"die", "grow", "ask_llm"} <= set(registry.names)
            assert described["whoami"]["approval"] == "always"
            assert registry.server_of("die") == "alpha"

            web_only = servers.subset(servers=["web"])
            assert sorted(web_only.names) == ["web__link", "web__search", "web__slow", "web__speak"]

            results = await run_turns(
                registry,
                [
                    turn(
                        ("1", "whoami", {}),
                        ("2", "web__search", {"query": "q"}),
                        ("3", "web__slow", {"seconds": 5}),
                        ("4", "alpha__speak", {}),
                        ("5", "web__link", {}),
                        ("6", "web__search", {"query": "rm -rf"}),
                    ),
                    turn(),
                ],
            )
            by_id = {r.id: r for r in results}
            assert by_id["1"].message.tool_results[0].text.startswith("alpha secret=s3")
            assert [(a.name, a.server) for a in asked] == [
                ("whoami", "alpha"),
                ("web__search", "web"),  # the rule in code: only for queries starting "rm "
            ]
            assert by_id["6"].message.tool_results[0].text == "web found rm -rf"
            assert by_id["2"].message.tool_results[0].text == "web found q"
            assert by_id["3"].is_error and "within 1 s" in by_id["3"].message.tool_results[0].text
            # audio is kept in the value and described to the model
            speak = by_id["4"].value
            assert isinstance(speak, ToolOutput)
            audio = [p for p in speak.content if isinstance(p, lb.AudioPart)]
            assert audio and audio[0].media_type == "audio/wav" and audio[0].data
            assert "[audio audio/wav" in by_id["4"].message.tool_results[0].text
            link_text = by_id["5"].message.tool_results[0].text
            assert "[resource link] report: file:///tmp/report.pdf" in link_text
            assert "Q3 report" in link_text and "memo body" in link_text

            # a server that dies: the call is an is_error result; the next call restarts it
            first_pid = (await registry.acall("whoami", {})).content[0].text.split("pid=")[1]
            [died] = await run_turns(registry, [turn(("d", "die", {})), turn()])
            assert died.is_error and isinstance(died.exception, MCPConnectionLostError)
            again = (await registry.acall("whoami", {})).content[0].text
            assert again.split("pid=")[1] != first_pid and servers.servers["alpha"].starts == 2
            assert len(descendants(exclude={web_pid}) - before) == 2  # the dead one is reaped

            # tools/list_changed: the cached list is refreshed, views follow; tools that did
            # not change keep their registry entries (and so their call counts)
            kept = registry._entries["alpha__search"]
            await registry.acall("grow", {})
            with anyio.fail_after(10):
                while "extra" not in registry:  # noqa: ASYNC110 - polling the registry itself
                    await anyio.sleep(0.02)
            assert "extra" in servers.subset(servers=["alpha"])
            assert registry._entries["alpha__search"] is kept

            # prompts, as ChatMessages
            prompts = await servers.list_prompts()
            assert {(p.server, p.name) for p in prompts} == {("alpha", "greet"), ("web", "greet")}
            greet = await servers.get_prompt("web", "greet", {"who": "Ada"})
            assert [(m.role, m.text) for m in greet] == [
                ("user", "Say hi to Ada."),
                ("assistant", "Hi!"),
            ]
    assert descendants(exclude={web_pid}) == before  # nothing left behind
    with pytest.raises(lb.MCPError, match="block has ended"):  # a tool kept after the block
        await registry.acall("whoami", {})
    with pytest.raises(lb.MCPError, match="config missing"):
        await servers.get_prompt("broken", "greet")


async def test_fail_fast_and_errors_stop_everything(web: tuple[str, int]) -> None:
    url, web_pid = web
    before = descendants(exclude={web_pid})
    with anyio.fail_after(HANG):
        with pytest.raises(lb.MCPError, match="config missing: TOKEN") as info:
            async with lb.connect_mcp_servers(config(url), fail_fast=True, environ={"SECRET": "x"}):
                pytest.fail("fail_fast must not enter the block")
        assert info.value.server == "broken"
        assert descendants(exclude={web_pid}) == before

        # an exception in the block leaves as itself, and the servers stop
        with pytest.raises(KeyError, match="mine"):
            async with lb.connect_mcp_servers(config(url), environ={"SECRET": "x"}) as servers:
                assert servers.registry.names
                raise KeyError("mine")
        assert descendants(exclude={web_pid}) == before

        # cancellation, in the middle of a slow call
        with anyio.move_on_after(0.5) as scope:
            async with lb.connect_mcp_servers(config(url), environ={"SECRET": "x"}) as servers:
                await servers.registry.acall("alpha__slow", {"seconds": 30})
        assert scope.cancelled_caught
        assert descendants(exclude={web_pid}) == before


async def test_sampling_answers_with_the_apps_model(web: tuple[str, int]) -> None:
    url, _ = web
    seen: list[Any] = []

    def handler(request: Any) -> Any:
        seen.append(request.content)
        return sse_response(sse_body({"text": "forty-two"}, {"finish": "stop"}))

    asked: list[ToolApprovalRequest] = []

    def approve(request: ToolApprovalRequest) -> bool:
        asked.append(request)
        return request.kind == "sampling" and request.server == "web"

    cfg = {"mcpServers": {"web": {"url": url}}}
    async with lb.Client(http_client=mock_client(handler)) as client:
        with anyio.fail_after(HANG):
            async with lb.connect_mcp_servers(
                cfg, client=client, sampling_model=(FakeProvider(), "fake-1"), approve=approve
            ) as servers:
                answer = await servers.registry.acall("ask_llm", {"question": "6 x 7?"})
                assert answer.content[0].text == "model fake-1 said: forty-two"
                assert b"6 x 7?" in seen[0] and b"Answer briefly." in seen[0]
                assert asked[0].kind == "sampling" and asked[0].arguments["max_tokens"] == 50
                loop = client.run(
                    (FakeProvider(), "x"), [], tools=servers.registry, approve=approve
                )
                assert loop.approve is approve
        cfg2 = {"mcpServers": {"other": {"url": url}}}  # the approver denies this server
        with anyio.fail_after(HANG):
            async with lb.connect_mcp_servers(
                cfg2, client=client, sampling_model=(FakeProvider(), "fake-1"), approve=approve
            ) as servers:
                with pytest.raises(lb.LLMBridgeError, match="denied"):
                    await servers.registry.acall("ask_llm", {"question": "?"})
    assert len(seen) == 1


async def test_a_restarted_http_server_gets_a_new_session() -> None:
    port = free_port()

    async def whoami(servers: Any) -> str:
        return str((await servers.registry.acall("whoami", {})).content[0].text)

    with contextlib.ExitStack() as running:
        url, _ = running.enter_context(http_app_server("web", port))
        cfg = {"mcpServers": {"web": {"url": url, "timeout": 10}}}
        with anyio.fail_after(60):
            async with lb.connect_mcp_servers(cfg) as servers:
                first = await whoami(servers)
                running.close()  # a new process on the same URL, which never saw our session
                running.enter_context(http_app_server("web", port))
                with pytest.raises(MCPConnectionLostError):
                    await whoami(servers)
                second = await whoami(servers)  # a new session
                assert second != first and servers.servers["web"].starts == 2

                running.close()  # down: calls are error results, not crashes
                for _ in range(2):
                    [down] = await run_turns(servers.registry, [turn(("x", "whoami", {})), turn()])
                    assert down.is_error and isinstance(down.exception, lb.MCPError)
                running.enter_context(http_app_server("web", port))
                assert await whoami(servers) not in (first, second)
