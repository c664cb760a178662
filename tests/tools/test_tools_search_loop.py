"""``client.run`` answering a client-executed ``ToolSearch`` end to end, over a fake transport
scripted from the recorded shapes: the model asks, the registry's search answers in the API's
own format, the found deferred tool is then called as an ordinary tool, and the final answer
ends the loop. The follow-up requests are checked against the SDKs' request types."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.tools.results import ToolResult
from tests.corpus import CORPUS, needed
from tests.sdk_requests import check_body
from tests.tools.scripted_model import anthropic_turn, named_sse

USER = [lb.ChatMessage.user("What is the current exchange rate from USD to EUR?")]


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


@lb.tool(defer_loading=True)
def get_exchange_rate(from_currency: str, to_currency: str) -> str:
    """Look up the current exchange rate between two currencies."""
    return f"1 {from_currency} = 0.92 {to_currency}"


@lb.tool(defer_loading=True)
def stock_lookup(symbol: str) -> str:
    """Look up stock price by ticker symbol."""
    return "123.4"


TOOLS: list[Any] = [get_weather, get_exchange_rate, stock_lookup]


def _scripted(answers: list[bytes]) -> tuple[list[dict[str, Any]], httpx.MockTransport]:
    bodies: list[dict[str, Any]] = []

    def handle(request: httpx.Request) -> httpx.Response:
        bodies.append(orjson.loads(request.content))
        body = answers[len(bodies) - 1]
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    return bodies, httpx.MockTransport(handle)


async def _run(
    model: str, answers: list[bytes], tools: list[Any]
) -> tuple[Any, list[Any], list[dict[str, Any]]]:
    bodies, transport = _scripted(answers)
    config = {name: {"api_key": "k"} for name in ("anthropic", "openai-responses")}
    async with lb.Client(http_client=httpx.AsyncClient(transport=transport), providers=config) as c:
        loop = c.run(model, USER, tools=tools, max_steps=5)
        seen = [event async for event in loop]
    return loop, seen, bodies


# -- Anthropic: the documented custom search (a tool whose result holds tool_reference blocks)


ANTHROPIC_TURNS = [
    anthropic_turn(
        {"type": "text", "text": "Let me find a tool."},
        {
            "type": "tool_use",
            "id": "toolu_search1",
            "name": "tool_search",
            "input": {"query": "currency exchange rate"},
        },
        stop="tool_use",
    ),
    anthropic_turn(
        {
            "type": "tool_use",
            "id": "toolu_rate1",
            "name": "get_exchange_rate",
            "input": {"from_currency": "USD", "to_currency": "EUR"},
        },
        stop="tool_use",
    ),
    anthropic_turn({"type": "text", "text": "1 USD is 0.92 EUR."}, stop="end_turn"),
]


@pytest.mark.anyio
async def test_anthropic_client_search_loop() -> None:
    loop, seen, bodies = await _run(
        "anthropic:claude-sonnet-4-6", ANTHROPIC_TURNS, [*TOOLS, lb.ToolSearch(execution="client")]
    )
    assert loop.stop_reason == "final" and loop.response.text == "1 USD is 0.92 EUR."
    results = [e for e in seen if isinstance(e, ToolResult)]
    assert [(r.name, r.value) for r in results[:1]] == [("tool_search", ["get_exchange_rate"])]
    assert results[1].name == "get_exchange_rate" and "0.92" in str(results[1].value)
    # every request offers the same tools: the deferred ones deferred, the search last
    for body in bodies:
        assert [t["name"] for t in body["tools"]] == [
            "get_weather", "get_exchange_rate", "stock_lookup", "tool_search",
        ]  # fmt: skip
        assert [t.get("defer_loading") for t in body["tools"]] == [None, True, True, None]
        check_body("anthropic", body)
    answer = bodies[1]["messages"][-1]
    assert answer == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_search1",
                "content": [{"type": "tool_reference", "tool_name": "get_exchange_rate"}],
            }
        ],
    }
    third = bodies[2]["messages"]
    assert third[-1]["content"][0]["tool_use_id"] == "toolu_rate1"


@pytest.mark.anyio
async def test_the_apps_own_search_function_answers() -> None:
    asked: list[tuple[str, list[str]]] = []

    async def mine(query: str, specs: list[lb.ToolSpec]) -> list[str]:
        asked.append((query, [s.name for s in specs]))
        return ["stock_lookup", "no_such_tool", "stock_lookup"]

    search = lb.ToolSearch(execution="client", search=mine)
    _loop, _seen, bodies = await _run(
        "anthropic:claude-sonnet-4-6", ANTHROPIC_TURNS, [*TOOLS, search]
    )
    assert asked == [("currency exchange rate", ["get_exchange_rate", "stock_lookup"])]
    refs = bodies[1]["messages"][-1]["content"][0]["content"]
    assert refs == [{"type": "tool_reference", "tool_name": "stock_lookup"}]


@pytest.mark.anyio
async def test_a_search_that_finds_nothing_says_so() -> None:
    turns = [
        anthropic_turn(
            {
                "type": "tool_use",
                "id": "toolu_s",
                "name": "tool_search",
                "input": {"query": "quantum teleporter"},
            },
            stop="tool_use",
        ),
        anthropic_turn({"type": "text", "text": "No such tool."}, stop="end_turn"),
    ]
    loop, _seen, bodies = await _run(
        "anthropic:claude-sonnet-4-6", turns, [*TOOLS, lb.ToolSearch(execution="client")]
    )
    assert loop.stop_reason == "final"
    block = bodies[1]["messages"][-1]["content"][0]
    assert block["content"] == [{"type": "text", "text": "No tools matched the search."}]
    check_body("anthropic", bodies[1])


@pytest.mark.anyio
async def test_max_steps_counts_search_turns() -> None:
    bodies2, transport = _scripted(ANTHROPIC_TURNS)
    async with lb.Client(
        http_client=httpx.AsyncClient(transport=transport),
        providers={"anthropic": {"api_key": "k"}},
    ) as c:
        short = c.run("anthropic:claude-sonnet-4-6", USER, max_steps=1,
                      tools=[*TOOLS, lb.ToolSearch(execution="client")])  # fmt: skip
        events = [e async for e in short]
    assert short.stop_reason == "max_steps" and len(bodies2) == 1
    assert isinstance(events[-1], ToolResult)  # the search was still answered


# -- OpenAI Responses: tool_search_call (execution client) answered by tool_search_output ---
def _responses(*items: dict[str, Any]) -> bytes:
    response = {"id": "resp_1", "object": "response", "model": "gpt-5.4", "status": "in_progress"}
    events: list[dict[str, Any]] = [{"type": "response.created", "response": response}]
    for i, item in enumerate(items):
        events.append({"type": "response.output_item.added", "output_index": i, "item": item})
        events.append({"type": "response.output_item.done", "output_index": i, "item": item})
    done = {**response, "status": "completed",
            "usage": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}}  # fmt: skip
    events.append({"type": "response.completed", "response": done})
    return named_sse(*events)


RESPONSES_TURNS = [
    _responses(
        {
            "id": "tsc_1",
            "type": "tool_search_call",
            "status": "completed",
            "arguments": {"query": "exchange rate currency"},
            "call_id": "call_s1",
            "execution": "client",
        }
    ),
    _responses(
        {
            "id": "fc_1",
            "type": "function_call",
            "status": "completed",
            "arguments": '{"from_currency":"USD","to_currency":"EUR"}',
            "call_id": "call_r1",
            "name": "get_exchange_rate",
            "namespace": "get_exchange_rate",
        }
    ),
    _responses(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "0.92", "annotations": []}],
        }
    ),
]


@pytest.mark.anyio
async def test_responses_client_search_loop() -> None:
    loop, seen, bodies = await _run(
        "openai-responses:gpt-5.4", RESPONSES_TURNS, [*TOOLS, lb.ToolSearch(execution="client")]
    )
    assert loop.stop_reason == "final" and loop.response.text == "0.92"
    searches = [e for e in seen if isinstance(e, lb.ToolSearchCall)]
    assert [(s.id, s.execution, s.query) for s in searches] == [
        ("call_s1", "client", "exchange rate currency")
    ]
    items = bodies[1]["input"]
    assert [i["type"] for i in items] == ["message", "tool_search_call", "tool_search_output"]
    output = items[-1]
    assert output["call_id"] == "call_s1" and output["execution"] == "client"
    assert [t["name"] for t in output["tools"]] == ["get_exchange_rate"]
    assert "defer_loading" not in output["tools"][0]
    third = bodies[2]["input"]
    call = next(i for i in third if i["type"] == "function_call")
    assert call["namespace"] == "get_exchange_rate"  # goes back with the call
    assert third[-1] == {"type": "function_call_output", "call_id": "call_r1",
                         "output": "1 USD = 0.92 EUR"}  # fmt: skip
    for body in bodies:
        check_body("responses", body)


# -- the same loop, served the real recordings (pydantic-ai's client tool search cassettes) --
RECORDED = [
    "B_openai/test_openai_client_tool_search_streaming__i0.sse",
    "B_openai/test_openai_client_tool_search_streaming__i1__e00b826.sse",
    "B_openai/test_openai_client_tool_search_streaming__i2__e00b826.sse",
]


@needed
@pytest.mark.anyio
async def test_responses_client_search_loop_on_the_recordings() -> None:
    answers = [(CORPUS / name).read_bytes() for name in RECORDED]
    loop, _seen, bodies = await _run(
        "openai-responses:gpt-5.4", answers, [*TOOLS, lb.ToolSearch(execution="client")]
    )
    assert loop.stop_reason == "final" and "EUR" in loop.response.text
    recorded: Callable[[int], dict[str, Any]] = lambda i: orjson.loads(  # noqa: E731
        (CORPUS / RECORDED[i].replace(".sse", ".request.json")).read_bytes()
    )
    # what the app sent back is what pydantic-ai sent: the same item kinds, in order, and
    # our search found the tool its search found
    for i in (1, 2):
        assert [x["type"] for x in bodies[i]["input"] if "type" in x][1:] == [
            x["type"] for x in recorded(i)["input"] if "type" in x
        ]
        check_body("responses", bodies[i])
    ours = next(x for x in bodies[1]["input"] if x["type"] == "tool_search_output")
    theirs = next(x for x in recorded(1)["input"] if x.get("type") == "tool_search_output")
    assert [t["name"] for t in ours["tools"]] == [t["name"] for t in theirs["tools"]]


class _RemoteTool:
    """A tool like an MCP server's (``name``, ``description``, ``input_schema``, ``call``)."""

    def __init__(self, name: str, description: str, *params: str) -> None:
        self.name, self.description = name, description
        properties = {p: {"type": "string"} for p in params}
        self.input_schema = {"type": "object", "properties": properties}
        self.tool_spec = lb.ToolSpec.from_json_schema(
            name, description, self.input_schema, defer_loading=True
        )

    async def call(self, arguments: dict[str, Any]) -> str:
        return "1 USD = 0.92 EUR"


@pytest.mark.anyio
async def test_a_registry_of_remote_tools_beside_the_search() -> None:
    """An MCP servers' registry (tools that are objects, not functions) goes in a list with
    the search: ``tools=[servers.registry, lb.ToolSearch(...)]``."""
    registry = lb.ToolRegistry([get_weather])
    rate = _RemoteTool(
        "get_exchange_rate", "Current exchange rate.", "from_currency", "to_currency"
    )
    registry.register(rate)
    registry.register(_RemoteTool("stock_lookup", "Stock price by ticker symbol.", "symbol"))
    loop, seen, bodies = await _run(
        "anthropic:claude-sonnet-4-6",
        ANTHROPIC_TURNS,
        [registry, lb.ToolSearch(execution="client")],
    )
    assert loop.stop_reason == "final"
    assert [t.get("defer_loading") for t in bodies[0]["tools"]] == [None, True, True, None]
    results = [e for e in seen if isinstance(e, ToolResult)]
    assert [r.value for r in results] == [["get_exchange_rate"], "1 USD = 0.92 EUR"]
    # a registry and functions mix (issue 44.6), but one name stays one tool
    with pytest.raises(lb.UsageError, match="'get_weather' is already registered"):
        await _run("anthropic:claude-sonnet-4-6", ANTHROPIC_TURNS, [registry, get_weather])


# -- stream / complete: the app asks the client for the answers --------------------------------
@pytest.mark.anyio
async def test_answer_tool_searches_for_complete() -> None:
    bodies, transport = _scripted(RESPONSES_TURNS)
    tools = [*TOOLS, lb.ToolSearch(execution="client")]
    async with lb.Client(
        http_client=httpx.AsyncClient(transport=transport),
        providers={"openai-responses": {"api_key": "k"}},
    ) as c:
        first = await c.complete("openai-responses:gpt-5.4", USER, tools=tools)
        assert first.finish_reason == "tool_calls" and first.tool_searches[0].tools is None
        answers = await c.answer_tool_searches(first, tools)
        (answer,) = answers
        item = answer.content[0].data  # type: ignore[union-attr]
        assert item["type"] == "tool_search_output" and item["call_id"] == "call_s1"
        assert [t["name"] for t in item["tools"]] == ["get_exchange_rate"]
        second = await c.complete(
            "openai-responses:gpt-5.4", [*USER, first.message, *answers], tools=tools
        )
        assert [call.name for call in second.tool_calls] == ["get_exchange_rate"]
        assert await c.answer_tool_searches(second, tools) == []  # nothing waits
    assert bodies[1]["input"][-1] == item
    check_body("responses", bodies[1])


def test_answer_tool_searches_blocking_onanthropic_turn() -> None:
    answers = iter(ANTHROPIC_TURNS)

    def handle(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "text/event-stream"}
        return httpx.Response(200, content=next(answers), headers=headers)

    http = httpx.AsyncClient(transport=httpx.MockTransport(handle))
    search = lb.ToolSearch(execution="client")
    with lb.SyncClient(http_client=http, providers={"anthropic": {"api_key": "k"}}) as c:
        first = c.complete("anthropic:claude-sonnet-4-6", USER, tools=[*TOOLS, search])
        (answer,) = c.answer_tool_searches(first, TOOLS, search=search)
    block = answer.content[0].data  # type: ignore[union-attr]
    assert block["tool_use_id"] == "toolu_search1"
    assert block["content"] == [{"type": "tool_reference", "tool_name": "get_exchange_rate"}]
