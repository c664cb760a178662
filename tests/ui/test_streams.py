"""What the page is shown for the events no fixture holds: a fallback model taking over, the
app's own data and state, structured partial objects, an error mid-stream; and the headers.
Read by the protocols' reference clients (tests/ui/node)."""

from __future__ import annotations

import subprocess
from typing import Any

import anyio
import orjson
import pytest

import llmbridge as lb
from llmbridge.ui import Data, State, ag_ui, ai_sdk
from tests.ui import node_clients

pytestmark = pytest.mark.skipif(
    node_clients.missing() is not None, reason=str(node_clients.missing())
)

SWITCHED = [
    lb.StreamStart(model="a"),
    lb.TextDelta("Half an ans"),
    lb.ModelSwitch(from_model="x:a", to_model="y:b", error=lb.ServerError("down")),
    lb.StreamStart(model="b"),
    Data("progress", {"step": 1}, id="p"),
    lb.TextDelta("The answer."),
    lb.PartialObject({"city": "Par"}),
    lb.PartialObject({"city": "Paris"}),
    State({"count": 2}),
    lb.Finish("stop", usage=lb.Usage(input_tokens=3, output_tokens=2)),
]


async def _events(events: list[Any], error: Exception | None = None) -> Any:
    for event in events:
        yield event
    if error is not None:
        raise error


async def _bodies(events: list[Any], error: Exception | None = None) -> tuple[str, str]:
    ai = b"".join([b async for b in ai_sdk.to_stream(_events(events, error))])
    ag = b"".join(
        [b async for b in ag_ui.to_stream(_events(events, error), thread_id="t", run_id="r")]
    )
    return ai.decode(), ag.decode()


def _read(name: str, events: list[Any], error: Exception | None = None) -> tuple[Any, Any]:
    ai, ag = anyio.run(_bodies, events, error)
    results = node_clients.read(
        [
            {"name": name, "protocol": "ai-sdk", "body": ai},
            {"name": name, "protocol": "ag-ui", "body": ag},
        ]
    )
    return results[f"{name}|ai-sdk"], results[f"{name}|ag-ui"]


def test_a_model_switch_discards_what_the_failed_model_showed() -> None:
    ai, ag = _read("switch", SWITCHED)
    assert ai["errors"] == [] and ag["errors"] == []
    parts = ai["message"]["parts"]
    assert [p["text"] for p in parts if p["type"] == "text"] == ["The answer."]
    assert [p["data"] for p in parts if p["type"] == "data-progress"] == [{"step": 1}]
    objects = [p for p in parts if p["type"] == "data-llmbridge-partial-object"]
    assert [p["data"] for p in objects] == [{"city": "Paris"}]  # replaced in place
    assert ai["message"]["metadata"]["usage"]["inputTokens"] == 3
    # AG-UI has no way to take text back: the switch is announced, the new text follows
    assert "CUSTOM" in ag["eventTypes"] and "STATE_SNAPSHOT" in ag["eventTypes"]
    texts = [m["content"] for m in ag["messages"] if m["role"] == "assistant"]
    assert texts == ["Half an ans", "The answer."]


def test_an_error_mid_stream_reaches_the_page() -> None:
    events = [lb.TextDelta("So far"), lb.ToolCallStart(id="c", name="f", index=0)]
    ai, ag = _read("error", events, lb.StreamTruncatedError("the stream ended early"))
    assert ai["errors"] == [] and ag["errors"] == []
    assert ai["streamErrors"] == ["the stream ended early"]
    assert ai["chunkTypes"][-2:] == ["finish-step", "finish"]
    (tool,) = [p for p in ai["message"]["parts"] if p["type"] == "tool-f"]
    assert tool["state"] == "output-error"  # not left spinning
    assert ag["eventTypes"][-1] == "RUN_ERROR"


def test_other_exceptions_are_not_swallowed() -> None:
    with pytest.raises(ZeroDivisionError):
        anyio.run(_bodies, [lb.TextDelta("x")], ZeroDivisionError())


def test_headers_are_the_ai_packages_own() -> None:
    node_clients.require()
    script = 'import("ai").then(m => console.log(JSON.stringify(m.UI_MESSAGE_STREAM_HEADERS)))'
    run = subprocess.run(
        ["node", "-e", script], cwd=node_clients.NODE_DIR, capture_output=True, check=True
    )
    assert ai_sdk.HEADERS == orjson.loads(run.stdout)
    assert ag_ui.HEADERS["content-type"] == "text/event-stream"


def test_the_reference_clients_refuse_bad_streams() -> None:
    """The checks above can fail: a chunk without its id, a float timestamp, no RUN_STARTED."""
    ai = 'data: {"type":"start"}\n\ndata: {"type":"text-delta","delta":"x"}\n\ndata: [DONE]\n\n'
    ag = 'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","timestamp":1.5}\n\n'
    results = node_clients.read(
        [
            {"name": "bad", "protocol": "ai-sdk", "body": ai},
            {"name": "bad", "protocol": "ag-ui", "body": ag},
        ]
    )
    assert any("invalid chunk" in e for e in results["bad|ai-sdk"]["errors"])
    errors = results["bad|ag-ui"]["errors"]
    assert any("invalid event" in e for e in errors) and any("RUN_STARTED" in e for e in errors)
