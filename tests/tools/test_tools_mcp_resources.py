"""MCP resources on one connection: listing (paged), templates, reads as message parts, bounded
reads, subscriptions (callback and iterator), ``resources/list_changed``, and tool results that
carry resources; against a real server written with the ``mcp`` package (stdio and streamable
HTTP), on asyncio, uvloop and trio. The pure pieces (media-type mapping, bounds, the update
queues) are tested without a server."""

from __future__ import annotations

import base64
import logging
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import anyio.lowlevel
import pytest

pytest.importorskip("mcp")


import llmbridge as lb
from llmbridge.mcp import (
    MCPConnectionLostError,
    MCPError,
    MCPResourceTemplate,
    MCPResourceTooLargeError,
    MCPResourceUpdate,
    MCPToolOutput,
    connect_http,
    connect_stdio,
    resource_parts,
)
from llmbridge.mcp.content import content_parts
from llmbridge.mcp.resources.model import contents_of, tool_resources
from llmbridge.mcp.resources.watch import MAX_PENDING, ResourceWatch
from llmbridge.tools.results import ToolOutput
from tests.tools.mcp_helpers import APP_SERVER, FEATURE_LOOPS, descendants, http_server

pytestmark = pytest.mark.anyio

RESOURCES = str(Path(__file__).with_name("mcp_resource_server.py"))
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(32))


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


# -- pure: media types, bounds, tool results --------------------------------------------------


def test_contents_become_the_part_their_media_type_says() -> None:
    items = [
        {"uri": "n://1", "mimeType": "text/markdown", "text": "# hi"},
        {"uri": "f://a.png", "mimeType": "image/png", "blob": b64(PNG)},
        {"uri": "f://a.wav", "mimeType": "audio/wav", "blob": b64(b"RIFF")},
        {"uri": "f://a.pdf", "mimeType": "application/pdf", "blob": b64(b"%PDF")},
        {
            "uri": "f://a.docx",
            "mimeType": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "blob": b64(b"PK"),
        },
        {"uri": "f://c.json", "mimeType": "application/json; charset=utf-8", "blob": b64(b"{}")},
        {"uri": "f://t.txt", "mimeType": "text/plain", "blob": b64("héllo".encode())},
        {"uri": "f://bad.txt", "mimeType": "text/plain", "blob": b64(b"\xff\xfe")},
        {"uri": "f://x.bin", "mimeType": "application/octet-stream", "blob": b64(b"\0" * 9)},
        {"uri": "f://i.svg", "mimeType": "image/svg+xml", "blob": b64(b"<svg/>")},
    ]
    contents = contents_of(items, server="s")
    parts = resource_parts(contents)
    kinds = [type(p).__name__ for p in parts]
    assert kinds == [
        "TextPart",
        "ImagePart",
        "AudioPart",
        "DocumentPart",
        "DocumentPart",
        "TextPart",
        "TextPart",
        "TextPart",
        "TextPart",
        "TextPart",  # SVG is XML: no provider takes it as an image
    ]
    assert parts[9].text == "[resource f://i.svg]\n<svg/>"  # type: ignore[union-attr]
    assert parts[0].text == "[resource n://1]\n# hi"  # type: ignore[union-attr]
    assert parts[1].data == PNG and parts[1].media_type == "image/png"  # type: ignore[union-attr]
    assert parts[5].text == "[resource f://c.json]\n{}"  # type: ignore[union-attr]
    assert parts[6].text.endswith("héllo")  # type: ignore[union-attr]
    assert "2 bytes, kept by the app, not shown" in parts[7].text  # type: ignore[union-attr]
    assert parts[8].text == (  # type: ignore[union-attr]
        "[resource f://x.bin: application/octet-stream, 9 bytes, kept by the app, not shown]"
    )
    assert contents[8].data == b"\0" * 9 and contents[8].server == "s"  # the app keeps the bytes
    assert resource_parts(contents[0], label=False)[0].text == "# hi"  # type: ignore[union-attr]
    message = lb.ChatMessage.user("Describe these:", *parts[:4])
    assert len(message.content) == 5
    assert "bytes" in repr(contents[1]) and "\\x89" not in repr(contents[1])


def test_reads_are_bounded_before_decoding() -> None:
    blob = "A" * 4_000_000  # 3 MB once decoded
    with pytest.raises(MCPResourceTooLargeError, match="more than 1000 bytes") as caught:
        contents_of([{"uri": "f://big", "blob": blob}], server="s", max_bytes=1000)
    assert caught.value.uri == "f://big" and caught.value.size is not None
    assert caught.value.size >= 2_999_000 and caught.value.server == "s"
    with pytest.raises(MCPResourceTooLargeError):  # text counts its UTF-8 bytes, summed
        contents_of(
            [{"uri": "a", "text": "é" * 300}, {"uri": "b", "text": "x" * 500}], max_bytes=1000
        )
    assert len(contents_of([{"uri": "a", "text": "x" * 1000}], max_bytes=1000)) == 1
    with pytest.raises(MCPError, match="not valid base64"):
        contents_of([{"uri": "f://bad", "blob": "%%%"}])


def test_templates_expand_with_the_sdk_uri_templates() -> None:
    template = MCPResourceTemplate(server="s", uri_template="notes://{topic}/{id}", name="n")
    assert template.variables == ["topic", "id"]
    assert template.expand(topic="cats & dogs", id="7") == "notes://cats%20%26%20dogs/7"
    assert template.expand({"topic": "a"}, id="1") == "notes://a/1"
    with pytest.raises(MCPError, match="not a valid URI template"):
        MCPResourceTemplate(server="s", uri_template="x://{a", name="n").expand(a="1")


def test_tool_results_keep_links_and_embedded_resources() -> None:
    blocks = [
        {"type": "resource_link", "uri": "f://r.pdf", "name": "r", "mimeType": "application/pdf"},
        {"type": "resource", "resource": {"uri": "f://r.pdf", "mimeType": "application/pdf",
                                          "blob": b64(b"%PDF")}},
        {"type": "resource", "resource": {"uri": "m://1", "text": "memo"}},
        {"type": "resource", "resource": {"uri": "f://x", "blob": "%%%"}},
    ]  # fmt: skip
    kept, links, embedded = tool_resources(blocks, server="s")
    assert kept == blocks
    assert [(link.uri, link.name, link.mime_type, link.server) for link in links] == [
        ("f://r.pdf", "r", "application/pdf", "s")
    ]
    assert [(c.uri, c.data, c.text) for c in embedded] == [
        ("f://r.pdf", b"%PDF", None),
        ("m://1", None, "memo"),
    ]
    parts = content_parts(blocks)
    assert parts[0].text == "[resource link] r: f://r.pdf (application/pdf)"  # type: ignore[union-attr]
    assert isinstance(parts[1], lb.DocumentPart) and parts[1].data == b"%PDF"
    assert parts[2].text == "[resource m://1]\nmemo"  # type: ignore[union-attr]
    assert "not valid base64" in parts[3].text  # type: ignore[union-attr]
    big = {"type": "resource", "resource": {"uri": "f://big", "blob": "A" * 400}}
    small = {"type": "resource", "resource": {"uri": "f://s", "text": "x" * 10}}
    kept, _, embedded = tool_resources([small, big, small], server="s", max_bytes=25)
    assert [c.uri for c in embedded] == ["f://s", "f://s"]  # the two small ones fit together
    assert kept[0] is small and kept[2] is small
    assert kept[1]["text"] == (
        "[resource f://big: about 298 bytes, over the 25-byte limit for a tool result, not shown]"
    )
    out = MCPToolOutput([lb.TextPart(text="t")], data={"a": 1})
    assert out == ToolOutput([lb.TextPart(text="t")], data={"a": 1})  # nothing extra: equal
    assert ToolOutput([lb.TextPart(text="t")], data={"a": 1}) == out
    assert MCPToolOutput([], links=links) != ToolOutput([])
    assert MCPToolOutput([], links=links) == MCPToolOutput([], links=list(links))


def _updated(uri: str) -> Any:
    return SimpleNamespace(
        method="notifications/resources/updated", params=SimpleNamespace(uri=uri)
    )


async def test_update_queues_merge_bound_and_match_sub_resources(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from llmbridge.mcp import MCPResourceSubscription

    watch = ResourceWatch("s")
    seen: list[str] = []

    async def slow_then_fail(update: MCPResourceUpdate) -> None:
        seen.append(update.uri)
        if update.uri.endswith("boom"):
            raise RuntimeError("app bug")

    sub = MCPResourceSubscription("f://dir", server="s", on_update=slow_then_fail)
    other = MCPResourceSubscription("f://dirt", server="s")
    assert watch.add(sub) and watch.add(other)
    for uri in ("f://dir", "f://dir/a", "f://dir", "f://dir?x=1", "f://dirt", "f://elsewhere"):
        watch.heard(_updated(uri))
    got = [await sub.__anext__() for _ in range(3)]
    assert [u.uri for u in got] == ["f://dir", "f://dir/a", "f://dir?x=1"]  # merged, in order
    assert [u.uri for u in [await other.__anext__()]] == ["f://dirt"]  # no prefix confusion
    with caplog.at_level(logging.WARNING, logger="llmbridge.mcp"):
        for i in range(MAX_PENDING + 5):
            watch.heard(_updated(f"f://dir/{i}"))
        assert "dropping the oldest (first: 'f://dir/0')" in caplog.text
        assert caplog.text.count("dropping the oldest") == 2  # once per queue (iterator, callback)
        first = await sub.__anext__()
        assert first.uri == "f://dir/5"  # the five oldest went
        watch.heard(_updated("f://dir/boom"))
        watch.heard(_updated("f://dir/after"))
        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                tg.start_soon(sub._pump)
                while "f://dir/after" not in seen:  # noqa: ASYNC110 - waiting on the pump
                    await anyio.sleep(0.01)
                tg.cancel_scope.cancel()
    assert "on_update raised" in caplog.text  # logged, and later updates still arrive
    twin = MCPResourceSubscription("f://dir", server="s")
    assert not watch.add(twin)  # a second one for the URI: no second resources/subscribe
    assert not watch.remove(sub) and watch.remove(twin) and watch.remove(other)
    watch.add(sub)
    watch.end(MCPConnectionLostError("gone"))
    drained = 0
    with pytest.raises(MCPConnectionLostError, match="gone"):
        async for _ in sub:  # what waits is handed out first
            drained += 1
    assert drained > 0


async def test_a_subscription_ends_with_the_connection_error() -> None:
    from llmbridge.mcp import MCPResourceSubscription

    watch = ResourceWatch("s")
    sub = MCPResourceSubscription("f://a", server="s")
    watch.add(sub)
    watch.heard(_updated("f://a"))
    watch.end(MCPConnectionLostError("server gone"))
    assert (await sub.__anext__()).uri == "f://a"  # what arrived first is still handed out
    with pytest.raises(MCPConnectionLostError, match="server gone"):
        await sub.__anext__()
    quiet = MCPResourceSubscription("f://b", server="s")
    watch2 = ResourceWatch("s")
    watch2.add(quiet)
    watch2.end()
    assert [u async for u in quiet] == []


# -- a real server over stdio and HTTP ---------------------------------------------------------


async def test_resources_of_a_real_server_over_stdio() -> None:
    before = descendants()
    with anyio.fail_after(60):
        async with connect_stdio(
            sys.executable, [RESOURCES, "r", "stdio"], name="r", secrets=["s3cr3t-token-42"]
        ) as conn:
            listed = await conn.list_resources()  # one per page: cursors followed
            assert [r.uri for r in listed] == [
                "notes://readme",
                "files://logo.png",
                "files://report.pdf",
                "files://song.wav",
                "files://config.json",
                "files://data.bin",
                "files://big",
            ]
            readme = listed[0]
            assert (readme.server, readme.mime_type, readme.description) == (
                "r",
                "text/markdown",
                "The readme",
            )
            assert listed[1].title == "Logo"
            [template] = await conn.list_resource_templates()
            assert template.uri_template == "notes://topic/{topic}"
            note = await conn.read_resource(template.expand(topic="cats"))
            assert note[0].text == "notes about cats"
            kinds = {}
            for item in listed[:-1]:
                [contents] = await conn.read_resource(item.uri)
                kinds[item.uri] = type(contents.part()).__name__
            assert kinds == {
                "notes://readme": "TextPart",
                "files://logo.png": "ImagePart",
                "files://report.pdf": "DocumentPart",
                "files://song.wav": "AudioPart",
                "files://config.json": "TextPart",
                "files://data.bin": "TextPart",
            }
            [logo] = await conn.read_resource("files://logo.png")
            assert logo.data == PNG and logo.mime_type == "image/png"
            with pytest.raises(MCPResourceTooLargeError, match="'files://big'"):
                await conn.read_resource("files://big", max_bytes=100_000)
            assert len((await conn.read_resource("files://big"))[0].text or "") == 300_000
            with pytest.raises(MCPResourceTooLargeError) as too_large:
                await conn.read_resource("notes://topic/s3cr3t-token-42", max_bytes=5)
            assert "s3cr3t-token-42" not in str(too_large.value) + repr(too_large.value)
            assert "notes://topic/<redacted>" in str(too_large.value)
            with pytest.raises(MCPError) as missing:
                await conn.read_resource("nope://s3cr3t-token-42")
            assert "s3cr3t-token-42" not in str(missing.value) + repr(missing.value)
            with pytest.raises(MCPError, match="resources/read 'nope://x' failed") as caught:
                await conn.read_resource("nope://x")
            assert not isinstance(caught.value, MCPConnectionLostError)

            # list_changed drops the cache: the next listing has the new memo
            assert await conn.list_resources() == listed  # cached: same objects' values
            uri = (await conn.call_tool("add_memo", {"text": "remember"})).content[0].text  # type: ignore[union-attr]
            while conn.watch.list_changes == 0:  # noqa: ASYNC110 - the notification's arrival
                await anyio.sleep(0.01)
            assert uri in [r.uri for r in await conn.list_resources()]
            assert (await conn.read_resource(str(uri)))[0].text == "remember"

            # a tool result's link and embedded resources are kept whole
            out = await conn.call_tool("report", {})
            assert isinstance(out, MCPToolOutput)
            [link] = out.links
            assert (link.uri, link.size, link.server) == ("files://report.pdf", 23, "r")
            assert (await conn.read_resource(link.uri))[0].data == out.resources[0].data
            assert out.resources[1].text == "all good"
    assert descendants() == before


async def _subscribed(conn: Any) -> list[str]:
    out = await conn.call_tool("subscribed", {})
    return list(out.data["result"])


async def test_subscriptions_with_a_callback_and_an_iterator() -> None:
    seen: list[MCPResourceUpdate] = []
    async_seen: list[str] = []

    async def on_update(update: MCPResourceUpdate) -> None:
        await anyio.lowlevel.checkpoint()
        async_seen.append(update.uri)

    with anyio.fail_after(60):
        async with connect_stdio(sys.executable, [RESOURCES, "r", "stdio"], name="r") as conn:
            async with conn.subscribe_resource("notes://readme", on_update=seen.append) as sub:
                assert await _subscribed(conn) == ["notes://readme"]
                async with conn.subscribe_resource("notes://readme", on_update=on_update):
                    assert await _subscribed(conn) == ["notes://readme"]  # one subscribe
                    await conn.call_tool("touch", {"uri": "notes://readme/part"})
                    while not async_seen:  # noqa: ASYNC110 - waiting for the callback
                        await anyio.sleep(0.01)
                assert await _subscribed(conn) == ["notes://readme"]  # still one left
                update = await sub.__anext__()
                assert update == MCPResourceUpdate("r", "notes://readme/part")
                await conn.call_tool("touch", {"uri": "notes://readme"})
                assert (await sub.__anext__()).uri == "notes://readme"
                while len(seen) < 2:  # noqa: ASYNC110 - waiting for the callback
                    await anyio.sleep(0.01)
            assert [u.uri for u in seen] == ["notes://readme/part", "notes://readme"]
            assert async_seen == ["notes://readme/part"]
            assert await _subscribed(conn) == []  # unsubscribed on the way out
            assert (await conn.call_tool("touch", {"uri": "notes://readme"})).content[  # type: ignore[union-attr]
                0
            ].text == "not subscribed"
            with pytest.raises(ValueError, match="app"):  # the app's error leaves as itself
                async with conn.subscribe_resource("files://logo.png"):
                    raise ValueError("app")
            assert await _subscribed(conn) == []


async def test_a_subscription_ends_when_the_server_dies() -> None:
    with anyio.fail_after(60):
        async with connect_stdio(sys.executable, [RESOURCES, "r", "stdio"], name="r") as conn:
            async with conn.subscribe_resource("notes://readme") as sub:
                with pytest.raises(MCPConnectionLostError):
                    await conn.call_tool("die", {})
                with pytest.raises(MCPConnectionLostError):
                    await sub.__anext__()


@FEATURE_LOOPS
async def test_a_server_without_subscriptions_says_so() -> None:
    with anyio.fail_after(60):
        async with connect_stdio(sys.executable, [APP_SERVER, "a", "stdio"], name="a") as conn:
            assert await conn.list_resources() == []
            with pytest.raises(MCPError, match="'a' does not offer resource subscriptions"):
                async with conn.subscribe_resource("x://y"):
                    pass


async def test_resources_over_streamable_http() -> None:
    with http_server(RESOURCES, "web") as (url, _pid), anyio.fail_after(60):
        async with connect_http(url, name="web") as conn:
            assert len(await conn.list_resources()) == 7
            [logo] = await conn.read_resource("files://logo.png")
            assert logo.data == PNG
            async with conn.subscribe_resource("files://logo.png") as sub:
                await conn.call_tool("touch", {"uri": "files://logo.png"})
                assert (await sub.__anext__()).uri == "files://logo.png"
            assert await _subscribed(conn) == []


async def test_a_server_paging_in_a_circle_is_an_error_not_a_hang() -> None:
    from llmbridge.mcp import MCPConnection

    asked: list[Any] = []

    async def list_resources(params: Any = None) -> Any:
        await anyio.lowlevel.checkpoint()  # without the guard, fail_after ends the test
        asked.append(params)
        item = {"uri": f"r://{len(asked)}", "name": "r"}
        return SimpleNamespace(resources=[item], next_cursor="again")

    conn = MCPConnection(SimpleNamespace(list_resources=list_resources), where="fake", name="f")
    with anyio.fail_after(5), pytest.raises(MCPError, match="did not end after 2 pages"):
        await conn.list_resources()
    assert len(asked) == 2
