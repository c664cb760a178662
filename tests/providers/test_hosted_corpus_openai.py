"""Real recordings of OpenAI-side provider-run tools (``../shared/corpus``, read at test time,
skipped when absent): Responses citations vs the ``url_citation`` annotations of the SDK-typed
final output, approval requests vs its ``mcp_approval_request`` items, images vs
``image_generation_call`` results, code output vs ``code_interpreter_call`` logs; OpenRouter's
chat annotations vs the SDK's ``Annotation``; recorded requests vs our encoding.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import TypeAdapter

import llmbridge as lb
from llmbridge.events import ApprovalRequest
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.openai_responses.decode import ResponsesDecoder
from llmbridge.response import accumulate
from llmbridge.testing import assert_split_invariant, decode_collect
from tests.providers.hosted_corpus import (
    body_of,
    of_type,
    payloads,
    recorded_request,
    skip_without_corpus,
)
from tests.sdk_requests import check_body

pytestmark = skip_without_corpus


# -- OpenAI Responses ---------------------------------------------------------------------
responses = pytest.importorskip("openai.types.responses")


def _responses(name: str) -> tuple[list[lb.StreamEvent], Any]:
    body = body_of(name)
    events, error = decode_collect(ResponsesDecoder(), [body])
    assert error is None
    final = next(p for p in payloads(body) if p["type"] == "response.completed")
    # the output items only: newer SDKs require usage fields older recordings lack
    output = TypeAdapter(list[responses.ResponseOutputItem]).validate_python(
        final["response"]["output"]
    )
    return events, SimpleNamespace(output=output)


WEB_SEARCH = [
    "B_openai/openai-web-search-tool.1__fa64d70.sse",
    "B_openai/test_openai_responses_model_web_search_tool_stream__i0__1a22d68.sse",
    "B_openai/test_openai_responses_model_web_search_tool_stream__i0__c0fc35c.sse",
    "B_azure/azure-web-search-preview-tool.1.sse",
]


@pytest.mark.parametrize("name", WEB_SEARCH)
def test_responses_citations_are_the_sdks_url_annotations(name: str) -> None:
    events, sdk = _responses(name)
    expected = [
        lb.Citation(a.url, a.title, part.text[a.start_index : a.end_index])
        for item in sdk.output
        if item.type == "message"
        for part in item.content
        if part.type == "output_text"
        for a in part.annotations
        if a.type == "url_citation"
    ]
    assert of_type(events, lb.Citation) == expected
    assert accumulate(events).citations == expected
    if name.startswith("B_openai/openai-web-search"):
        assert len(expected) == 5  # the recording's five annotations, cited text included
        assert all(c.cited_text for c in expected)


APPROVALS = [f"B_openai/openai-mcp-tool-approval.{i}.sse" for i in (1, 2, 3, 4)]


@pytest.mark.parametrize("name", APPROVALS)
def test_responses_approval_requests_are_the_sdks_items(name: str) -> None:
    events, sdk = _responses(name)
    expected = [
        ApprovalRequest(item.id, item.server_label, item.name, json.loads(item.arguments))
        for item in sdk.output
        if item.type == "mcp_approval_request"
    ]
    assert of_type(events, ApprovalRequest) == expected
    resp = accumulate(events, provider="openai-responses")
    assert resp.approval_requests == expected
    if name.endswith(".1.sse"):
        assert [(a.server, a.tool) for a in expected] == [("zip1", "create_short_url")]
        assert expected[0].arguments["url"] == "https://ai-sdk.dev/"
    # the raw item stays in the message, so the answer can follow it next turn
    raw = [p.data["id"] for p in resp.message.content if isinstance(p, lb.RawPart)]
    assert all(a.id in raw for a in expected)


def test_responses_approval_round_trip_builds_an_sdk_valid_next_request() -> None:

    events, _ = _responses(APPROVALS[0])
    resp = accumulate(events, provider="openai-responses")
    (ask,) = resp.approval_requests
    history = [
        lb.ChatMessage.user("Shorten https://ai-sdk.dev/"),
        resp.message,
        lb.ChatMessage.user(lb.ApprovalResponse(ask.id, approve=True)),
    ]
    p = create_provider("openai-responses", ProviderConfig.from_mapping({"api_key": "k"}))
    req = lb.ChatRequest(
        model="gpt-5",
        messages=history,
        hosted_tools=[lb.HostedMCP("https://zip1.io/mcp", name="zip1")],
    )
    body = p.build_request(req).json
    kinds = [i["type"] for i in body["input"]]
    assert kinds[-2:] == ["mcp_approval_request", "mcp_approval_response"]
    assert body["input"][-1] == {
        "type": "mcp_approval_response",
        "approval_request_id": ask.id,
        "approve": True,
    }
    check_body("responses", body)


def test_responses_generated_image_is_the_sdks_result() -> None:
    events, sdk = _responses("B_openai/openai-image-generation-tool.1.sse")
    calls = [i for i in sdk.output if i.type == "image_generation_call" and i.result]
    images = of_type(events, lb.GeneratedImage)
    assert [i.b64 for i in images] == [c.result for c in calls]
    assert images, "the recording holds a generated image"
    magic = {b"\x89PNG": "image/png", b"\xff\xd8\xff": "image/jpeg", b"RIFF": "image/webp"}
    data = images[0].data
    assert data is not None
    assert any(data.startswith(m) for m in magic)
    if images[0].media_type is not None:
        assert magic[next(m for m in magic if data.startswith(m))] == images[0].media_type


CODE_INTERPRETER = [
    "B_openai/test_openai_responses_code_execution_download_file_stream__i0__28b5c35.sse",
    "B_openai/test_openai_responses_code_execution_download_file_stream__i0__976c668.sse",
]


@pytest.mark.parametrize("name", CODE_INTERPRETER)
def test_responses_code_output_is_the_sdks_logs(name: str) -> None:
    events, sdk = _responses(name)
    expected = []
    for item in sdk.output:
        if item.type != "code_interpreter_call" or not item.outputs:
            continue
        logs = "".join(o.logs for o in item.outputs if o.type == "logs")
        files = [o.url for o in item.outputs if o.type == "image"]
        expected.append(lb.CodeOutput(stdout=logs, files=files, code=item.code))
    assert of_type(events, lb.CodeOutput) == expected


@pytest.mark.parametrize("name", [*WEB_SEARCH[:1], APPROVALS[0]])
def test_responses_typed_events_do_not_depend_on_chunking(name: str) -> None:
    events, error = assert_split_invariant(ResponsesDecoder, body_of(name), max_splits=300)
    assert error is None
    assert of_type(events, lb.Citation) or of_type(events, ApprovalRequest)


def test_responses_recorded_requests_match_our_encoding() -> None:
    """pydantic-ai's recorded tool entries are what our specs build (labels and secrets aside)."""
    p = create_provider("openai-responses", ProviderConfig.from_mapping({"api_key": "k"}))
    code = lb.ChatRequest(model="gpt-5", messages=[lb.ChatMessage.user("x")],
                          hosted_tools=[lb.CodeExecution()])  # fmt: skip
    body = p.build_request(code).json
    rec = recorded_request(
        "B_openai/test_openai_responses_code_execution_download_file_stream__i0__976c668"
    )
    assert body["tools"] == rec["tools"]
    assert set(body["include"]) <= set(rec["include"])
    files = lb.FileSearch(vector_store_ids=["vs_691f9bec0a288191b73aec4456ff43e8"])
    body = p.build_request(code.model_copy(update={"hosted_tools": [files]})).json
    rec = recorded_request(
        "B_openai/test_openai_responses_model_file_search_tool_stream__i3__eef4526"
    )
    assert body["tools"] == rec["tools"]
    mcp = lb.HostedMCP(
        "https://api.githubcopilot.com/mcp/",
        name="test_server",
        allowed_tools=["search_repositories", "list_commits"],
        approval="never",
        description="Content retrieval",
    )
    body = p.build_request(code.model_copy(update={"hosted_tools": [mcp]})).json
    rec = recorded_request(
        "B_openai/test_openai_responses_model_mcp_server_tool_stream__i0__1663899"
    )
    recorded = {k: v for k, v in rec["tools"][0].items() if k not in ("authorization", "headers")}
    assert body["tools"] == [recorded]


# -- OpenRouter (Chat Completions) --------------------------------------------------------
OPENROUTER = [
    "E_openrouter/test_openrouter_web_search_annotations_stream__i0.sse",
    "E_openrouter/test_openrouter_web_search_annotations_stream__i0__0e65a72.sse",
]


@pytest.mark.parametrize("name", OPENROUTER)
def test_openrouter_annotations_are_citations(name: str) -> None:
    from llmbridge.providers.openai.decode import ChatCompletionsDecoder

    chat = pytest.importorskip("openai.types.chat.chat_completion_message")
    body = body_of(name)
    events, error = decode_collect(ChatCompletionsDecoder(provider="openrouter"), [body])
    assert error is None
    expected = []
    for payload in payloads(body):
        for choice in payload.get("choices") or ():
            for note in (choice.get("delta") or {}).get("annotations") or ():
                sdk = chat.Annotation.model_validate(note).url_citation  # the SDK's reading
                expected.append(
                    lb.Citation(sdk.url, sdk.title or None, note["url_citation"].get("content"))
                )
    assert expected
    assert of_type(events, lb.Citation) == expected


def test_openrouter_recorded_request_matches_our_encoding() -> None:
    p = create_provider("openrouter", ProviderConfig.from_mapping({"api_key": "k"}))
    req = lb.ChatRequest(
        model="deepseek/deepseek-chat",
        messages=[lb.ChatMessage.user("x")],
        hosted_tools=[lb.WebSearch(max_uses=1, context_size="medium")],
    )
    rec = recorded_request("E_openrouter/test_openrouter_web_search_annotations_stream__i0")
    assert p.build_request(req).json["tools"] == rec["tools"]
