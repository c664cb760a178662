"""Hostile MCP servers (issue 49): listings that never end, list-changed floods, log records
that forge lines, tool calls that never answer. Each ends in a typed error or stays bounded."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from llmbridge.tools.mcp import MCPError
from llmbridge.tools.mcp_connection import MCPConnection

pytestmark = pytest.mark.anyio


def _circling(attribute: str, asked: list[Any], cursor: Any) -> Any:
    async def listing(params: Any = None) -> Any:
        await anyio.lowlevel.checkpoint()  # without the guard, fail_after ends the test
        asked.append(params)
        item = {"name": f"t{len(asked)}", "uri": f"r://{len(asked)}", "inputSchema": {}}
        return SimpleNamespace(**{attribute: [item]}, next_cursor=cursor(len(asked)))

    return listing


LISTINGS = [
    ("list_tools", "tools", "tools/list", lambda c: c.tool_definitions()),
    ("list_prompts", "prompts", "prompts/list", lambda c: c.list_prompts()),
    ("list_resources", "resources", "resources/list", lambda c: c.list_resources()),
    (
        "list_resource_templates",
        "resource_templates",
        "resources/templates/list",
        lambda c: c.list_resource_templates(),
    ),
]


@pytest.mark.parametrize(
    ("method", "attribute", "what", "listing"), LISTINGS, ids=[x[2] for x in LISTINGS]
)
async def test_every_listing_stops_at_a_cursor_that_comes_back(
    method: str, attribute: str, what: str, listing: Any
) -> None:
    asked: list[Any] = []
    session = SimpleNamespace(**{method: _circling(attribute, asked, lambda n: "again")})
    conn = MCPConnection(session, where="fake", name="looper")
    with anyio.fail_after(10), pytest.raises(MCPError, match="did not end after 2 pages") as info:
        await listing(conn)
    assert len(asked) == 2
    assert info.value.server == "looper" and what in str(info.value) and "looper" in str(info.value)


@pytest.mark.parametrize(
    ("method", "attribute", "what", "listing"), LISTINGS[:2], ids=["tools", "prompts"]
)
async def test_every_listing_stops_at_the_page_bound(
    method: str, attribute: str, what: str, listing: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import llmbridge.tools.mcp_paging as paging

    monkeypatch.setattr(paging, "MAX_PAGES", 50)
    asked: list[Any] = []
    session = SimpleNamespace(**{method: _circling(attribute, asked, lambda n: f"page-{n}")})
    conn = MCPConnection(session, where="fake", name="endless")
    with anyio.fail_after(10), pytest.raises(MCPError, match="did not end after 50 pages"):
        await listing(conn)
    assert len(asked) == 50


async def test_a_listing_that_ends_keeps_every_page_in_order() -> None:
    asked: list[Any] = []
    session = SimpleNamespace(
        list_tools=_circling("tools", asked, lambda n: f"p{n}" if n < 3 else None)
    )
    conn = MCPConnection(session, where="fake", name="fine")
    assert [d["name"] for d in await conn.tool_definitions()] == ["t1", "t2", "t3"]
