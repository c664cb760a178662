"""MCP resources against the reference test server (``@modelcontextprotocol/server-everything``
over stdio, through npx), on every loop: its static documents, its text and blob templates,
reads as message parts, resource links and embedded resources in tool results, and a
``resources/updated`` subscription; no process left behind."""

from __future__ import annotations

import contextlib
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from llmbridge.mcp import MCPError, MCPResourceUpdate, MCPToolOutput, connect_stdio, resource_parts
from tests.live_local.server import EVERYTHING
from tests.tools.mcp_helpers import descendants

pytestmark = pytest.mark.anyio


async def test_server_everything_resources(npx: str) -> None:
    before = descendants()
    heard: list[MCPResourceUpdate] = []
    async with contextlib.AsyncExitStack() as stack:
        try:  # npx fetches the package from the npm registry: a machine without it skips
            conn = await stack.enter_async_context(
                connect_stdio(npx, EVERYTHING, timeout=120, name="everything")
            )
        except MCPError as exc:
            pytest.skip(f"server-everything could not be started here: {exc}")
        with anyio.fail_after(90):
            listed = await conn.list_resources()
            docs = {r.uri: r for r in listed}
            readme = "demo://resource/static/document/architecture.md"
            assert readme in docs and docs[readme].mime_type == "text/markdown"
            assert all(r.server == "everything" for r in listed)
            [doc] = await conn.read_resource(readme)
            assert doc.text and doc.part().text.startswith(f"[resource {readme}]\n")  # type: ignore[union-attr]

            templates = {t.name: t for t in await conn.list_resource_templates()}
            text_t = next(t for t in templates.values() if "/text/" in t.uri_template)
            blob_t = next(t for t in templates.values() if "/blob/" in t.uri_template)
            [text] = await conn.read_resource(text_t.expand(resourceId="3"))
            assert text.text and text.text.startswith("Resource 3: This is a plaintext resource")
            [blob] = await conn.read_resource(blob_t.expand(resourceId="4"))
            assert blob.text is None and blob.data and blob.data.startswith(b"Resource 4: ")
            part = resource_parts(blob, label=False)[0]  # text/plain bytes: text for the model
            assert isinstance(part, lb.TextPart) and part.text.startswith("Resource 4: This is")
            message = lb.ChatMessage.user("Compare:", *resource_parts([text, blob]))
            assert len(message.content) == 3

            links = await conn.call_tool("get-resource-links", {"count": 2})
            assert isinstance(links, MCPToolOutput) and len(links.links) == 2
            for link in links.links:
                [read] = await conn.read_resource(link.uri)
                assert (read.text or (read.data or b"").decode()).startswith(
                    f"Resource {link.uri.rsplit('/', 1)[1]}:"
                )
            ref = await conn.call_tool(
                "get-resource-reference", {"resourceType": "Blob", "resourceId": 2}
            )
            assert isinstance(ref, MCPToolOutput) and ref.resources[0].data
            assert ref.resources[0].data.startswith(b"Resource 2: This is a base64 blob")

            async with conn.subscribe_resource(readme, on_update=heard.append) as sub:
                await conn.call_tool("toggle-subscriber-updates", {})  # sends one at once
                update = await sub.__anext__()
                assert update == MCPResourceUpdate("everything", readme)
                await conn.call_tool("toggle-subscriber-updates", {})  # and stops
    assert heard and heard[0].uri == readme
    assert descendants() == before  # npx and node are gone too


async def test_server_everything_in_the_servers_catalog(npx: str) -> None:
    config = {
        "mcpServers": {"everything": {"command": npx, "args": EVERYTHING, "startup_timeout": 120}}
    }
    with anyio.fail_after(150):
        async with lb.connect_mcp_servers(config) as servers:
            if servers.failures:
                pytest.skip(f"server-everything could not start: {servers.failures}")
            catalog: Any = (await servers.catalog())["everything"]
            assert catalog.error is None
            assert "echo" in catalog.tools and "get-resource-links" in catalog.tools
            assert {"simple-prompt", "args-prompt"} <= {p.name for p in catalog.prompts}
            assert len(catalog.resources) >= 5 and len(catalog.templates) == 2
            uri = catalog.resources[0].uri
            [contents] = await servers.read_resource("everything", uri)
            assert contents.uri == uri and contents.text
