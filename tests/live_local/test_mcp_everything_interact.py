"""Elicitation, roots, progress, logs and sampling against the reference test server
(``@modelcontextprotocol/server-everything`` over stdio, through npx), on every loop: its
``trigger-elicitation-request`` / ``trigger-url-elicitation``, ``get-roots-list`` (and its
re-listing after ``roots/list_changed``), ``trigger-long-running-operation``,
``toggle-simulated-logging`` and ``trigger-sampling-request``; no process left behind."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import anyio
import httpx
import orjson
import pytest

pytest.importorskip("mcp")

import llmbridge as lb
from llmbridge.mcp import ElicitationRequest, ProgressUpdate
from tests.live_local.server import EVERYTHING
from tests.tools.mcp_helpers import FEATURE_LOOPS, descendants

pytestmark = pytest.mark.anyio


def _answer(request: ElicitationRequest) -> Any:
    """Fill in server-everything's form from its schema: every required field, typed."""
    if request.mode == "url":
        return True
    content: dict[str, Any] = {"name": "Ada Lovelace", "email": "ada@example.org"}
    for name, prop in request.fields.items():
        if name in content or name not in request.required:
            continue
        kind = prop.get("type")
        if "default" in prop:
            content[name] = prop["default"]
        elif kind == "boolean":
            content[name] = True
        elif kind in ("integer", "number"):
            content[name] = prop.get("minimum", 1)
        elif kind == "array":
            content[name] = [str((prop.get("items") or {}).get("enum", ["x"])[0])]
        elif "enum" in prop:
            content[name] = prop["enum"][0]
        else:
            content[name] = "x"
    return content


def _said(words: str) -> bytes:
    chunks = [
        {"model": "gpt-x", "choices": [{"index": 0, "delta": {"content": words}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    body = b"".join(b"data: " + orjson.dumps({"id": "c", **c}) + b"\n\n" for c in chunks)
    return body + b"data: [DONE]\n\n"


async def _until(check: Any, tries: int = 500) -> None:
    for _ in range(tries):
        if check():
            return
        await anyio.sleep(0.02)
    raise AssertionError("not seen within 10 s")


@FEATURE_LOOPS
async def test_everything_elicits_lists_roots_reports_progress_logs_and_samples(
    npx: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    asked: list[ElicitationRequest] = []
    updates: list[ProgressUpdate] = []
    approvals: list[lb.ToolApprovalRequest] = []
    bodies: list[dict[str, Any]] = []

    def elicit(request: ElicitationRequest) -> Any:
        asked.append(request)
        return _answer(request)

    def approve(request: lb.ToolApprovalRequest) -> bool:
        approvals.append(request)
        return True

    def model(request: httpx.Request) -> httpx.Response:
        bodies.append(orjson.loads(request.content))
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=_said("42")
        )

    config = {
        "mcpServers": {"everything": {"command": npx, "args": EVERYTHING, "startup_timeout": 120}}
    }
    http = httpx.AsyncClient(transport=httpx.MockTransport(model))
    before = descendants()
    with caplog.at_level(logging.DEBUG, logger="llmbridge.mcp"), anyio.fail_after(180):
        async with (
            lb.Client(http_client=http, providers={"openai": {"api_key": "sk-x"}}) as client,
            lb.connect_mcp_servers(
                config,
                client=client,
                sampling_model="openai:gpt-x",
                approve=approve,
                elicit=elicit,
                roots=[(tmp_path, "work")],
                on_progress=updates.append,
                log_level="debug",
            ) as servers,
        ):
            if "everything" in servers.failures:
                pytest.skip(f"server-everything could not start: {servers.failures}")
            call = servers.registry.acall

            form: Any = await call("trigger-elicitation-request", {})
            shown = " ".join(p.text for p in form.content if isinstance(p, lb.TextPart))
            assert "User provided the requested information" in shown and "Ada Lovelace" in shown
            url: Any = await call("trigger-url-elicitation", {"url": "https://example.com/a"})
            assert url.content and asked[1].url == "https://example.com/a"
            assert [a.mode for a in asked] == ["form", "url"] and asked[0].server == "everything"
            assert "email" in asked[0].fields and asked[0].required == ["name"]

            listed: Any = await call("get-roots-list", {})
            assert tmp_path.as_uri() in listed.content[0].text and "work" in listed.content[0].text
            await servers.set_roots([tmp_path / "a", tmp_path / "b"])
            await _until(lambda: "2 root(s) received" in caplog.text)  # it listed them again
            relisted: Any = await call("get-roots-list", {})
            assert (tmp_path / "b").as_uri() in relisted.content[0].text

            await call("trigger-long-running-operation", {"duration": 1, "steps": 3})
            assert [(u.server, u.progress, u.total) for u in updates] == [
                ("everything", float(i), 3.0) for i in (1, 2, 3)
            ]

            await call("toggle-simulated-logging", {})

            def simulated() -> bool:  # "Debug-level message", "Alert level-message", ...
                return any(
                    getattr(r, "mcp_server", None) == "everything"
                    and "level message" in r.getMessage().replace("-", " ")
                    for r in caplog.records
                )

            await _until(simulated)

            sampled: Any = await call("trigger-sampling-request", {"prompt": "6 x 7?"})
            assert "42" in sampled.content[0].text
    assert descendants() == before
    assert bodies and bodies[0]["model"] == "gpt-x" and "6 x 7?" in str(bodies[0]["messages"])
    assert [(a.kind, a.server) for a in approvals] == [("sampling", "everything")]
    logged = [r for r in caplog.records if getattr(r, "mcp_server", None) == "everything"]
    assert logged and all(
        r.mcp_level
        in {  # type: ignore[attr-defined]
            "debug",
            "info",
            "notice",
            "warning",
            "error",
            "critical",
            "alert",
            "emergency",
        }
        for r in logged
    )


@FEATURE_LOOPS
async def test_without_elicit_everything_is_declined_and_with_false_not_offered(
    npx: str, caplog: pytest.LogCaptureFixture
) -> None:
    config = {
        "mcpServers": {"everything": {"command": npx, "args": EVERYTHING, "startup_timeout": 120}}
    }
    before = descendants()
    with caplog.at_level(logging.INFO, logger="llmbridge.mcp"), anyio.fail_after(180):
        async with lb.connect_mcp_servers(config) as servers:  # no elicit=: offered, declined
            if "everything" in servers.failures:
                pytest.skip(f"server-everything could not start: {servers.failures}")
            form: Any = await servers.registry.acall("trigger-elicitation-request", {})
            shown = " ".join(p.text for p in form.content if isinstance(p, lb.TextPart))
            assert "declined" in shown.lower()
        async with lb.connect_mcp_servers(config, elicit=False) as servers:
            names = set(servers.registry.names)
    assert "MCP server 'everything' asked the user (form mode)" in caplog.text
    assert "trigger-elicitation-request" not in names and "trigger-url-elicitation" not in names
    assert "echo" in names
    assert descendants() == before
