"""Real recordings of Anthropic and Gemini provider-run tools (``../shared/corpus``, read at
test time, skipped when absent): Anthropic citations and code output vs the SDK's accumulated
message, MCP connector blocks kept raw; Gemini citations, code output and images vs the
SDK-parsed chunks; recorded requests vs our encoding.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

import llmbridge as lb
from llmbridge.events import ApprovalRequest
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.anthropic import AnthropicDecoder
from llmbridge.providers.gemini.decode import GeminiDecoder
from llmbridge.testing import decode_collect
from tests.providers.hosted_corpus import (
    body_of,
    of_type,
    payloads,
    recorded_request,
    skip_without_corpus,
)

pytestmark = skip_without_corpus


# -- Anthropic ----------------------------------------------------------------------------
def _anthropic(name: str) -> tuple[list[lb.StreamEvent], Any]:
    streaming = pytest.importorskip("anthropic.lib.streaming._messages")
    body = body_of(name)
    events, error = decode_collect(AnthropicDecoder(), [body])
    assert error is None
    snapshot, bufs = None, {}
    for event in payloads(body):
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
    assert of_type(events, lb.Citation) == expected
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
    ran = {  # what each server_tool_use ran, by id (the SDK parsed its input)
        b.id: b.input.get("code") or b.input.get("command")
        for b in message.content
        if b.type == "server_tool_use" and isinstance(b.input, dict)
    }
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
                code=ran.get(block.tool_use_id),
            )
        )
    assert of_type(events, lb.CodeOutput) == expected
    assert expected, "each recording runs code"
    assert all(c.code for c in expected), "each result answers a call whose code we know"


ANTHROPIC_MCP = [
    "C_anthropic/anthropic-mcp.1.sse",
    "C_anthropic/test_anthropic_mcp_servers_stream__i0__d4a85e6.sse",
]


@pytest.mark.parametrize("name", ANTHROPIC_MCP)
def test_anthropic_mcp_blocks_stay_raw_and_ask_nothing(name: str) -> None:
    events, message = _anthropic(name)
    assert of_type(events, ApprovalRequest) == []  # the connector never asks
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
        assert body["tools"] == recorded_request(stem)["tools"]
    rec = recorded_request("C_anthropic/test_anthropic_web_search_tool_stream__i0__1a22d68")
    body = p.build_request(base.model_copy(update={"hosted_tools": [lb.WebSearch()]})).json
    assert body["tools"] == [{k: v for k, v in t.items() if v is not None} for t in rec["tools"]]
    mcp = lb.HostedMCP("https://mcp.deepwiki.com/mcp", name="deepwiki",
                       allowed_tools=["ask_question"], approval="never")  # fmt: skip
    body = p.build_request(base.model_copy(update={"hosted_tools": [mcp]})).json
    rec = recorded_request("C_anthropic/test_anthropic_mcp_servers_stream__i0__d4a85e6")
    # recorded with the old connector (mcp-client-2025-04-04: the allowlist in the server's
    # tool_configuration); we send 2025-11-20: the same connection, the allowlist as a toolset
    (old,) = rec["mcp_servers"]
    config = old.pop("tool_configuration")
    assert body["mcp_servers"] == [old]
    assert config["enabled"] is True
    assert body["tools"] == [
        {
            "type": "mcp_toolset",
            "mcp_server_name": old["name"],
            "default_config": {"enabled": False},
            "configs": {name: {"enabled": True} for name in config["allowed_tools"]},
        }
    ]


# -- Gemini -------------------------------------------------------------------------------
def _gemini(name: str) -> tuple[list[lb.StreamEvent], list[Any]]:
    types = pytest.importorskip("google.genai.types")
    body = body_of(name)
    events, error = decode_collect(GeminiDecoder(provider="gemini"), [body])
    assert error is None
    chunks = [  # the candidates only: usage fields newer than the SDK are not its business here
        types.GenerateContentResponse.model_validate({"candidates": p.get("candidates")})
        for p in payloads(body)
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
    assert of_type(events, lb.Citation) == expected
    if "web_search" in name or "web_fetch" in name:
        assert expected


GEMINI_CODE = [
    "D_gemini/test_code_execution_stream__i0.sse",
    "D_gemini/test_code_execution_stream__i0__076acf4.sse",
]


@pytest.mark.parametrize("name", GEMINI_CODE)
def test_gemini_code_output_is_the_sdks_result_parts(name: str) -> None:
    events, chunks = _gemini(name)
    expected, code = [], None
    parts = [p for c in chunks for cand in c.candidates or () if cand.content
             for p in cand.content.parts or ()]  # fmt: skip
    for part in parts:
        if part.executable_code is not None:
            code = part.executable_code.code
        elif (r := part.code_execution_result) is not None:
            ok = r.outcome == "OUTCOME_OK"
            out = r.output or ""
            expected.append(
                lb.CodeOutput(stdout=out if ok else "", stderr="" if ok else out, code=code)
            )
            code = None
    assert expected and all(c.code for c in expected)
    assert of_type(events, lb.CodeOutput) == expected


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
    images = of_type(events, lb.GeneratedImage)
    assert expected
    assert [(i.data, i.media_type) for i in images] == expected
    assert base64.b64decode(images[0].b64 or "") == images[0].data
