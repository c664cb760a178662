"""Our browser streams as the protocols' reference clients read them (the ``ai`` package's chunk
schema and ``readUIMessageStream``; ``@ag-ui/core``'s event schemas, ``@ag-ui/client``'s
``verifyEvents`` and ``defaultApplyEvents``), on every provider's recorded fixtures replayed
through the client, and on a tool loop: every chunk valid, and the message each reader rebuilds
equal to our ``ChatResponse`` (text, reasoning, tool calls with inputs and outputs, errors)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.testing import ReplayTransport, load_fixture
from llmbridge.ui import ag_ui, ai_sdk
from tests.fakes import mock_client, sse_response
from tests.ui import node_clients

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
STREAMED = sorted(
    p.parent
    for p in FIXTURES.glob("*/*/input.json")
    if load_fixture(p.parent).status == 200 and (p.parent / "events.json").exists()
)

pytestmark = pytest.mark.skipif(
    node_clients.missing() is not None, reason=str(node_clients.missing())
)


async def _bodies(stream: Any, run_events: list[Any]) -> None:
    try:
        async for event in stream:
            run_events.append(event)
    except lb.LLMBridgeError as exc:
        run_events.append(exc)


async def _replay(path: Path) -> tuple[list[Any], lb.ChatResponse[Any], str | None]:
    fx = load_fixture(path)
    client = lb.Client(
        http_client=httpx.AsyncClient(transport=ReplayTransport(fx, chunk_size=11)),
        providers={fx.provider: {**fx.provider_config, "api_key": "test-key"}},
        retry=lb.RetryPolicy(max_attempts=1),
    )
    provider, _ = client.resolve(fx.model)
    stream = client.stream_request(provider, fx.request)
    events: list[Any] = []
    await _bodies(stream, events)
    error = events.pop() if events and isinstance(events[-1], lb.LLMBridgeError) else None
    response = error.partial if error is not None else stream.response()
    assert response is not None
    return events, response, error.message if error is not None else None


async def _events(events: list[Any], error: str | None) -> Any:
    for event in events:
        yield event
    if error is not None:
        raise lb.StreamError(error)


async def _collect(body: Any) -> str:
    return b"".join([chunk async for chunk in body]).decode()


def _ai_sdk_view(message: dict[str, Any]) -> dict[str, Any]:
    parts = message["parts"]
    tools = [
        p
        for p in parts
        if p["type"].startswith("tool-")
        and p["state"] != "input-streaming"
        and not (p["state"] == "output-error" and isinstance(p.get("input"), str))  # bad input
    ]
    return {
        "text": "".join(p["text"] for p in parts if p["type"] == "text"),
        "reasoning": "".join(p["text"] for p in parts if p["type"] == "reasoning"),
        "calls": [(p["toolCallId"], p["type"][5:], p.get("input")) for p in tools],
        "outputs": {
            p["toolCallId"]: p.get("output", p.get("errorText"))
            for p in tools
            if "output" in p["state"]
        },
    }


def _arguments(call: dict[str, Any]) -> Any:
    kept = (call.get("metadata") or {}).get("llmbridge", {})
    return (
        kept["arguments"]
        if "arguments" in kept
        else orjson.loads(call["function"]["arguments"] or "{}")
    )


def _ag_ui_view(messages: list[dict[str, Any]]) -> dict[str, Any]:
    calls = [
        c
        for m in messages
        if m["role"] == "assistant"
        for c in m.get("toolCalls") or []
        if "error" not in (c.get("metadata") or {}).get("llmbridge", {})
    ]
    return {
        "text": "".join(m.get("content") or "" for m in messages if m["role"] == "assistant"),
        "reasoning": "".join(m["content"] for m in messages if m["role"] == "reasoning"),
        "calls": [(c["id"], c["function"]["name"], _arguments(c)) for c in calls],
        "outputs": {m["toolCallId"]: m["content"] for m in messages if m["role"] == "tool"},
    }


def _expected(response: lb.ChatResponse[Any], outputs: dict[str, Any]) -> dict[str, Any]:
    return {
        "text": response.text,
        "reasoning": response.reasoning,
        "calls": [(c.id, c.name, c.arguments) for c in response.tool_calls if c.error is None],
        "outputs": outputs,
    }


def _essence(messages: list[lb.ChatMessage], *, raw: bool = True) -> list[tuple[Any, ...]]:
    """What a next request carries of an assistant turn: adjacent texts joined (``raw``: with
    the provider-run items)."""
    out: list[tuple[Any, ...]] = []
    parts = (p for m in messages if m.role == "assistant" for p in m.content)
    for part in (p for p in parts if raw or not isinstance(p, lb.RawPart)):
        if isinstance(part, lb.TextPart):
            if out and out[-1][0] == "text":
                out[-1] = ("text", out[-1][1] + part.text)
            elif part.text:
                out.append(("text", part.text))
        elif isinstance(part, lb.ReasoningPart):
            out.append(("reasoning", part.text, part.signature, part.provider, part.provider_data))
        elif isinstance(part, lb.ToolCallPart) and part.error is None:
            out.append(("call", part.id, part.name, part.arguments, part.raw_arguments))
        elif isinstance(part, lb.RawPart):
            out.append(("raw", part.provider, part.data))
    return out


def _check(result: dict[str, Any], name: str) -> None:
    assert result["errors"] == [], f"{name}: {result['errors']}"


async def _fixture_cases() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    expected: dict[str, tuple[dict[str, Any], str | None]] = {}
    turns: dict[str, list[list[tuple[Any, ...]]]] = {}
    for path in STREAMED:
        name = f"{path.parent.name}/{path.name}"
        events, response, error = await _replay(path)
        expected[name] = (_expected(response, {}), error)
        turns[name] = [_essence([response.message]), _essence([response.message], raw=False)]
        provider = load_fixture(path).provider
        ai = await _collect(ai_sdk.to_stream(_events(events, error), provider=provider))
        ag_events = _events(events, error)
        ag = await _collect(
            ag_ui.to_stream(ag_events, thread_id="t", run_id="r", provider=provider)
        )
        cases += [
            {"name": name, "protocol": "ai-sdk", "body": ai},
            {"name": name, "protocol": "ag-ui", "body": ag},
        ]
    return cases, (expected, turns)


def test_every_fixture_reads_back_as_our_response() -> None:
    cases, (expected, turns) = anyio.run(_fixture_cases)
    results = node_clients.read(cases)
    assert len(results) == 2 * len(STREAMED) >= 80
    for name, (want, error) in expected.items():
        ai, ag = results[f"{name}|ai-sdk"], results[f"{name}|ag-ui"]
        _check(ai, name)
        _check(ag, name)
        assert _ai_sdk_view(ai["message"]) == want, name
        assert _ag_ui_view(ag["messages"]) == want, name
        assert ai["streamErrors"] == ([error] if error else []), name
        assert ("RUN_ERROR" in ag["eventTypes"]) == (error is not None), name
        assert ai["chunkTypes"][-1] == "finish"
        if error is None:  # the page's message sent back is the turn the model made
            back = ai_sdk.to_messages({"messages": [ai["message"]]})
            assert _essence(back) == turns[name][0], name
            # AG-UI has no message for provider-run items (they are RAW events): the rest
            back = ag_ui.to_messages({"messages": ag["messages"]})
            assert _essence(back) == turns[name][1], name
        assert ag["eventTypes"][-1] == ("RUN_ERROR" if error else "RUN_FINISHED")


def _tool_turns() -> httpx.AsyncClient:
    bodies = [
        (FIXTURES / "anthropic/thinking_tool_use/response.sse").read_bytes(),
        (FIXTURES / "anthropic/text/response.sse").read_bytes(),
    ]

    def handler(request: httpx.Request) -> httpx.Response:
        return sse_response(bodies.pop(0))

    return mock_client(handler)


def get_weather(city: str, unit: str = "celsius") -> dict[str, Any]:
    """Current weather for a city."""
    return {"city": city, "temperature": 21, "unit": unit}


async def _loop_cases() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    cases, wants = [], {}
    for protocol in ("ai-sdk", "ag-ui"):
        async with lb.Client(
            http_client=_tool_turns(), providers={"anthropic": {"api_key": "k"}}
        ) as client:
            loop = client.run(
                "anthropic:claude-sonnet-4-6",
                [lb.ChatMessage.user('Weather in "Saint-Étienne"? Use celsius.')],
                tools=[get_weather],
            )
            body = (
                ai_sdk.to_stream(loop)
                if protocol == "ai-sdk"
                else ag_ui.to_stream(loop, thread_id="t", run_id="r")
            )
            cases.append({"name": "loop", "protocol": protocol, "body": await _collect(body)})
        first = next(m for m in loop.messages if m.role == "assistant")
        results = [m.tool_results[0] for m in loop.messages if m.role == "tool"]
        assert results, "the loop ran no tool"
        calls = [(c.id, c.name, c.arguments) for m in loop.messages for c in m.tool_calls]
        text = "".join(m.text for m in loop.messages if m.role == "assistant")
        outputs: dict[str, Any] = {
            r.tool_call_id: (orjson.loads(r.text) if protocol == "ai-sdk" else r.text)
            for r in results
        }
        reasoning = "".join(m.reasoning for m in loop.messages if m.role == "assistant")
        wants[protocol] = {"text": text, "reasoning": reasoning, "calls": calls, "outputs": outputs}
        wants[f"{protocol} turn"] = loop.new_messages
        assert first.tool_calls
    return cases, wants


def test_a_tool_loop_reads_back_with_its_outputs() -> None:
    cases, wants = anyio.run(_loop_cases)
    results = node_clients.read(cases)
    ai, ag = results["loop|ai-sdk"], results["loop|ag-ui"]
    _check(ai, "loop")
    _check(ag, "loop")
    assert _ai_sdk_view(ai["message"]) == wants["ai-sdk"]
    assert _ag_ui_view(ag["messages"]) == wants["ag-ui"]
    # the page's message, sent back, is the loop's own turn: signed reasoning (its maker named),
    # the calls with their raw arguments, the results
    back = ai_sdk.to_messages({"messages": [ai["message"]]})
    made = wants["ai-sdk turn"]
    assert _essence(back) == _essence(made) and any(e[0] == "reasoning" for e in _essence(back))
    assert [r for m in back for r in m.tool_results] == [r for m in made for r in m.tool_results]
    assert ai["chunkTypes"].count("start-step") == 2  # one step per model turn
    assert ag["eventTypes"].count("STEP_STARTED") == 2
