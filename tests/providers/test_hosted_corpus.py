"""Real recordings of provider-run tools (``../shared/corpus``, read at test time, skipped when
absent): the typed events llmbridge decodes agree with what the official SDKs read from the
same bytes, and the recorded requests agree with what our encoders build for the same specs.

* Responses: citations vs the ``url_citation`` annotations of the SDK-validated final response,
  approval requests vs its ``mcp_approval_request`` items, images vs ``image_generation_call``
  results, code output vs ``code_interpreter_call`` logs.
* Anthropic: citations vs the text blocks' web citations of the SDK's accumulated message,
  code output vs its code execution result blocks.
* Gemini: citations vs the SDK-parsed grounding metadata, code output vs
  ``codeExecutionResult`` parts, images vs ``inlineData`` parts.
"""

from __future__ import annotations

import base64
import json
from types import SimpleNamespace
from typing import Any

import orjson
import pytest
from pydantic import TypeAdapter

import llmbridge as lb
from llmbridge.events import ApprovalRequest
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.anthropic import AnthropicDecoder
from llmbridge.providers.gemini.decode import GeminiDecoder
from llmbridge.providers.openai_responses.decode import ResponsesDecoder
from llmbridge.response import accumulate
from llmbridge.testing import assert_split_invariant, decode_collect, iter_sse
from tests.corpus import CORPUS

pytestmark = pytest.mark.skipif(
    not (CORPUS / "manifest.json").exists(), reason="../shared/corpus is absent"
)


def _body(name: str) -> bytes:
    path = CORPUS / name
    if not path.exists():
        pytest.skip(f"{name} is not in the corpus")
    return path.read_bytes()


def _payloads(body: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(d) for _, d in iter_sse(body) if d and d != "[DONE]"]


def _of(events: list[lb.StreamEvent], kind: type) -> list[Any]:
    return [e for e in events if type(e) is kind]


# -- OpenAI Responses ---------------------------------------------------------------------
responses = pytest.importorskip("openai.types.responses")


def _responses(name: str) -> tuple[list[lb.StreamEvent], Any]:
    body = _body(name)
    events, error = decode_collect(ResponsesDecoder(), [body])
    assert error is None
    final = next(p for p in _payloads(body) if p["type"] == "response.completed")
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
    assert _of(events, lb.Citation) == expected
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
    assert _of(events, ApprovalRequest) == expected
    resp = accumulate(events, provider="openai-responses")
    assert resp.approval_requests == expected
    if name.endswith(".1.sse"):
        assert [(a.server, a.tool) for a in expected] == [("zip1", "create_short_url")]
        assert expected[0].arguments["url"] == "https://ai-sdk.dev/"
    # the raw item stays in the message, so the answer can follow it next turn
    raw = [p.data["id"] for p in resp.message.content if isinstance(p, lb.RawPart)]
    assert all(a.id in raw for a in expected)


def test_responses_approval_round_trip_builds_an_sdk_valid_next_request() -> None:
    from tests.sdk_requests import check_body

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
    images = _of(events, lb.GeneratedImage)
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
    assert _of(events, lb.CodeOutput) == expected


@pytest.mark.parametrize("name", [*WEB_SEARCH[:1], APPROVALS[0]])
def test_responses_typed_events_do_not_depend_on_chunking(name: str) -> None:
    events, error = assert_split_invariant(ResponsesDecoder, _body(name), max_splits=300)
    assert error is None
    assert _of(events, lb.Citation) or _of(events, ApprovalRequest)


def test_responses_recorded_requests_match_our_encoding() -> None:
    """pydantic-ai's recorded tool entries are what our specs build (labels and secrets aside)."""
    p = create_provider("openai-responses", ProviderConfig.from_mapping({"api_key": "k"}))
    code = lb.ChatRequest(model="gpt-5", messages=[lb.ChatMessage.user("x")],
                          hosted_tools=[lb.CodeExecution()])  # fmt: skip
    body = p.build_request(code).json
    rec = _request(
        "B_openai/test_openai_responses_code_execution_download_file_stream__i0__976c668"
    )
    assert body["tools"] == rec["tools"]
    assert set(body["include"]) <= set(rec["include"])
    files = lb.FileSearch(vector_store_ids=["vs_691f9bec0a288191b73aec4456ff43e8"])
    body = p.build_request(code.model_copy(update={"hosted_tools": [files]})).json
    rec = _request("B_openai/test_openai_responses_model_file_search_tool_stream__i3__eef4526")
    assert body["tools"] == rec["tools"]
    mcp = lb.HostedMCP(
        "https://api.githubcopilot.com/mcp/",
        name="test_server",
        allowed_tools=["search_repositories", "list_commits"],
        approval="never",
        description="Content retrieval",
    )
    body = p.build_request(code.model_copy(update={"hosted_tools": [mcp]})).json
    rec = _request("B_openai/test_openai_responses_model_mcp_server_tool_stream__i0__1663899")
    recorded = {k: v for k, v in rec["tools"][0].items() if k not in ("authorization", "headers")}
    assert body["tools"] == [recorded]


def _request(stem: str) -> dict[str, Any]:
    path = CORPUS / f"{stem}.request.json"
    if not path.exists():
        pytest.skip(f"{stem}.request.json is not in the corpus")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


# -- Anthropic ----------------------------------------------------------------------------
def _anthropic(name: str) -> tuple[list[lb.StreamEvent], Any]:
    streaming = pytest.importorskip("anthropic.lib.streaming._messages")
    body = _body(name)
    events, error = decode_collect(AnthropicDecoder(), [body])
    assert error is None
    snapshot, bufs = None, {}
    for event in _payloads(body):
        if event["type"] in ("ping", "error"):
            continue
        snapshot = streaming.accumulate_event(
            event=event, current_snapshot=snapshot, json_bufs=bufs
        )
    return events, snapshot


ANTHROPIC_SEARCH = [
    "C_anthropic/anthropic-web-search-tool.1.sse",
    "C_anthropic/anthropic-web-search-citation-replay.1__90f6589.sse",
    "C_anthropic/anthropic-web-search-with-tool.1__12ddb5f.sse",
    "C_anthropic/test_anthropic_web_search_tool_stream__i0__1a22d68.sse",
    "C_anthropic/test_anthropic_web_search_tool_stream__i0__111dda9.sse",
    "C_anthropic/test_web_search_tool_result_ordering__i0.sse",
]


@pytest.mark.parametrize("name", ANTHROPIC_SEARCH)
def test_anthropic_citations_are_the_sdks_web_citations(name: str) -> None:
    events, message = _anthropic(name)
    expected = [
        lb.Citation(c.url, c.title, c.cited_text)
        for block in message.content
        if block.type == "text"
        for c in block.citations or ()
        if c.type == "web_search_result_location"
    ]
    assert _of(events, lb.Citation) == expected
    if name == ANTHROPIC_SEARCH[0]:
        assert expected and all(c.url.startswith("http") and c.cited_text for c in expected)


ANTHROPIC_CODE = [
    "C_anthropic/anthropic-code-execution-20250825.2.sse",
    "C_anthropic/anthropic-code-execution-20250825.pptx-skill.sse",
    "C_anthropic/anthropic-code-execution-20260120-issue-18193__cd8937f.sse",
    "C_anthropic/test_anthropic_code_execution_tool_stream__i0.sse",
    "C_anthropic/test_anthropic_code_execution_tool_stream__i0__9f957e7.sse",
    "C_anthropic/test_anthropic_code_execution_tool_haiku_4_5_support__i0__783be6c.sse",
]


@pytest.mark.parametrize("name", ANTHROPIC_CODE)
def test_anthropic_code_output_is_the_sdks_result_blocks(name: str) -> None:
    events, message = _anthropic(name)
    expected = []
    for block in message.content:
        if block.type not in ("code_execution_tool_result", "bash_code_execution_tool_result"):
            continue
        result = block.content
        if getattr(result, "error_code", None) is not None:
            continue
        expected.append(
            lb.CodeOutput(
                stdout=result.stdout,
                stderr=result.stderr,
                exit_code=result.return_code,
                files=[f.file_id for f in result.content],
            )
        )
    assert _of(events, lb.CodeOutput) == expected
    assert expected, "each recording runs code"


ANTHROPIC_MCP = [
    "C_anthropic/anthropic-mcp.1.sse",
    "C_anthropic/test_anthropic_mcp_servers_stream__i0__d4a85e6.sse",
]


@pytest.mark.parametrize("name", ANTHROPIC_MCP)
def test_anthropic_mcp_blocks_stay_raw_and_ask_nothing(name: str) -> None:
    events, message = _anthropic(name)
    assert _of(events, ApprovalRequest) == []  # the connector never asks
    raw = [e.data["type"] for e in events if isinstance(e, lb.ProviderItem)]
    assert raw == [b.type for b in message.content if b.type.startswith("mcp_")]
    assert "mcp_tool_use" in raw


def test_anthropic_recorded_requests_match_our_encoding() -> None:
    p = create_provider("anthropic", ProviderConfig.from_mapping({"api_key": "k"}))
    base = lb.ChatRequest(model="claude-sonnet-4-5", messages=[lb.ChatMessage.user("x")])
    cases = [
        ("C_anthropic/test_anthropic_code_execution_tool_stream__i0__9f957e7", lb.CodeExecution()),
        ("C_anthropic/test_anthropic_web_fetch_tool_stream__i0", lb.WebFetch()),
    ]
    for stem, tool in cases:
        body = p.build_request(base.model_copy(update={"hosted_tools": [tool]})).json
        assert body["tools"] == _request(stem)["tools"]
    rec = _request("C_anthropic/test_anthropic_web_search_tool_stream__i0__1a22d68")
    body = p.build_request(base.model_copy(update={"hosted_tools": [lb.WebSearch()]})).json
    assert body["tools"] == [{k: v for k, v in t.items() if v is not None} for t in rec["tools"]]
    mcp = lb.HostedMCP("https://mcp.deepwiki.com/mcp", name="deepwiki",
                       allowed_tools=["ask_question"], approval="never")  # fmt: skip
    body = p.build_request(base.model_copy(update={"hosted_tools": [mcp]})).json
    rec = _request("C_anthropic/test_anthropic_mcp_servers_stream__i0__d4a85e6")
    assert body["mcp_servers"] == rec["mcp_servers"]


# -- Gemini -------------------------------------------------------------------------------
def _gemini(name: str) -> tuple[list[lb.StreamEvent], list[Any]]:
    types = pytest.importorskip("google.genai.types")
    body = _body(name)
    events, error = decode_collect(GeminiDecoder(provider="gemini"), [body])
    assert error is None
    chunks = [  # the candidates only: usage fields newer than the SDK are not its business here
        types.GenerateContentResponse.model_validate({"candidates": p.get("candidates")})
        for p in _payloads(body)
    ]
    return events, chunks


GROUNDED = [
    "D_gemini/test_web_search_stream_history_round_trip__i0__9a6bdb1.sse",
    "D_gemini/test_google_model_web_fetch_tool_stream__i0.sse",
    "D_gemini/test_google_model_file_search_grounding_gemini_3_True___i3.sse",
    "D_gemini/test_native_output_with_builtin_tools_stream__i0.sse",
]


@pytest.mark.parametrize("name", GROUNDED)
def test_gemini_citations_are_the_sdks_grounding_supports(name: str) -> None:
    events, chunks = _gemini(name)
    expected: list[lb.Citation] = []
    for chunk in chunks:
        for cand in chunk.candidates or ():
            meta = cand.grounding_metadata
            if meta is None:
                continue
            sources = meta.grounding_chunks or []
            for support in meta.grounding_supports or ():
                for i in support.grounding_chunk_indices or ():
                    web = sources[i].web or sources[i].retrieved_context
                    if web is None or web.uri is None:
                        continue
                    cite = lb.Citation(web.uri, web.title, support.segment.text)
                    if cite not in expected:
                        expected.append(cite)
    assert _of(events, lb.Citation) == expected
    if "web_search" in name or "web_fetch" in name:
        assert expected


GEMINI_CODE = [
    "D_gemini/test_code_execution_stream__i0.sse",
    "D_gemini/test_code_execution_stream__i0__076acf4.sse",
]


@pytest.mark.parametrize("name", GEMINI_CODE)
def test_gemini_code_output_is_the_sdks_result_parts(name: str) -> None:
    events, chunks = _gemini(name)
    expected = [
        lb.CodeOutput(stdout=r.output or "")
        if r.outcome == "OUTCOME_OK"
        else lb.CodeOutput(stderr=r.output or "")
        for chunk in chunks
        for cand in chunk.candidates or ()
        if cand.content
        for part in cand.content.parts or ()
        if (r := part.code_execution_result) is not None
    ]
    assert expected
    assert _of(events, lb.CodeOutput) == expected


def test_gemini_generated_image_is_the_sdks_inline_data() -> None:
    events, chunks = _gemini("D_gemini/test_google_image_generation_stream__i1__111dda9.sse")
    expected = [
        (part.inline_data.data, part.inline_data.mime_type)
        for chunk in chunks
        for cand in chunk.candidates or ()
        if cand.content
        for part in cand.content.parts or ()
        if part.inline_data is not None
    ]
    images = _of(events, lb.GeneratedImage)
    assert expected
    assert [(i.data, i.media_type) for i in images] == expected
    assert base64.b64decode(images[0].b64 or "") == images[0].data


# -- OpenRouter (Chat Completions) --------------------------------------------------------
OPENROUTER = [
    "E_openrouter/test_openrouter_web_search_annotations_stream__i0.sse",
    "E_openrouter/test_openrouter_web_search_annotations_stream__i0__0e65a72.sse",
]


@pytest.mark.parametrize("name", OPENROUTER)
def test_openrouter_annotations_are_citations(name: str) -> None:
    from llmbridge.providers.openai.decode import ChatCompletionsDecoder

    chat = pytest.importorskip("openai.types.chat.chat_completion_message")
    body = _body(name)
    events, error = decode_collect(ChatCompletionsDecoder(provider="openrouter"), [body])
    assert error is None
    expected = []
    for payload in _payloads(body):
        for choice in payload.get("choices") or ():
            for note in (choice.get("delta") or {}).get("annotations") or ():
                sdk = chat.Annotation.model_validate(note).url_citation  # the SDK's reading
                expected.append(
                    lb.Citation(sdk.url, sdk.title or None, note["url_citation"].get("content"))
                )
    assert expected
    assert _of(events, lb.Citation) == expected


def test_openrouter_recorded_request_matches_our_encoding() -> None:
    p = create_provider("openrouter", ProviderConfig.from_mapping({"api_key": "k"}))
    req = lb.ChatRequest(
        model="deepseek/deepseek-chat",
        messages=[lb.ChatMessage.user("x")],
        hosted_tools=[lb.WebSearch(max_uses=1, context_size="medium")],
    )
    rec = _request("E_openrouter/test_openrouter_web_search_annotations_stream__i0")
    assert p.build_request(req).json["tools"] == rec["tools"]
