"""Hosted tool specs → each provider's request body, checked against the SDKs' request types.

Every body built here goes through ``sdk_requests.check_body`` (the SDK's streaming create
params; Anthropic's MCP connector through the beta params, which type ``mcp_servers`` and
``mcp_toolset``; more in ``anthropic/test_anthropic_mcp_connector.py``), so a
tool type, version string or field the SDK does not know fails the test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

import llmbridge as lb
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.anthropic.hosted import MCP_BETA
from tests.sdk_requests import _plain, check_body

USER = [lb.ChatMessage.user("Population of Lisbon?")]
FN = lb.ToolSpec(name="lookup", description="Look a thing up.")
CONFIG = {
    "vertex": {"project": "p", "location": "us-central1", "access_token": "t"},
}


def _request(provider: str, model: str, *tools: Any, messages: Any = None) -> Any:
    config = ProviderConfig.from_mapping({"api_key": "k", **CONFIG.get(provider, {})})
    p = create_provider(provider, config)
    req = lb.ChatRequest(
        model=model, messages=messages or USER, tools=[FN], hosted_tools=list(tools)
    )
    return p, req, p.build_request(req)


# -- OpenAI Responses ---------------------------------------------------------------------
def test_responses_maps_every_spec_it_runs() -> None:
    p, req, built = _request(
        "openai-responses",
        "gpt-5",
        lb.WebSearch(
            allowed_domains=["wikipedia.org"],
            user_location=lb.UserLocation(city="Lisbon", country="PT"),
            context_size="high",
        ),
        lb.CodeExecution(file_ids=["file_1"]),
        lb.FileSearch(vector_store_ids=["vs_1"], max_results=4),
        lb.ImageGeneration(size="1024x1024", quality="low", output_format="webp"),
        lb.HostedMCP(
            "https://mcp.example.com/mcp",
            name="docs",
            allowed_tools=["search"],
            approval={"never": ["search"]},
            headers={"Authorization": "Bearer t0k"},
            description="Docs",
        ),
    )
    body = built.json
    assert body["tools"][0]["type"] == "function"
    assert body["tools"][1:] == [
        {
            "type": "web_search",
            "filters": {"allowed_domains": ["wikipedia.org"]},
            "user_location": {"type": "approximate", "city": "Lisbon", "country": "PT"},
            "search_context_size": "high",
        },
        {"type": "code_interpreter", "container": {"type": "auto", "file_ids": ["file_1"]}},
        {"type": "file_search", "vector_store_ids": ["vs_1"], "max_num_results": 4},
        {
            "type": "image_generation",
            "size": "1024x1024",
            "quality": "low",
            "output_format": "webp",
        },
        {
            "type": "mcp",
            "server_label": "docs",
            "server_url": "https://mcp.example.com/mcp",
            "allowed_tools": ["search"],
            "require_approval": {"never": {"tool_names": ["search"]}},
            "headers": {"Authorization": "Bearer t0k"},
            "server_description": "Docs",
        },
    ]
    assert body["include"] == ["web_search_call.action.sources", "code_interpreter_call.outputs"]
    check_body("responses", body)
    assert list(p.prepare(req).warnings) == []


def test_responses_refuses_blocked_domains_and_warns_on_max_uses() -> None:
    with pytest.raises(lb.ConfigurationError, match="no blocked-domains filter"):
        _request("openai-responses", "gpt-5", lb.WebSearch(blocked_domains=["x.com"]))
    p, req, built = _request("openai-responses", "gpt-5", lb.WebSearch(max_uses=3))
    assert built.json["tools"][1] == {"type": "web_search"}
    assert any("max_uses=3" in w for w in list(p.prepare(req).warnings))


def test_responses_extra_include_and_tools_still_join() -> None:
    config = ProviderConfig.from_mapping({"api_key": "k"})
    p = create_provider("openai-responses", config)
    req = lb.ChatRequest(
        model="gpt-5",
        messages=USER,
        hosted_tools=[lb.CodeExecution()],
        extra={"include": ["code_interpreter_call.outputs", "message.output_text.logprobs"],
               "tools": [{"type": "web_search_preview"}]},
    )  # fmt: skip
    body = p.build_request(req).json
    assert body["include"] == ["code_interpreter_call.outputs", "message.output_text.logprobs"]
    assert [t["type"] for t in body["tools"]] == ["code_interpreter", "web_search_preview"]
    check_body("responses", body)


def test_provider_options_are_merged_last() -> None:
    tool = lb.WebSearch(
        provider_options={
            "openai-responses": {"type": "web_search_2025_08_26", "external_web_access": False},
            "anthropic": {"type": "web_search_20260209"},
        }
    )
    _, _, built = _request("openai-responses", "gpt-5", tool)
    assert built.json["tools"][1] == {"type": "web_search_2025_08_26", "external_web_access": False}
    check_body("responses", built.json)
    _, _, built = _request("anthropic", "claude-opus-4-6", tool)
    assert built.json["tools"][1] == {"type": "web_search_20260209", "name": "web_search"}
    check_body("anthropic", built.json)


def test_an_approval_response_follows_the_request_it_answers() -> None:
    request_item = {
        "type": "mcp_approval_request",
        "id": "mcpr_1",
        "server_label": "docs",
        "name": "search",
        "arguments": '{"q":"x"}',
    }
    history = [
        *USER,
        lb.ChatMessage(role="assistant", content=[lb.RawPart(provider="openai-responses",
                                                              data=request_item)]),
        lb.ChatMessage.user(lb.ApprovalResponse("mcpr_1", approve=False, reason="not now")),
    ]  # fmt: skip
    _, _, built = _request(
        "openai-responses", "gpt-5", lb.HostedMCP("https://m.example/mcp"), messages=history
    )
    assert built.json["input"][1:] == [
        request_item,
        {
            "type": "mcp_approval_response",
            "approval_request_id": "mcpr_1",
            "approve": False,
            "reason": "not now",
        },
    ]
    check_body("responses", built.json)


# -- Anthropic ----------------------------------------------------------------------------
def test_anthropic_maps_server_tools_with_their_dated_versions() -> None:
    p, req, built = _request(
        "anthropic",
        "claude-sonnet-4-5",
        lb.WebSearch(
            blocked_domains=["spam.example"],
            max_uses=3,
            user_location=lb.UserLocation(city="Lisbon", country="PT", timezone="Europe/Lisbon"),
            context_size="low",
        ),
        lb.WebFetch(allowed_domains=["docs.python.org"], max_uses=2),
        lb.CodeExecution(),
    )
    body = built.json
    assert body["tools"][1:] == [
        {
            "type": "web_search_20250305",
            "name": "web_search",
            "blocked_domains": ["spam.example"],
            "max_uses": 3,
            "user_location": {
                "type": "approximate",
                "city": "Lisbon",
                "country": "PT",
                "timezone": "Europe/Lisbon",
            },
        },
        {
            "type": "web_fetch_20250910",
            "name": "web_fetch",
            "allowed_domains": ["docs.python.org"],
            "max_uses": 2,
        },
        {"type": "code_execution_20250825", "name": "code_execution"},
    ]
    assert "anthropic-beta" not in built.headers  # GA tool types: no beta flag
    check_body("anthropic", body)
    assert any("context_size" in w for w in list(p.prepare(req).warnings))


def _check_beta_body(body: dict[str, Any]) -> None:
    params = pytest.importorskip("anthropic.types.beta.message_create_params")
    adapter = TypeAdapter(params.MessageCreateParamsStreaming)
    assert _plain(adapter.validate_python(body)) == body


def test_anthropic_mcp_connector_with_its_beta_flag() -> None:
    mcp = lb.HostedMCP(
        "https://mcp.deepwiki.com/mcp",
        name="deepwiki",
        allowed_tools=["ask_question"],
        approval="never",
        headers={"Authorization": "Bearer t0k"},
    )
    _, _, built = _request("anthropic", "claude-sonnet-4-5", mcp)
    assert built.json["mcp_servers"] == [
        {
            "type": "url",
            "url": "https://mcp.deepwiki.com/mcp",
            "name": "deepwiki",
            "authorization_token": "t0k",
        }
    ]
    assert built.json["tools"][1:] == [  # after the app's tool: the server's toolset
        {
            "type": "mcp_toolset",
            "mcp_server_name": "deepwiki",
            "default_config": {"enabled": False},
            "configs": {"ask_question": {"enabled": True}},
        }
    ]
    assert built.headers["anthropic-beta"] == MCP_BETA == "mcp-client-2025-11-20"
    _check_beta_body(built.json)


@pytest.mark.parametrize(
    ("tool", "why"),
    [
        (lb.HostedMCP("https://m.example"), "approval='never'"),
        (lb.HostedMCP("https://m.example", approval="never", headers={"X-Key": "1"}), "X-Key"),
        (lb.CodeExecution(file_ids=["f"]), "container_upload"),
        (lb.FileSearch(vector_store_ids=["v"]), "Providers that can run it: openai-responses"),
    ],
)
def test_anthropic_refuses_what_it_cannot_honour(tool: Any, why: str) -> None:
    with pytest.raises(lb.ConfigurationError, match=why.replace("(", r"\(").replace(")", r"\)")):
        _request("anthropic", "claude-sonnet-4-5", tool)


def test_anthropic_count_tokens_carries_the_beta_too() -> None:
    config = ProviderConfig.from_mapping({"api_key": "k", "betas": "files-api-2025-04-14"})
    p = create_provider("anthropic", config)
    req = lb.ChatRequest(
        model="claude-sonnet-4-5",
        messages=USER,
        hosted_tools=[lb.HostedMCP("https://m.example", approval="never")],
    )
    assert (
        p.count_tokens_request(req).headers["anthropic-beta"] == f"files-api-2025-04-14,{MCP_BETA}"
    )


# -- Gemini / Vertex ----------------------------------------------------------------------
@pytest.mark.parametrize("provider", ["gemini", "vertex"])
def test_gemini_maps_each_spec_to_its_own_tool_entry(provider: str) -> None:
    vertex = provider == "vertex"
    blocked = ["spam.example"] if vertex else None  # a Vertex-only field (test below)
    tools: list[Any] = [
        lb.WebSearch(blocked_domains=blocked, max_uses=2),
        lb.WebFetch(),
        lb.CodeExecution(provider_options={"vertex": {}, "gemini": {}}),
    ]
    if provider == "gemini":
        tools.append(lb.FileSearch(vector_store_ids=["fileSearchStores/s1"], max_results=3))
    p, req, built = _request(provider, "gemini-2.5-flash", *tools)
    body = built.json
    assert body["tools"][0].keys() == {"functionDeclarations"}
    expected = [
        {"googleSearch": {"excludeDomains": ["spam.example"]} if vertex else {}},
        {"urlContext": {}},
        {"codeExecution": {}},
    ]
    if provider == "gemini":
        expected.append(
            {"fileSearch": {"fileSearchStoreNames": ["fileSearchStores/s1"], "topK": 3}}
        )
    assert body["tools"][1:] == expected
    check_body("gemini", body)
    assert any("max_uses" in w for w in list(p.prepare(req).warnings))


def test_blocked_domains_go_to_vertex_only() -> None:
    """``GoogleSearch.exclude_domains`` is a Vertex AI field: google-genai's own Gemini
    Developer API converter refuses it, so the Gemini API is never sent ``excludeDomains``."""
    from google.genai.models import _GoogleSearch_to_mldev

    with pytest.raises(ValueError, match="not in Gemini Developer API"):
        _GoogleSearch_to_mldev({"exclude_domains": ["spam.example"]})
    search = lb.WebSearch(blocked_domains=["spam.example"])
    with pytest.raises(lb.ConfigurationError, match="blocked_domains"):
        _request("gemini", "gemini-2.5-flash", search)
    _, _, built = _request("vertex", "gemini-2.5-flash", search)
    assert built.json["tools"][1:] == [{"googleSearch": {"excludeDomains": ["spam.example"]}}]


@pytest.mark.parametrize(
    ("tool", "why"),
    [
        (lb.WebSearch(allowed_domains=["a.com"]), "no allowed-domains filter"),
        (lb.WebFetch(blocked_domains=["a.com"]), "no domain filters"),
        (lb.CodeExecution(file_ids=["f"]), "takes no files"),
    ],
)
def test_gemini_refuses_what_it_cannot_honour(tool: Any, why: str) -> None:
    with pytest.raises(lb.ConfigurationError, match=why):
        _request("gemini", "gemini-2.5-flash", tool)


# -- the hand-built fixtures' request bodies ------------------------------------------------
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
_API = {"openai-responses": "responses", "anthropic": "anthropic", "gemini": "gemini"}
HOSTED_FIXTURES = sorted(FIXTURES.glob("*/hosted_*/request.json"))


@pytest.mark.parametrize(
    "path",
    HOSTED_FIXTURES,
    ids=[f"{p.parent.parent.name}/{p.parent.name}" for p in HOSTED_FIXTURES],
)
def test_hosted_fixture_requests_are_sdk_valid(path: Path) -> None:
    body = json.loads(path.read_text())["body"]
    check_body(_API[path.parent.parent.name], body)


def test_there_are_hosted_fixtures_for_each_wire() -> None:
    assert {p.parent.parent.name for p in HOSTED_FIXTURES} == set(_API)


def test_anthropic_count_tokens_body_keeps_the_mcp_servers() -> None:
    p = create_provider("anthropic", ProviderConfig.from_mapping({"api_key": "k"}))
    mcp = lb.HostedMCP("https://m.example/mcp", name="m", approval="never")
    req = lb.ChatRequest(
        model="claude-sonnet-4-5", messages=USER, hosted_tools=[mcp, lb.WebSearch()]
    )
    body = p.count_tokens_request(req).json
    assert body["mcp_servers"] == [{"type": "url", "url": "https://m.example/mcp", "name": "m"}]
    assert body["tools"] == [
        {"type": "mcp_toolset", "mcp_server_name": "m"},
        {"type": "web_search_20250305", "name": "web_search"},
    ]
    params = pytest.importorskip("anthropic.types.beta.message_count_tokens_params")
    assert _plain(TypeAdapter(params.MessageCountTokensParams).validate_python(body)) == body


@pytest.mark.anyio
async def test_hosted_specs_still_go_natively_when_function_tools_use_the_prompt() -> None:
    """tool_mode="prompt" writes the app's tools into the prompt; the provider-run ones are
    still the API's own tools (the provider runs them, not the model's tool calling)."""
    import httpx

    sent: list[dict[str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(400, json={"type": "error", "error": {"type": "invalid_request_error",
                                                                       "message": "stop here"}})  # fmt: skip

    http = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    async with lb.Client(http_client=http, providers={"anthropic": {"api_key": "k"}}) as client:
        with pytest.raises(lb.APIError):
            await client.complete("anthropic:claude-sonnet-4-5", USER, tools=[FN, lb.WebSearch()],
                                  tool_mode="prompt")  # fmt: skip
    (body,) = sent
    assert body["tools"] == [{"type": "web_search_20250305", "name": "web_search"}]
    assert "lookup" in json.dumps(body["system"])
