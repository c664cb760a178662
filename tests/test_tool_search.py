"""Tool search and deferred tools (issue 36, item 2): the spec, the encoders, the refusal on
providers without it, the deferral rule, the views on the response, the registry's search and
the tool loop answering a client search (scripted from the recorded shapes)."""

from __future__ import annotations

from typing import Any

import httpx
import orjson
import pytest
from pydantic import ValidationError

import llmbridge as lb
from llmbridge.hosted import RUNS_ON, search_query
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.response import accumulate
from llmbridge.tools.search import rank_tools, words
from tests.sdk_requests import check_body
from tests.tools.scripted_model import anthropic_turn

USER = [lb.ChatMessage.user("What is the USD to EUR exchange rate?")]


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


def get_exchange_rate(from_currency: str, to_currency: str) -> str:
    """Look up the current exchange rate between two currencies."""
    return f"1 {from_currency} = 0.92 {to_currency}"


def stock_lookup(symbol: str) -> str:
    """Look up stock price by ticker symbol."""
    return "123.4"


def catalog() -> list[lb.ToolSpec]:
    return [
        lb.ToolSpec.from_function(get_weather),
        lb.ToolSpec.from_function(get_exchange_rate, defer_loading=True),
        lb.ToolSpec.from_function(stock_lookup, defer_loading=True),
    ]


def provider(name: str) -> Any:
    return create_provider(name, ProviderConfig.from_mapping({"api_key": "k"}))


def body_for(name: str, tools: list[Any], messages: list[lb.ChatMessage] = USER) -> Any:
    specs = [t for t in tools if isinstance(t, lb.ToolSpec)]
    hosted = [t for t in tools if not isinstance(t, lb.ToolSpec)]
    req = lb.ChatRequest(model="m", messages=messages, tools=specs, hosted_tools=hosted)
    return provider(name).build_request(req).json


# -- the spec and ToolSpec.defer_loading ---------------------------------------------------
def test_defer_loading_is_a_spec_field_every_builder_sets() -> None:
    assert not lb.ToolSpec.from_function(get_weather).defer_loading
    spec = lb.ToolSpec.from_function(get_weather, defer_loading=True)
    assert spec.defer_loading and spec.function is get_weather
    assert spec != lb.ToolSpec.from_function(get_weather)  # part of equality
    assert lb.tool(defer_loading=True)(get_weather).tool_spec.defer_loading
    assert lb.ToolSpec.from_json_schema(
        "x", "d", {"type": "object"}, defer_loading=True
    ).defer_loading
    assert lb.ToolSpec.from_mcp({"name": "m", "inputSchema": {}}, defer_loading=True).defer_loading
    undeferred = spec.deferred(False)
    assert not undeferred.defer_loading and undeferred.function is get_weather
    # an ordinary spec dumps as before (no new key); a deferred one says so
    assert "defer_loading" not in lb.ToolSpec.from_function(get_weather).model_dump()
    assert spec.model_dump()["defer_loading"] is True


def test_tool_search_spec_validates_and_round_trips() -> None:
    with pytest.raises(ValidationError):
        lb.ToolSearch(algorithm="embeddings")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        lb.ToolSearch(max_results=0)
    with pytest.raises(ValidationError):
        lb.ToolSearch(name="has space")
    search = lb.ToolSearch(algorithm="regex", execution="client", max_results=3)
    req = lb.ChatRequest(model="m", messages=USER, hosted_tools=[search])
    assert lb.ChatRequest.model_validate(req.model_dump(mode="json")).hosted_tools == [search]
    own = lb.ToolSearch(execution="client", search=lambda q, specs: [])
    assert "search" not in own.model_dump() and "lambda" not in repr(own)


def test_search_query_joins_every_string_of_the_arguments() -> None:
    assert search_query({"query": "weather"}) == "weather"
    assert search_query({"queries": ["a b", "c"], "limit": 5}) == "a b c"
    assert search_query({"paths": ["get_weather"]}) == "get_weather"
    assert search_query({}) is None and search_query(None) is None


# -- encoders (golden shapes, checked against the SDKs' request types) ------------------------
def test_responses_server_search_and_deferred_functions() -> None:
    body = body_for("openai-responses", [*catalog(), lb.ToolSearch()])
    tools = body["tools"]
    assert [t.get("defer_loading") for t in tools[:3]] == [None, True, True]
    assert tools[3] == {"type": "tool_search"}
    check_body("responses", body)


def test_responses_client_search_has_a_query_schema() -> None:
    body = body_for("openai-responses", [*catalog(), lb.ToolSearch(execution="client")])
    search = body["tools"][-1]
    assert search["type"] == "tool_search" and search["execution"] == "client"
    assert search["parameters"]["required"] == ["query"]
    assert "search" in search["description"]
    check_body("responses", body)
    custom = lb.ToolSearch(execution="client", description="Find CRM tools.")
    assert body_for("openai-responses", [custom])["tools"][-1]["description"] == "Find CRM tools."


def test_responses_warns_that_algorithm_has_no_field() -> None:
    req = lb.ChatRequest(model="m", messages=USER, hosted_tools=[lb.ToolSearch(algorithm="regex")])
    from llmbridge.providers.openai_responses.request import build_body

    assert any("algorithm='regex'" in w for w in build_body(req).warnings)


@pytest.mark.parametrize(
    ("algorithm", "entry"),
    [
        (None, {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}),
        ("bm25", {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}),
        ("regex", {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}),
    ],
)
def test_anthropic_server_search_tools(algorithm: Any, entry: dict[str, Any]) -> None:
    body = body_for("anthropic", [*catalog(), lb.ToolSearch(algorithm=algorithm)])
    assert body["tools"][-1] == entry
    assert [t.get("defer_loading") for t in body["tools"][:3]] == [None, True, True]
    check_body("anthropic", body)
    p = provider("anthropic")
    req = lb.ChatRequest(model="m", messages=USER, hosted_tools=[lb.ToolSearch()])
    assert "anthropic-beta" not in p.build_request(req).headers  # GA: no beta flag


def test_anthropic_client_search_is_an_ordinary_tool() -> None:
    body = body_for("anthropic", [*catalog(), lb.ToolSearch(execution="client", name="find")])
    search = body["tools"][-1]
    assert search["name"] == "find" and "type" not in search
    assert search["input_schema"]["properties"]["query"]["type"] == "string"
    check_body("anthropic", body)


def test_provider_options_are_merged_last() -> None:
    search = lb.ToolSearch(provider_options={"anthropic": {"cache_control": {"type": "ephemeral"}}})
    body = body_for("anthropic", [search])
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    check_body("anthropic", body)


# -- refusal before sending, and the deferral rule ------------------------------------------
@pytest.mark.parametrize(
    "model",
    [
        "openai:gpt-4.1",
        "gemini:gemini-2.5-flash",
        "groq:llama-3.3-70b-versatile",
        "anthropic-bedrock:anthropic.claude-sonnet-4-5",
        "anthropic:claude-3-haiku-20240307",
    ],
)
@pytest.mark.anyio
async def test_a_provider_without_tool_search_refuses_before_sending(model: str) -> None:
    sent: list[httpx.Request] = []
    transport = httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(500))
    config = {
        name: {"api_key": "k"} for name in ("openai", "gemini", "groq", "anthropic")
    } | {"anthropic-bedrock": {"aws_access_key_id": "a", "aws_secret_access_key": "b",
                               "region": "us-east-1"}}  # fmt: skip
    async with lb.Client(http_client=httpx.AsyncClient(transport=transport), providers=config) as c:
        with pytest.raises(lb.ConfigurationError) as info:
            async for _ in c.stream(model, USER, tools=[*catalog(), lb.ToolSearch()]):
                pass
    assert sent == []
    assert f"ToolSearch (tool_search) cannot run on {model}" in str(info.value)
    assert ", ".join(RUNS_ON["tool_search"]) in str(info.value)


@pytest.mark.anyio
async def test_two_tool_searches_are_refused() -> None:
    transport = httpx.MockTransport(lambda r: httpx.Response(500))
    async with lb.Client(
        http_client=httpx.AsyncClient(transport=transport),
        providers={"anthropic": {"api_key": "k"}},
    ) as c:
        with pytest.raises(lb.ConfigurationError, match="two ToolSearch"):
            await c.complete(
                "anthropic:claude-sonnet-4-5", USER, tools=[lb.ToolSearch(), lb.ToolSearch()]
            )


def _capture(answer: bytes) -> tuple[list[dict[str, Any]], httpx.MockTransport]:
    bodies: list[dict[str, Any]] = []

    def handle(request: httpx.Request) -> httpx.Response:
        bodies.append(orjson.loads(request.content))
        return httpx.Response(200, content=answer, headers={"content-type": "text/event-stream"})

    return bodies, httpx.MockTransport(handle)


@pytest.mark.anyio
async def test_deferred_tools_without_a_search_are_sent_normally_with_a_warning() -> None:
    bodies, transport = _capture(anthropic_turn({"type": "text", "text": "hi"}, stop="end_turn"))
    async with lb.Client(
        http_client=httpx.AsyncClient(transport=transport),
        providers={"anthropic": {"api_key": "k"}},
    ) as c:
        resp = await c.complete("anthropic:claude-sonnet-4-5", USER, tools=catalog())
    assert all("defer_loading" not in t for t in bodies[0]["tools"])
    assert any("defer_loading=True but no ToolSearch" in w for w in resp.warnings)
    assert "get_exchange_rate" in " ".join(resp.warnings)


# -- views on the response -------------------------------------------------------------------
def test_search_views_merge_with_their_results() -> None:
    events: list[lb.StreamEvent] = [
        lb.StreamStart(),
        lb.ToolSearchCall(id="a", query="weather", arguments={"query": "weather"}),
        lb.ToolSearchCall(id="a", tools=["get_weather"]),
        lb.ToolSearchCall(id="tsc_1", query="rate", execution="server"),
        lb.ToolSearchCall(id=None, tools=["get_exchange_rate"]),  # a server result has no id
        lb.ToolSearchCall(id="b", query="x", execution="client"),
        lb.Finish(reason="stop"),
    ]
    resp = accumulate(events)
    assert [(s.id, s.query, s.tools) for s in resp.tool_searches] == [
        ("a", "weather", ["get_weather"]),
        ("tsc_1", "rate", ["get_exchange_rate"]),
        ("b", "x", None),
    ]
    assert resp.text == "" and resp.message.content == []
    from llmbridge.events import event_from_dict, event_to_dict

    assert event_from_dict(event_to_dict(events[2])) == events[2]


# -- the registry's search -------------------------------------------------------------------
def test_words_split_names_and_humps() -> None:
    assert words("readNoteTree get_exchange_rate HTTPServer rates") == [
        "read", "note", "tree", "get", "exchange", "rate", "http", "server", "rate",
    ]  # fmt: skip


def test_bm25_ranks_the_matching_tools_first_and_deterministically() -> None:
    specs = catalog()
    found = rank_tools("exchange rate currency USD EUR forex", specs)
    assert [s.name for s in found] == ["get_exchange_rate"]
    assert [s.name for s in rank_tools("stock price", specs)] == ["stock_lookup"]
    assert rank_tools("quantum entanglement", specs) == []
    assert rank_tools("", specs) == []
    # a word in many tools weighs less than a rare one
    both = rank_tools("current weather", specs)
    assert next(s.name for s in both) == "get_weather"
    assert rank_tools("look up", specs, limit=1) == rank_tools("look up", specs, limit=1)


def test_regex_search_and_its_fallback_to_text() -> None:
    specs = catalog()
    assert [s.name for s in rank_tools(r"exchange|stock", specs, algorithm="regex")] == [
        "get_exchange_rate",
        "stock_lookup",
    ]
    assert [s.name for s in rank_tools("WEATHER", specs, algorithm="regex")] == ["get_weather"]
    assert rank_tools("(unclosed", specs, algorithm="regex") == []  # matched as text
    assert rank_tools("a" * 500, specs, algorithm="regex") == []


def test_registry_search_looks_at_the_deferred_tools() -> None:
    reg = lb.ToolRegistry([get_weather])
    assert [s.name for s in reg.search("weather")] == ["get_weather"]  # none deferred: all
    reg.register(lb.tool(defer_loading=True)(get_exchange_rate))
    assert reg.search("weather") == []  # the visible tool is not searched
    assert [s.name for s in reg.search("currency")] == ["get_exchange_rate"]
    assert [s.name for s in reg.search("weather", deferred_only=False)] == ["get_weather"]


def test_a_big_catalog_stays_fast_and_finds_the_one_tool() -> None:
    specs = [
        lb.ToolSpec(name=f"tool_{i}", description=f"Does thing number {i} for team {i % 7}",
                    defer_loading=True)
        for i in range(2000)
    ] + [lb.ToolSpec(name="create_invoice", description="Create a customer invoice",
                     defer_loading=True)]  # fmt: skip
    assert [s.name for s in rank_tools("invoice for a customer", specs)] == ["create_invoice"]


def test_a_hosted_mcp_server_can_be_deferred() -> None:
    server = lb.HostedMCP("https://mcp.example/mcp", name="crm", approval="never",
                          defer_loading=True)  # fmt: skip
    body = body_for("openai-responses", [server, lb.ToolSearch()])
    assert body["tools"][0]["defer_loading"] is True
    check_body("responses", body)
    toolset = body_for("anthropic", [server, lb.ToolSearch()])["tools"][0]
    assert toolset == {"type": "mcp_toolset", "mcp_server_name": "crm",
                       "default_config": {"defer_loading": True}}  # fmt: skip
    allow = server.model_copy(update={"allowed_tools": ["find"]})
    toolset = body_for("anthropic", [allow, lb.ToolSearch()])["tools"][0]
    assert toolset["default_config"] == {"enabled": False, "defer_loading": True}
    assert (
        "defer_loading"
        not in body_for("openai-responses", [lb.HostedMCP("https://m.x")])["tools"][0]
    )


def test_namespaces_group_functions_on_responses_only() -> None:
    def find_customer(email: str) -> str:
        """Find a customer by email."""
        return "c1"

    def list_open_orders(customer_id: str) -> str:
        """List open orders for a customer ID."""
        return "[]"

    crm = [
        lb.ToolSpec.from_function(find_customer).deferred(namespace="crm"),
        lb.ToolSpec.from_function(list_open_orders).deferred(namespace="crm"),
    ]
    tools = [catalog()[0], crm[0], catalog()[1], crm[1]]
    search = lb.ToolSearch(namespaces={"crm": "CRM tools for customers and orders."})
    body = body_for("openai-responses", [*tools, search])
    kinds = [(t["type"], t.get("name")) for t in body["tools"]]
    assert kinds == [("function", "get_weather"), ("namespace", "crm"),
                     ("function", "get_exchange_rate"), ("tool_search", None)]  # fmt: skip
    space = body["tools"][1]
    assert space["description"] == "CRM tools for customers and orders."
    assert [(t["name"], t["defer_loading"]) for t in space["tools"]] == [
        ("find_customer", True),
        ("list_open_orders", True),
    ]
    check_body("responses", body)
    plain = body_for("openai-responses", [*crm, lb.ToolSearch()])["tools"][0]
    assert plain["description"] == "Tools: find_customer, list_open_orders."
    # Anthropic has no namespaces: the tools go as they are
    flat = body_for("anthropic", [*crm, lb.ToolSearch()])["tools"]
    assert [t["name"] for t in flat[:2]] == ["find_customer", "list_open_orders"]
    check_body("anthropic", body_for("anthropic", [*crm, lb.ToolSearch()]))
    with pytest.raises(lb.UsageError):
        crm[0].deferred(namespace="no spaces")


def test_a_client_answer_keeps_namespaces() -> None:
    from llmbridge.providers.openai_responses.tool_search import answer_item

    def find_customer(email: str) -> str:
        """Find a customer by email."""
        return "c1"

    found = [lb.ToolSpec.from_function(find_customer).deferred(namespace="crm"), catalog()[1]]
    call = lb.ToolSearchCall(id="call_1", query="customer", execution="client")
    item = answer_item(call, found, {"crm": "CRM tools."})
    assert [t["type"] for t in item["tools"]] == ["namespace", "function"]
    assert item["tools"][0]["tools"][0]["name"] == "find_customer"
    assert "defer_loading" not in item["tools"][0]["tools"][0]
    history = [*USER, lb.ChatMessage(role="tool", content=[lb.RawPart(
        provider="openai-responses", data=item)])]  # fmt: skip
    check_body("responses", body_for("openai-responses", [*found, lb.ToolSearch()], history))
