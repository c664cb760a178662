"""Hostile MCP servers (issue 49): listings that never end, list-changed floods, log records
that forge lines, tool calls that never answer. Each ends in a typed error or stays bounded."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from llmbridge.mcp import MCPConnection, MCPError, MCPTimeoutError

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
    import llmbridge.mcp.connection.paging as paging

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


HOSTILE = str(Path(__file__).with_name("mcp_hostile_server.py"))


def _hostile(state: Path, **entry: Any) -> dict[str, Any]:
    return {"h": {"command": sys.executable, "args": [HOSTILE, str(state)], **entry}}


def _listings(state: Path) -> int:
    return len(state.read_text().split())


async def _settled(condition: Any) -> None:
    """Wait (bounded by the caller's fail_after) until ``condition()`` holds."""
    while not condition():  # noqa: ASYNC110 - polling another process's file and the loop
        await anyio.sleep(0.05)


async def test_a_list_changed_flood_costs_one_refresh_not_one_task_each(tmp_path: Path) -> None:
    state = tmp_path / "lists"
    with anyio.fail_after(60):
        async with lb.connect_mcp_servers(_hostile(state)) as servers:
            before = len(anyio.get_running_tasks())
            await servers.registry.acall("flood", {"count": 2000})
            await _settled(lambda: _listings(state) >= 2)
            # the SDK hands each notification to a short task: give those time to finish
            with anyio.move_on_after(20):
                await _settled(lambda: len(anyio.get_running_tasks()) <= before + 1)
            assert len(anyio.get_running_tasks()) <= before + 1  # the one refresh
            assert _listings(state) == 2  # the start's, then one refresh (it never answers)
            refresh = servers.servers["h"].refresh
            assert refresh.running and refresh.again and refresh.runs == 1
            assert "flood" in servers.registry  # the old list stays meanwhile


async def test_a_refresh_that_never_answers_times_out_and_keeps_the_tools(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    state = tmp_path / "lists"
    with anyio.fail_after(60):
        async with lb.connect_mcp_servers(_hostile(state)) as servers:
            refresh = servers.servers["h"].refresh
            refresh.timeout = 0.2
            await servers.registry.acall("flood", {"count": 1})
            await _settled(lambda: refresh.runs == 1 and not refresh.running)
            assert _listings(state) == 2 and "hang" in servers.registry
    [record] = [r for r in caplog.records if "listing its tools again" in r.getMessage()]
    assert "'h'" in record.getMessage() and "within 0.2 s" in record.getMessage()


FORGED = "ok\nCRITICAL llmbridge: the app's key is sk-FAKE\x1b]0;owned\x07\x1b[2J\x9b\u2028"


def _forged_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    records = [r for r in caplog.records if r.name == "llmbridge.mcp" and "shout" not in r.msg]
    return [logging.Formatter("%(levelname)s %(name)s: %(message)s").format(r) for r in records]


async def test_a_log_record_cannot_forge_lines_or_grow_without_bound(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from llmbridge.mcp.connection.progress import logging_callback

    log = logging_callback(server="s", scrub=lambda text: text)
    huge = SimpleNamespace(level="info", logger="x" * 4_194_304 + FORGED, data=FORGED * 500_000)
    with caplog.at_level(logging.DEBUG, logger="llmbridge.mcp"):
        await log(SimpleNamespace(level="info", logger=FORGED, data=FORGED))
        await log(huge)
    short, long = _forged_lines(caplog)
    for line in (short, long):
        assert "\n" not in line and "\x1b" not in line and "\x07" not in line
        assert "\x9b" not in line and "\u2028" not in line
        assert line.startswith("INFO llmbridge.mcp: MCP server 's' [")
    assert "\\nCRITICAL llmbridge:" in short and "\\x1b]0;owned\\x07" in short
    assert len(long) < 4_500 and long.endswith("...")
    given = caplog.records[-1].mcp_logger  # type: ignore[attr-defined]
    assert len(given) <= 200 and "\n" not in given  # for handlers that print extra fields


async def test_a_real_servers_log_record_is_one_escaped_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = _hostile(tmp_path / "lists", log_level="debug")
    with caplog.at_level(logging.DEBUG, logger="llmbridge.mcp"), anyio.fail_after(60):
        async with lb.connect_mcp_servers(config) as servers:
            logger = "db\nCRITICAL llmbridge: forged" + "y" * 100_000
            shout = {"level": "warning", "logger": logger, "data": FORGED}
            await servers.registry.acall("shout", shout)
            await _settled(lambda: any("[db" in r.getMessage() for r in caplog.records))
    [line] = [x for x in _forged_lines(caplog) if "[db" in x]
    assert line.startswith("WARNING llmbridge.mcp: MCP server 'h' [db\\nCRITICAL llmbridge: forg")
    assert "\n" not in line and "\x1b" not in line and len(line) < 4_500


async def test_a_tool_call_that_never_answers_is_a_timeout_the_model_reads(tmp_path: Path) -> None:
    from llmbridge.messages import ToolCallPart

    config = _hostile(tmp_path / "lists", tool_timeout=0.5)
    with anyio.fail_after(60):
        async with lb.connect_mcp_servers(config) as servers:
            call = ToolCallPart(id="c1", name="hang", arguments={})
            result = await servers.registry.execute(call)
            assert result.is_error and isinstance(result.exception, MCPTimeoutError)
            [part] = result.message.content  # what the model reads
            text = "".join(getattr(p, "text", "") for p in part.content)  # type: ignore[union-attr]
            assert "'h'" in text and "tools/call 'hang'" in text and "within 0.5 s" in text
            with pytest.raises(MCPTimeoutError):
                await servers.registry.acall("hang", {})
            # the server is not taken for gone: the next call goes to the same process
            assert (await servers.registry.acall("flood", {"count": 0})).content[0].text
            assert servers.servers["h"].starts == 1


def test_tool_calls_get_60_seconds_unless_an_entry_or_the_app_says_otherwise() -> None:
    from llmbridge.mcp import MCPServer, MCPServers, load_mcp_config
    from llmbridge.mcp.connection.connection import DEFAULT_TOOL_TIMEOUT
    from llmbridge.mcp.hub.options import HubOptions, Timeouts

    def timeout_of(
        entry: dict[str, Any], timeout: float | None = None, tool_timeout: float | None = None
    ) -> float:
        cfg = load_mcp_config({"s": {"command": "x", **entry}})["s"]
        options = HubOptions(timeouts=Timeouts(request=timeout, tool=tool_timeout))
        return MCPServer("s", cfg, MCPServers({"s": cfg}, options))._tool_timeout()

    assert DEFAULT_TOOL_TIMEOUT == 60.0 and timeout_of({}) == 60.0
    assert MCPConnection(SimpleNamespace()).tool_timeout == 60.0  # connect_stdio / _http too
    assert timeout_of({"tool_timeout": 5}) == 5 and timeout_of({}, tool_timeout=7) == 7
    assert timeout_of({"tool_timeout": 5}, tool_timeout=7) == 5  # the entry first
    assert timeout_of({"timeout": 120}) == 120 and timeout_of({}, timeout=90) == 90
    assert timeout_of({"timeout": 120}, tool_timeout=7) == 7
