"""Real tool-search recordings (``../shared/corpus``, read at test time, skipped when absent):
OpenAI and Azure Responses (server and client ``tool_search``) and Anthropic (BM25, deferred
tools). Every recording decodes; its ``ToolSearchCall`` views are what the SDK-typed output
items (Responses) or the recorded blocks (Anthropic) say; the deferred tools the model then
calls are ordinary tool calls; the follow-up request built from the response is what the
SDK's request types accept; and our encoder builds the tools pydantic-ai's apps sent."""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest
from pydantic import TypeAdapter

import llmbridge as lb
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.anthropic.decode import AnthropicDecoder
from llmbridge.providers.openai_responses.decode import ResponsesDecoder
from llmbridge.response import accumulate
from llmbridge.testing import assert_split_invariant, decode_collect
from tests import corpus
from tests.corpus import CORPUS, params
from tests.providers.hosted_corpus import body_of, payloads, recorded_request, skip_without_corpus
from tests.sdk_requests import check_body

pytestmark = skip_without_corpus


def _tagged(prefixes: tuple[str, ...]) -> list[str]:
    """Manifest entries of tool search (by tag or name), for ``prefixes`` of categories."""
    if not corpus.present():
        return []
    tags = {"item:tool_search_call", "item:tool_search_output", "block:tool_search_tool_result"}
    names: list[str] = []
    for entry in corpus.manifest():
        name = entry["file"]
        if not name.startswith(prefixes):
            continue
        if tags & set(entry.get("contains", ())) or "tool-search" in name or "tool_search" in name:
            names.append(name)
    return names


RESPONSES = _tagged(("B_openai/", "B_azure/"))
ANTHROPIC = _tagged(("C_anthropic/",))


def provider(name: str) -> Any:
    return create_provider(name, ProviderConfig.from_mapping({"api_key": "k"}))


def test_the_corpus_has_what_these_tests_expect() -> None:
    assert len(RESPONSES) >= 10 and len(ANTHROPIC) >= 4


# -- OpenAI / Azure Responses -----------------------------------------------------------------
responses = pytest.importorskip("openai.types.responses")


def _first_output(body: bytes) -> list[Any]:
    """The SDK-typed output items of the first response in the recording."""
    final = next(p for p in payloads(body) if p["type"] == "response.completed")
    adapter = TypeAdapter(list[responses.ResponseOutputItem])
    return list(adapter.validate_python(final["response"]["output"]))


@pytest.mark.parametrize("name", params(RESPONSES))
def test_responses_searches_are_the_sdks_items(name: str) -> None:
    body = body_of(name)
    events, error = decode_collect(ResponsesDecoder(), [body])
    assert error is None
    resp = accumulate(events, provider="openai-responses")
    output = _first_output(body)
    calls = [i for i in output if i.type == "tool_search_call"]
    results = [i for i in output if i.type == "tool_search_output"]
    assert [(s.id, s.execution, s.arguments) for s in resp.tool_searches] == [
        (c.call_id or c.id, c.execution, c.arguments) for c in calls
    ]
    if results:  # server searches: their results fold into the searches they answer
        assert [s.tools for s in resp.tool_searches] == [[t.name for t in r.tools] for r in results]
    else:  # a client search waits for the app
        assert all(s.tools is None and s.execution == "client" for s in resp.tool_searches)
    # the deferred tools the model calls are ordinary tool calls
    functions = [i for i in output if i.type == "function_call"]
    assert [(c.id, c.name) for c in resp.tool_calls] == [(f.call_id, f.name) for f in functions]
    # and the items stay in the message, verbatim, in order
    raw = [p.data["type"] for p in resp.message.content if isinstance(p, lb.RawPart)]
    assert raw == [i.type for i in output if i.type.startswith("tool_search")]


@pytest.mark.parametrize("name", params(RESPONSES))
def test_responses_follow_up_is_sdk_typed(name: str) -> None:
    events, _ = decode_collect(ResponsesDecoder(), [body_of(name)])
    resp = accumulate(events, provider="openai-responses")
    history = [lb.ChatMessage.user("What is the weather in San Francisco?"), resp.message]
    history += [lb.ChatMessage.tool_result(c.id, "64F, partly cloudy") for c in resp.tool_calls]
    tools = [lb.ToolSpec(name=c.name, description="d", defer_loading=True) for c in resp.tool_calls]
    client = any(s.execution == "client" for s in resp.tool_searches)
    req = lb.ChatRequest(
        model="gpt-5.4",
        messages=history,
        tools=tools,
        hosted_tools=[lb.ToolSearch(execution="client" if client else "server")],
    )
    body = provider("openai-responses").build_request(req).json
    # the turn goes back in order: its raw items verbatim, its calls with their namespace
    turn = []
    for part in resp.message.content:
        if isinstance(part, lb.RawPart):
            turn.append(part.data)
        elif isinstance(part, lb.ToolCallPart):
            turn.append(("function_call", part))
        elif isinstance(part, lb.TextPart):
            turn.append(("message", part))
    sent = body["input"][1 : 1 + len(turn)]
    for item, want in zip(sent, turn, strict=True):
        if isinstance(want, dict):
            assert item == want
        else:
            assert item["type"] == want[0]
            if want[0] == "function_call":
                namespace = (want[1].provider_data or {}).get("namespace")
                assert item.get("namespace") == namespace
    check_body("responses", body)


@pytest.mark.parametrize("name", params(RESPONSES[:3]))
def test_responses_views_do_not_depend_on_chunking(name: str) -> None:
    events, error = assert_split_invariant(ResponsesDecoder, body_of(name), max_splits=200)
    assert error is None
    assert any(isinstance(e, lb.ToolSearchCall) for e in events) or "i1" in name or "i2" in name


def _spec(tool: dict[str, Any]) -> lb.ToolSpec:
    return lb.ToolSpec(
        name=tool["name"],
        description=tool.get("description", ""),
        parameters=tool["parameters"],
        strict=tool.get("strict"),
        defer_loading=tool.get("defer_loading", False),
    )


def test_responses_native_request_is_what_we_encode() -> None:
    rec = recorded_request("B_openai/test_openai_native_tool_search_streaming__i1")
    functions = [_spec(t) for t in rec["tools"] if t["type"] == "function"]
    req = lb.ChatRequest(
        model="gpt-5.4", messages=[lb.ChatMessage.user("x")], tools=functions,
        hosted_tools=[lb.ToolSearch()],
    )  # fmt: skip
    ours = provider("openai-responses").build_request(req).json["tools"]
    key = functools.partial(json.dumps, sort_keys=True)
    assert sorted(map(key, ours)) == sorted(map(key, rec["tools"]))


@pytest.mark.parametrize(
    "stem",
    [
        "B_openai/test_openai_client_tool_search_streaming__i0",
        "B_openai/test_openai_client_tool_search_streaming__i1__e00b826",
    ],
)
def test_responses_client_request_is_what_we_encode(stem: str) -> None:
    """pydantic-ai's own description and parameters go through ``description`` and
    ``provider_options``; the deferred functions are ours as they are."""
    rec = recorded_request(stem)
    theirs = next(t for t in rec["tools"] if t["type"] == "tool_search")
    search = lb.ToolSearch(
        execution="client",
        description=theirs["description"],
        provider_options={"openai-responses": {"parameters": theirs["parameters"]}},
    )
    functions = [_spec(t) for t in rec["tools"] if t["type"] == "function"]
    req = lb.ChatRequest(model="gpt-5.4", messages=[lb.ChatMessage.user("x")], tools=functions,
                         hosted_tools=[search])  # fmt: skip
    ours = provider("openai-responses").build_request(req).json["tools"]
    key = functools.partial(json.dumps, sort_keys=True)
    assert sorted(map(key, ours)) == sorted(map(key, rec["tools"]))


# -- Anthropic ----------------------------------------------------------------------------------
def _blocks(body: bytes) -> list[dict[str, Any]]:
    return [p["content_block"] for p in payloads(body) if p["type"] == "content_block_start"]


def _tool_inputs(body: bytes) -> list[Any]:
    """The parsed input of each ``tool_use`` block, from its ``input_json_delta``s."""
    open_: dict[int, list[str]] = {}
    done: list[Any] = []
    for p in payloads(body):
        if p["type"] == "content_block_start" and p["content_block"]["type"] == "tool_use":
            open_[p["index"]] = []
        elif p["type"] == "content_block_delta" and p["index"] in open_:
            open_[p["index"]].append(p["delta"].get("partial_json", ""))
        elif p["type"] == "content_block_stop" and p["index"] in open_:
            done.append(json.loads("".join(open_.pop(p["index"])) or "{}"))
    return done


@pytest.mark.parametrize("name", params(ANTHROPIC))
def test_anthropic_searches_are_the_recorded_blocks(name: str) -> None:
    body = body_of(name)
    events, error = decode_collect(AnthropicDecoder(provider="anthropic"), [body])
    assert error is None
    resp = accumulate(events, provider="anthropic")
    blocks = _blocks(body)
    uses = [b for b in blocks if b["type"] == "server_tool_use"]
    results = {b["tool_use_id"]: b for b in blocks if b["type"] == "tool_search_tool_result"}
    expected_file = CORPUS / name.replace(".sse", ".expected.json")
    sdk = json.loads(expected_file.read_text()) if expected_file.exists() else None
    if sdk is not None:  # what the SDK accumulated: the searches' inputs
        server = [c for c in sdk["tool_calls"] if c.get("server_side")]
        assert [(s.id, s.arguments) for s in resp.tool_searches] == [
            (c["id"], c["arguments"]) for c in server
        ]
        app = [c for c in sdk["tool_calls"] if not c.get("server_side")]
        assert [(c.id, c.name) for c in resp.tool_calls] == [(c["id"], c["name"]) for c in app]
    # the app's calls carry the input the stream sent (the SDK loses it across the messages
    # of a multi-turn recording)
    assert [c.arguments for c in resp.tool_calls] == _tool_inputs(body)
    assert [s.id for s in resp.tool_searches] == [u["id"] for u in uses]
    for search in resp.tool_searches:
        refs = results[search.id]["content"]["tool_references"]
        assert search.tools == [r["tool_name"] for r in refs]
        assert search.query and search.execution == "server"


@pytest.mark.parametrize("name", params(ANTHROPIC))
def test_anthropic_follow_up_is_sdk_typed(name: str) -> None:
    events, _ = decode_collect(AnthropicDecoder(provider="anthropic"), [body_of(name)])
    resp = accumulate(events, provider="anthropic")
    history = [lb.ChatMessage.user("What is the USD to EUR exchange rate?"), resp.message]
    history += [lb.ChatMessage.tool_result(c.id, "1 USD = 0.92 EUR") for c in resp.tool_calls]
    tools = [lb.ToolSpec(name=c.name, description="d", defer_loading=True) for c in resp.tool_calls]
    req = lb.ChatRequest(
        model="claude-sonnet-4-6", messages=history, tools=tools, hosted_tools=[lb.ToolSearch()]
    )
    body = provider("anthropic").build_request(req).json
    sent = [b["type"] for b in body["messages"][1]["content"]]
    kept = [p.data["type"] for p in resp.message.content if isinstance(p, lb.RawPart)]
    assert [t for t in sent if t not in ("text", "tool_use")] == kept
    check_body("anthropic", body)


def test_anthropic_round_trip_is_what_pydantic_ai_sent() -> None:
    """The assistant turn we send back after the recorded search equals the one pydantic-ai
    sent (the ``caller`` it leaves out aside), and so do the tools."""
    events, _ = decode_collect(
        AnthropicDecoder(provider="anthropic"),
        [body_of("C_anthropic/test_anthropic_native_tool_search_streaming__i0.sse")],
    )
    resp = accumulate(events, provider="anthropic")
    rec = recorded_request("C_anthropic/test_anthropic_native_tool_search_streaming__i1")
    functions = [
        lb.ToolSpec(
            name=t["name"], description=t["description"], parameters=t["input_schema"],
            defer_loading=True,
        )
        for t in rec["tools"] if "input_schema" in t
    ]  # fmt: skip
    (call,) = resp.tool_calls
    history = [
        lb.ChatMessage.user("What is the current USD to EUR exchange rate?"),
        resp.message,
        lb.ChatMessage.tool_result(call.id, "1 USD = 0.92 EUR"),
    ]
    req = lb.ChatRequest(model="claude-sonnet-4-6", messages=history, tools=functions,
                         hosted_tools=[lb.ToolSearch()], tool_choice=lb.ToolChoice())  # fmt: skip
    body = provider("anthropic").build_request(req).json
    assert body["tools"] == rec["tools"]
    ours = [{k: v for k, v in b.items() if k != "caller"} for b in body["messages"][1]["content"]]
    assert ours == rec["messages"][1]["content"]
    check_body("anthropic", body)


@pytest.mark.parametrize("name", params([n for n in ANTHROPIC if "__i1" not in n][:2]))
def test_anthropic_views_do_not_depend_on_chunking(name: str) -> None:
    events, error = assert_split_invariant(
        lambda: AnthropicDecoder(provider="anthropic"), body_of(name), max_splits=200
    )
    assert error is None
    assert any(isinstance(e, lb.ToolSearchCall) for e in events)


def test_azure_sends_its_own_items_back() -> None:
    """A Responses preset tags what its responses hold with its own name (``azure-responses``):
    its search items (and reasoning) still go back to it."""
    events, _ = decode_collect(
        ResponsesDecoder(), [body_of("B_azure/azure-tool-search.1__335ed03.sse")]
    )
    resp = accumulate(events, provider="azure-responses")
    assert {p.provider for p in resp.message.content if isinstance(p, lb.RawPart)} == {
        "azure-responses"
    }
    azure = create_provider(
        "azure-responses",
        ProviderConfig.from_mapping(
            {"api_key": "k", "base_url": "https://r.openai.azure.com/openai/v1",
             "hosted_tools": ["tool_search"]}
        ),
    )  # fmt: skip
    (call,) = resp.tool_calls
    history = [
        lb.ChatMessage.user("What is the weather in San Francisco?"),
        resp.message,
        lb.ChatMessage.tool_result(call.id, "64F"),
    ]
    req = lb.ChatRequest(
        model="gpt-5.4",
        messages=history,
        tools=[lb.ToolSpec(name="get_weather", description="d", defer_loading=True)],
        hosted_tools=[lb.ToolSearch()],
    )
    body = azure.build_request(req).json
    assert [i["type"] for i in body["input"]] == [
        "message", "tool_search_call", "tool_search_output", "function_call",
        "function_call_output",
    ]  # fmt: skip
    check_body("responses", body)
    assert not any("not sent" in w or "left out" in w for w in list(azure.prepare(req).warnings))
