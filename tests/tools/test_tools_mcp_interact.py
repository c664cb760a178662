"""MCP servers that talk back, written with the ``mcp`` package (``mcp_interact_server.py``, over
stdio and streamable HTTP): elicitation (form and URL), roots and their changes, progress (to
the app and to the tool loop's span), server logs (levels, secrets) and sampling with model
preferences and tools; on asyncio, uvloop and trio, no process left behind."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from llmbridge.mcp import (
    ElicitationAnswer,
    ElicitationRequest,
    MCPError,
    ProgressUpdate,
    connect_stdio,
)
from tests.tools.mcp_helpers import (
    FEATURE_LOOPS,
    HANG,
    INTERACT_SERVER,
    INTERACT_STDIO,
    descendants,
    first_text,
    http_server,
)
from tests.tools.scripted_model import Model, said, tool_call

pytestmark = pytest.mark.anyio

SERVER, STDIO, text = INTERACT_SERVER, INTERACT_STDIO, first_text


async def test_a_form_and_a_url_reach_the_apps_callback() -> None:
    asked: list[ElicitationRequest] = []

    async def elicit(request: ElicitationRequest) -> Any:
        asked.append(request)
        if request.mode == "url":
            return True
        return {"name": "Ann", "age": "33", "email": "ann@example.org", "extras": ["wifi"]}

    before = descendants()
    with anyio.fail_after(HANG):
        async with connect_stdio(STDIO["command"], STDIO["args"], name="hotel", elicit=elicit) as c:
            booked = text(await c.call_tool("book", {}))
            signed = text(await c.call_tool("sign_in", {}))
    assert booked == (
        "accept [('age', 33), ('email', 'ann@example.org'), ('extras', ['wifi']), ('name', 'Ann')]"
    )
    assert signed == "accept"
    form, url = asked
    assert (form.mode, form.server, form.message) == ("form", "hotel", "Who is the booking for?")
    assert list(form.fields) == ["name", "age", "email", "size", "extras", "newsletter"]
    assert form.required == ["name", "age"]
    assert (url.mode, url.url, url.elicitation_id) == (
        "url",
        "https://example.com/login?state=abc",
        "el-1",
    )
    assert descendants() == before


@FEATURE_LOOPS
async def test_no_callback_declines_false_does_not_offer_and_a_misfit_is_a_decline(
    interact_web: tuple[str, int],
) -> None:
    """Four sessions of the module's one HTTP server (what the server is offered is per
    session; the stdio path of elicitation is the test above)."""
    from llmbridge.mcp import connect_http

    def sloppy(request: ElicitationRequest) -> Any:  # sync: runs in a worker thread
        return {"name": "Ann", "age": "very old"} if request.mode == "form" else None

    url, _ = interact_web
    with anyio.fail_after(HANG):
        async with connect_http(url) as c:  # offered, declined
            assert text(await c.call_tool("elicitation_capability", {})) == "form url"
            assert text(await c.call_tool("book", {})) == "decline []"
            assert text(await c.call_tool("sign_in", {})) == "decline"
        async with connect_http(url, elicit=False) as c:
            assert text(await c.call_tool("elicitation_capability", {})) == "none"
            with pytest.raises(MCPError, match="Elicitation not supported"):
                await c.call_tool("book", {})  # the server asked anyway: refused at once
        async with connect_http(url, elicit=sloppy) as c:
            assert text(await c.call_tool("book", {})) == "decline []"
            assert text(await c.call_tool("sign_in", {})) == "decline"
        cancel = ElicitationAnswer("cancel")
        async with connect_http(url, elicit=lambda r: cancel) as c:
            assert text(await c.call_tool("book", {})) == "cancel []"


async def _until(check: Any, tries: int = 500) -> None:
    for _ in range(tries):  # a notification is handled in its own time: look again
        if await check():
            return
        await anyio.sleep(0.02)
    raise AssertionError("not seen within 10 s")


@FEATURE_LOOPS
async def test_roots_for_every_server_or_one_and_their_changes(
    interact_web: tuple[str, int], tmp_path: Path
) -> None:
    url, web_pid = interact_web
    config = {
        "mcpServers": {
            "local": STDIO,
            "remote": {"url": url},
            "own": {**STDIO, "roots": [{"path": str(tmp_path / "own"), "name": "mine"}]},
        }
    }
    before = descendants(exclude={web_pid})
    with anyio.fail_after(60):
        async with lb.connect_mcp_servers(config, roots=[(tmp_path, "work")]) as servers:
            registry = servers.registry
            listed = {n: text(await registry.acall(f"{n}__roots", {})) for n in servers.servers}
            assert listed == {
                "local": f"{tmp_path.as_uri()}|work",
                "remote": f"{tmp_path.as_uri()}|work",
                "own": f"{(tmp_path / 'own').as_uri()}|mine",
            }
            counts = {n: text(await registry.acall(f"{n}__roots_changes", {})) for n in listed}

            await servers.set_roots([tmp_path / "a", tmp_path / "b"])  # the followers

            async def told(name: str, times: int) -> bool:
                seen = text(await registry.acall(f"{name}__roots_changes", {}))
                return int(seen) == int(counts[name]) + times

            await _until(lambda: told("local", 1))
            await _until(lambda: told("remote", 1))
            both = f"{(tmp_path / 'a').as_uri()}| {(tmp_path / 'b').as_uri()}|"
            assert text(await registry.acall("local__roots", {})) == both
            assert text(await registry.acall("remote__roots", {})) == both
            assert await told("own", 0)  # it has its own roots: not told
            assert servers.roots() == [(tmp_path / "a").as_uri(), (tmp_path / "b").as_uri()]

            await servers.set_roots([tmp_path / "c"], server="local")  # stops following
            await _until(lambda: told("local", 2))
            await servers.set_roots([tmp_path])
            await _until(lambda: told("remote", 2))
            assert text(await registry.acall("local__roots", {})) == f"{(tmp_path / 'c').as_uri()}|"
            assert await told("local", 2) and await told("own", 0)
    assert descendants(exclude={web_pid}) == before

    with anyio.fail_after(HANG):
        async with lb.connect_mcp_servers({"mcpServers": {"local": STDIO}}) as servers:
            with pytest.raises(lb.UsageError, match="without roots"):
                await servers.set_roots(["/tmp"])
            assert servers.roots() == []
            with pytest.raises(lb.LLMBridgeError):  # not announced: the server cannot ask
                await servers.registry.acall("roots", {})


@FEATURE_LOOPS
async def test_progress_reaches_the_app_sync_or_async(interact_web: tuple[str, int]) -> None:
    url, _ = interact_web
    updates: list[ProgressUpdate] = []

    async def on_progress(update: ProgressUpdate) -> None:
        updates.append(update)

    config = {"mcpServers": {"local": STDIO, "remote": {"url": url}}}
    with anyio.fail_after(60):
        async with lb.connect_mcp_servers(config, on_progress=on_progress) as servers:
            assert text(await servers.registry.acall("local__work", {"steps": 3})) == "worked 3"
            assert text(await servers.registry.acall("remote__work", {"steps": 2})) == "worked 2"

            async def all_arrived() -> bool:  # over HTTP, notifications may trail the result
                return len(updates) == 5

            await _until(all_arrived)
    assert [(u.server, u.tool, u.progress, u.total, u.message) for u in updates] == [
        ("local", "work", 1.0, 3.0, "step 1 of 3"),
        ("local", "work", 2.0, 3.0, "step 2 of 3"),
        ("local", "work", 3.0, 3.0, "step 3 of 3"),
        ("remote", "work", 1.0, 2.0, "step 1 of 2"),
        ("remote", "work", 2.0, 2.0, "step 2 of 2"),
    ]
    seen: list[float] = []

    def broken(update: ProgressUpdate) -> None:  # a sync callback that fails: logged only
        seen.append(update.progress)
        raise RuntimeError("app bug")

    from llmbridge.mcp import connect_http

    with anyio.fail_after(HANG):
        async with connect_http(url, on_progress=broken) as c:
            assert text(await c.call_tool("work", {"steps": 2})) == "worked 2"

            async def both() -> bool:  # over HTTP, notifications may trail the result
                return len(seen) == 2

            await _until(both)
    assert seen == [1.0, 2.0]


@FEATURE_LOOPS
async def test_progress_is_an_event_on_the_tool_loops_span() -> None:
    sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    spans = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    model = Model(tool_call("work", {"steps": 3}), said("done"))
    async with model.client(telemetry=lb.Telemetry(tracer_provider=provider)) as client:
        with anyio.fail_after(HANG):
            async with lb.connect_mcp_servers({"mcpServers": {"local": STDIO}}) as servers:
                loop = client.run("openai:gpt-4.1-mini", "work", tools=servers.registry)
                async for _ in loop:
                    pass
    (span,) = [s for s in spans.get_finished_spans() if s.name == "execute_tool work"]
    events = [(e.name, dict(e.attributes or {})) for e in span.events]
    assert events == [
        (
            "mcp.progress",
            {
                "mcp.progress": float(i),
                "mcp.tool": "work",
                "mcp.progress.total": 3.0,
                "mcp.progress.message": f"step {i} of 3",
            },
        )
        for i in (1, 2, 3)
    ]


@FEATURE_LOOPS
async def test_server_logs_reach_the_logger_at_their_level_without_secrets(
    interact_web: tuple[str, int], caplog: pytest.LogCaptureFixture
) -> None:
    url, _ = interact_web
    secret = "sk-live-0123456789abcdef"
    config = {
        "mcpServers": {
            "local": {**STDIO, "env": {"MCP_SECRET": "${SECRET}"}},
            "remote": {"url": url, "headers": {"X-Api-Key": "${SECRET}"}, "log_level": "critical"},
            "quiet": {**STDIO, "env": {"MCP_SECRET": "${SECRET}"}, "log_level": "error"},
        }
    }
    with caplog.at_level(logging.DEBUG, logger="llmbridge.mcp"), anyio.fail_after(60):
        async with lb.connect_mcp_servers(
            config, environ={"SECRET": secret}, log_level="debug"
        ) as servers:
            await servers.registry.acall("local__chatter", {})
            await servers.registry.acall("quiet__chatter", {})
            await servers.registry.acall("remote__chatter", {})

            async def all_arrived() -> bool:  # over HTTP, notifications may trail the result
                return "remote' [chat]: emergency" in caplog.text

            await _until(all_arrived)
    records = [r for r in caplog.records if r.name == "llmbridge.mcp" and "[chat]" in r.message]
    local = [(r.levelname, r.getMessage()) for r in records if r.mcp_server == "local"]  # type: ignore[attr-defined]
    assert local == [
        ("DEBUG", "MCP server 'local' [chat]: debug line"),
        ("INFO", "MCP server 'local' [chat]: info line"),
        ("INFO", "MCP server 'local' [chat]: notice line"),
        ("WARNING", "MCP server 'local' [chat]: warning line token=<redacted>"),
        ("ERROR", "MCP server 'local' [chat]: error line"),
        ("CRITICAL", "MCP server 'local' [chat]: critical line"),
        ("CRITICAL", "MCP server 'local' [chat]: alert line"),
        ("CRITICAL", "MCP server 'local' [chat]: emergency line"),
        ("INFO", 'MCP server \'local\' [chat]: {"structured":true,"n":1}'),
    ]
    quiet = [r.mcp_level for r in records if r.mcp_server == "quiet"]  # type: ignore[attr-defined]
    assert quiet == ["error", "critical", "alert", "emergency"]  # its config's level won
    remote = [r.mcp_level for r in records if r.mcp_server == "remote"]  # type: ignore[attr-defined]
    assert remote == ["critical", "alert", "emergency"]
    assert secret not in caplog.text


async def test_elicitation_and_progress_over_streamable_http(interact_web: tuple[str, int]) -> None:
    from llmbridge.mcp import connect_http

    updates: list[ProgressUpdate] = []

    async def elicit(request: ElicitationRequest) -> Any:
        return ElicitationAnswer("accept", {"name": "Bo", "age": 7, "size": "S"})

    url, _ = interact_web
    with anyio.fail_after(HANG):
        async with connect_http(url, name="web", elicit=elicit, on_progress=updates.append) as c:
            booked = text(await c.call_tool("book", {}))
            assert booked == "accept [('age', 7), ('name', 'Bo'), ('size', 'S')]"
            assert text(await c.call_tool("work", {"steps": 2})) == "worked 2"

            async def both() -> bool:
                return len(updates) == 2

            await _until(both)
    assert [(u.server, u.progress) for u in updates] == [("web", 1.0), ("web", 2.0)]


async def test_elicitation_and_progress_over_the_sse_transport() -> None:
    """``connect_sse`` (and so ``connect_remote``'s fallback) gets the interaction options too."""
    from llmbridge.mcp import connect_sse

    updates: list[ProgressUpdate] = []

    async def elicit(request: ElicitationRequest) -> Any:
        return ElicitationAnswer("accept", {"name": "Cy", "age": 9})

    with http_server(SERVER, "sse") as (url, _):
        sse_url = url.removesuffix("/mcp") + "/sse"
        with anyio.fail_after(HANG):
            async with connect_sse(
                sse_url, name="old", elicit=elicit, on_progress=updates.append
            ) as c:
                assert text(await c.call_tool("book", {})) == "accept [('age', 9), ('name', 'Cy')]"
                assert text(await c.call_tool("work", {"steps": 2})) == "worked 2"

                async def both() -> bool:
                    return len(updates) == 2

                await _until(both)
    assert [(u.server, u.progress) for u in updates] == [("old", 1.0), ("old", 2.0)]


def test_from_a_sync_script(tmp_path: Path) -> None:
    """``SyncClient.connect_mcp_servers`` takes the same options; a blocking ``elicit`` (as
    ``input()`` would be) runs in a worker thread; ``set_roots`` blocks."""
    import time

    def elicit(request: ElicitationRequest) -> Any:
        time.sleep(0.01)
        return {"name": "Cy", "age": 40}

    before = descendants()
    with lb.SyncClient() as client:
        with client.connect_mcp_servers(
            {"mcpServers": {"local": STDIO}}, elicit=elicit, roots=[tmp_path]
        ) as servers:
            assert text(servers.call("book", {})) == "accept [('age', 40), ('name', 'Cy')]"
            assert text(servers.call("roots", {})) == f"{tmp_path.as_uri()}|"
            servers.set_roots([(tmp_path / "x", "x")])
            assert servers.roots() == [(tmp_path / "x").as_uri()]
            assert text(servers.call("roots", {})) == f"{(tmp_path / 'x').as_uri()}|x"
    assert descendants() == before


@FEATURE_LOOPS
@pytest.mark.parametrize("behaviour", ["hangs", "fails"])
async def test_a_server_that_ignores_or_refuses_the_log_level_still_connects(
    behaviour: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="llmbridge.mcp"), anyio.fail_after(HANG):
        async with connect_stdio(
            STDIO["command"],
            STDIO["args"],
            env={"SET_LEVEL": behaviour},
            name="stubborn",
            timeout=8,  # for initialize, and then for logging/setLevel
            log_level="error",
        ) as c:
            assert text(await c.call_tool("work", {"steps": 1})) == "worked 1"
    said = "did not answer logging/setLevel" if behaviour == "hangs" else "refused log level"
    assert f"MCP server 'stubborn' {said}" in caplog.text
