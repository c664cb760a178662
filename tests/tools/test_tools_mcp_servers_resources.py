"""``connect_mcp_servers`` and resources: the catalog of each server's tools, prompts, resources
and templates; reads, links and subscriptions through the servers object (restarts included);
the sync twin; and tool names that stay put when a refreshed tool list brings a clash. Real
servers written with the ``mcp`` package, on asyncio, uvloop and trio, with the orphan check."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from llmbridge.events import Finish, StreamEvent, ToolCallEnd, ToolCallStart
from llmbridge.mcp import MCPError, MCPResourceUpdate, MCPToolOutput, resource_parts
from llmbridge.mcp.hub.names import assign_tool_names
from llmbridge.tools import ToolResult, run_tool_loop
from tests.tools.mcp_helpers import APP_SERVER, FEATURE_LOOPS, descendants

pytestmark = pytest.mark.anyio

RESOURCES = str(Path(__file__).with_name("mcp_resource_server.py"))


def config() -> dict[str, Any]:
    return {
        "mcpServers": {
            "alpha": {"command": sys.executable, "args": [APP_SERVER, "alpha", "stdio"]},
            "files": {"command": sys.executable, "args": [RESOURCES, "files", "stdio"]},
        }
    }


@FEATURE_LOOPS
async def test_catalog_reads_links_and_subscriptions_through_the_servers() -> None:
    before = descendants()
    with anyio.fail_after(90):
        async with lb.connect_mcp_servers(config()) as servers:
            assert servers.failures == {}
            catalog = await servers.catalog()
            assert list(catalog) == ["alpha", "files"]
            alpha, files = catalog["alpha"], catalog["files"]
            assert "whoami" in alpha.tools and "add_memo" in files.tools
            assert [p.name for p in alpha.prompts] == ["greet"] and files.prompts == []
            assert alpha.resources == [] and alpha.error is None
            assert [r.uri for r in files.resources][:2] == ["notes://readme", "files://logo.png"]
            assert [t.uri_template for t in files.templates] == ["notes://topic/{topic}"]
            every = await servers.list_resources()
            assert {r.server for r in every} == {"files"} and len(every) == 7
            assert len(await servers.list_resource_templates("files")) == 1

            # a tool result's link, read through the servers object, into a message
            out = await servers.registry.acall("report", {})
            assert isinstance(out, MCPToolOutput)
            [link] = out.links
            assert link.server == "files"
            contents = await servers.read_resource(link.server, link.uri)
            message = lb.ChatMessage.user("Summarise this report:", *resource_parts(contents))
            assert isinstance(message.content[1], lb.DocumentPart)

            heard: list[MCPResourceUpdate] = []
            async with servers.subscribe_resource(
                "files", "notes://readme", on_update=heard.append
            ) as sub:
                await servers.registry.acall("touch", {"uri": "notes://readme"})
                assert (await sub.__anext__()).server == "files"
                while not heard:  # noqa: ASYNC110 - waiting for the callback
                    await anyio.sleep(0.01)

            # list_changed: the new memo is in the next catalog
            memo = (await servers.registry.acall("add_memo", {"text": "hi"})).content[0].text
            while servers.connection("files").watch.list_changes == 0:  # noqa: ASYNC110
                await anyio.sleep(0.01)
            assert memo in [r.uri for r in (await servers.catalog(["files"]))["files"].resources]

            # a server that died is restarted by the next read, like by a tool call
            with pytest.raises(lb.LLMBridgeError):
                await servers.registry.acall("files__die", {})
            [readme] = await servers.read_resource("files", "notes://readme")
            assert readme.text == "# files\nhello from the readme"
            # what the app read is context a sampling request of that server may ask for
            block = servers.sampling_context.for_request("files", "thisServer")
            assert block is not None
            assert block.endswith("resource notes://readme: # files\nhello from the readme")
            with pytest.raises(MCPError, match="no MCP server named 'nope'"):
                await servers.read_resource("nope", "x://y")
    assert descendants() == before


def turn(*calls: tuple[str, str, dict[str, Any]]) -> list[StreamEvent]:
    events: list[StreamEvent] = []
    for i, (call_id, name, args) in enumerate(calls):
        events.append(ToolCallStart(id=call_id, name=name, index=i))
        events.append(ToolCallEnd(id=call_id, index=i, name=name, arguments=args, raw_arguments=""))
    return [*events, Finish(reason="tool_calls" if calls else "stop")]


@FEATURE_LOOPS
async def test_a_refreshed_tool_list_never_renames_a_tool_mid_conversation() -> None:
    """``files`` gains a tool named ``search`` (alpha already has one) mid-conversation: alpha's
    stays ``search`` (the model keeps calling it by that name), the newcomer is
    ``files__search``."""
    names_seen: list[list[str]] = []
    turns = [
        turn(("1", "search", {"query": "a"}), ("2", "add_tool", {"name": "search"})),
        turn(("3", "search", {"query": "b"}), ("4", "files__search", {})),
        turn(),
    ]
    before = descendants()
    with anyio.fail_after(90):
        async with lb.connect_mcp_servers(config()) as servers:
            registry = servers.registry

            async def model(messages: list[lb.ChatMessage]) -> AsyncIterator[StreamEvent]:
                if len(turns) == 2:  # the list change has reached the registry
                    while "files__search" not in registry:  # noqa: ASYNC110
                        await anyio.sleep(0.01)
                names_seen.append(sorted(t.name for t in registry.specs()))
                for event in turns.pop(0):
                    yield event

            loop = run_tool_loop(model, [lb.ChatMessage.user("go")], registry=registry)
            results = [e async for e in loop if isinstance(e, ToolResult)]
    assert descendants() == before
    texts = {r.id: r.message.content[0].content[0].text for r in results}  # type: ignore[union-attr]
    assert not any(r.is_error for r in results), texts
    assert texts["1"] == texts["3"].replace("b", "a") == "alpha found a"
    assert texts["4"] == "files's search"
    assert "search" in names_seen[0] and "files__search" not in names_seen[0]
    assert {"search", "files__search"} <= set(names_seen[1])
    assert "alpha__search" not in names_seen[1]  # no renaming of the tool in use


def test_assigned_names_keep_what_was_given() -> None:
    first = assign_tool_names({"a": ["search", "x"], "b": ["y"]})
    assert first == {("a", "search"): "search", ("a", "x"): "x", ("b", "y"): "y"}
    grown = {"a": ["search", "x"], "b": ["y", "search", "x"]}
    assert assign_tool_names(grown) == {  # from scratch, every clash is prefixed
        ("a", "search"): "a__search",
        ("a", "x"): "a__x",
        ("b", "y"): "y",
        ("b", "search"): "b__search",
        ("b", "x"): "b__x",
    }
    assert assign_tool_names(grown, keep=first) == {  # kept: only newcomers are prefixed
        ("a", "search"): "search",
        ("a", "x"): "x",
        ("b", "y"): "y",
        ("b", "search"): "b__search",
        ("b", "x"): "b__x",
    }
    # a kept name that the app has since taken is given up; a removed tool frees its name
    assert assign_tool_names({"a": ["x"]}, keep={("a", "x"): "x"}, reserved=["x"]) == {
        ("a", "x"): "a__x"
    }
    assert assign_tool_names({"b": ["x"]}, keep={("a", "x"): "x"}) == {("b", "x"): "x"}


def test_resources_from_a_sync_script() -> None:
    before = descendants()
    heard: list[MCPResourceUpdate] = []
    with lb.SyncClient() as client, client.connect_mcp_servers(config()) as servers:
        catalog = servers.catalog()
        assert len(catalog["files"].resources) == 7
        assert {r.server for r in servers.list_resources("files")} == {"files"}
        assert servers.list_resource_templates()[0].expand(topic="x") == "notes://topic/x"
        [note] = servers.read_resource("files", "notes://topic/x")
        assert note.text == "notes about x"
        with pytest.raises(lb.LLMBridgeError, match="more than 10 bytes"):
            servers.read_resource("files", "notes://readme", max_bytes=10)
        with servers.subscribe_resource("files", "notes://readme", on_update=heard.append):
            servers.call("touch", {"uri": "notes://readme"})
            deadline = 100
            while not heard and deadline:
                import time

                time.sleep(0.05)
                deadline -= 1
        assert heard == [MCPResourceUpdate("files", "notes://readme")]
        assert servers.call("subscribed", {}).data == {"result": []}
    assert descendants() == before


async def test_names_do_not_depend_on_a_list_change_heard_while_servers_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A ``tools/list_changed`` heard while the servers start (server-everything sends one)
    rebuilds the registry before every server has listed its tools: names given then are not
    kept, so two servers' ``search`` are both prefixed whatever the start order."""
    from types import SimpleNamespace

    import mcp.types as types

    from llmbridge.mcp import MCPConnection, MCPServers, load_mcp_config

    cfg = {"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}
    servers = MCPServers(load_mcp_config(cfg))
    search = types.Tool(name="search", input_schema={"type": "object"})

    async def start_one(server: Any) -> None:  # b starts first; a list change comes meanwhile
        if server.name == "a":
            await anyio.sleep(0.05)
        server._latest = MCPConnection(SimpleNamespace(), where="fake", name=server.name)
        server.definitions = [search]
        servers.on_tools_changed(server.name)

    monkeypatch.setattr(servers, "_start_one", start_one)
    await servers._start_all()
    assert sorted(servers.registry.names) == ["a__search", "b__search"]
    servers.servers["b"].definitions = [search, types.Tool(name="x", input_schema={})]
    servers.on_tools_changed("b")  # settled now: kept names stay, the newcomer is named
    assert sorted(servers.registry.names) == ["a__search", "b__search", "x"]
