"""``HostedMCP`` → Anthropic's MCP connector, version ``mcp-client-2025-11-20``.

https://platform.claude.com/docs/en/agents-and-tools/mcp-connector: an ``mcp_servers`` entry
is the connection only (``type: url``, ``url``, ``name``, ``authorization_token``) and must be
referenced by exactly one ``mcp_toolset`` entry in ``tools``, which says which of the server's
tools are enabled. Every body built here is validated against the installed SDK's own beta
request types (``client.beta.messages.create`` / ``count_tokens``): an unknown key or a wrong
shape fails, and so does a leftover ``tool_configuration``.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from pydantic import TypeAdapter

import llmbridge as lb
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.anthropic.hosted import MCP_BETA, encode_hosted
from llmbridge.response import accumulate
from llmbridge.testing import decode_collect
from llmbridge.types import RawPart
from tests.fakes import named_sse
from tests.sdk_requests import _plain

USER = [lb.ChatMessage.user("What does the pydantic repo do?")]
FN = lb.ToolSpec(name="lookup", description="Look a thing up.")


def _provider(**config: Any) -> Any:
    return create_provider("anthropic", ProviderConfig.from_mapping({"api_key": "k", **config}))


def _validates(params_module: str, type_name: str, body: dict[str, Any]) -> None:
    params = pytest.importorskip(params_module)
    adapter: TypeAdapter[Any] = TypeAdapter(getattr(params, type_name))
    assert _plain(adapter.validate_python(body)) == body


def check_beta_create(body: dict[str, Any]) -> None:
    """``body`` is what ``client.beta.messages.create(stream=True)`` types, key for key."""
    _validates("anthropic.types.beta.message_create_params", "MessageCreateParamsStreaming", body)


def _build(*servers: lb.HostedMCP, tools: list[lb.ToolSpec] | None = None) -> Any:
    p = _provider()
    req = lb.ChatRequest(
        model="claude-sonnet-4-5", messages=USER, tools=tools or [], hosted_tools=list(servers)
    )
    return p.build_request(req)


def test_the_beta_is_the_current_connector_version_and_the_sdk_knows_it() -> None:
    beta = pytest.importorskip("anthropic.types.anthropic_beta_param")
    assert MCP_BETA == "mcp-client-2025-11-20"
    assert MCP_BETA in beta.AnthropicBetaParam.__args__[1].__args__


CASES: dict[str, tuple[list[lb.HostedMCP], list[dict[str, Any]], list[dict[str, Any]]]] = {
    "no allowlist": (
        [lb.HostedMCP("https://mcp.deepwiki.com/mcp", name="deepwiki", approval="never")],
        [{"type": "url", "url": "https://mcp.deepwiki.com/mcp", "name": "deepwiki"}],
        [{"type": "mcp_toolset", "mcp_server_name": "deepwiki"}],
    ),
    "an allowlist": (
        [
            lb.HostedMCP(
                "https://mcp.deepwiki.com/mcp",
                name="deepwiki",
                allowed_tools=["ask_question", "read_wiki_structure"],
                approval="never",
            )
        ],
        [{"type": "url", "url": "https://mcp.deepwiki.com/mcp", "name": "deepwiki"}],
        [
            {
                "type": "mcp_toolset",
                "mcp_server_name": "deepwiki",
                "default_config": {"enabled": False},
                "configs": {
                    "ask_question": {"enabled": True},
                    "read_wiki_structure": {"enabled": True},
                },
            }
        ],
    ),
    "a token": (
        [
            lb.HostedMCP(
                "https://api.githubcopilot.com/mcp/",
                approval="never",
                headers={"Authorization": "Bearer gh-t0k"},
            )
        ],
        [
            {
                "type": "url",
                "url": "https://api.githubcopilot.com/mcp/",
                "name": "api_githubcopilot_com",
                "authorization_token": "gh-t0k",
            }
        ],
        [{"type": "mcp_toolset", "mcp_server_name": "api_githubcopilot_com"}],
    ),
    "two servers": (
        [
            lb.HostedMCP("https://a.example/mcp", name="a", approval="never"),
            lb.HostedMCP(
                "https://b.example/mcp",
                name="b",
                allowed_tools=["search"],
                approval="never",
                headers={"authorization": "bearer b-t0k"},
            ),
        ],
        [
            {"type": "url", "url": "https://a.example/mcp", "name": "a"},
            {
                "type": "url",
                "url": "https://b.example/mcp",
                "name": "b",
                "authorization_token": "b-t0k",
            },
        ],
        [
            {"type": "mcp_toolset", "mcp_server_name": "a"},
            {
                "type": "mcp_toolset",
                "mcp_server_name": "b",
                "default_config": {"enabled": False},
                "configs": {"search": {"enabled": True}},
            },
        ],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_servers_and_toolsets_validate_against_the_beta_sdk_types(case: str) -> None:
    servers, expected_servers, expected_toolsets = CASES[case]
    built = _build(*servers, tools=[FN])
    body = built.json
    assert body["mcp_servers"] == expected_servers
    assert body["tools"][0]["name"] == "lookup"  # the app's tools first, then the toolsets
    assert body["tools"][1:] == expected_toolsets
    assert built.headers["anthropic-beta"] == MCP_BETA
    check_beta_create(body)


def test_every_server_is_named_by_exactly_one_toolset() -> None:
    servers = [*CASES["two servers"][0], *CASES["a token"][0]]
    hosted = encode_hosted(servers)
    names = [t["mcp_server_name"] for t in hosted.tools if t["type"] == "mcp_toolset"]
    assert sorted(names) == sorted(s["name"] for s in hosted.mcp_servers)
    assert all("tool_configuration" not in s for s in hosted.mcp_servers)
    assert hosted.betas == [MCP_BETA]  # once, however many servers


def test_an_empty_allowlist_enables_nothing() -> None:
    body = _build(lb.HostedMCP("https://m.example", name="m", allowed_tools=[], approval="never"))
    toolset = body.json["tools"][0]
    assert toolset == {
        "type": "mcp_toolset",
        "mcp_server_name": "m",
        "default_config": {"enabled": False},
        "configs": {},
    }
    check_beta_create(body.json)


def test_toolsets_keep_their_place_among_server_tools() -> None:
    mcp = lb.HostedMCP("https://m.example/mcp", name="m", approval="never")
    body = _build(lb.WebSearch(), mcp, lb.CodeExecution()).json
    assert [t["type"] for t in body["tools"]] == [
        "web_search_20250305",
        "mcp_toolset",
        "code_execution_20250825",
    ]
    check_beta_create(body)


def test_provider_options_go_to_the_toolset_last() -> None:
    mcp = lb.HostedMCP(
        "https://m.example/mcp",
        name="m",
        allowed_tools=["search"],
        approval="never",
        provider_options={
            "anthropic": {
                "default_config": {"enabled": False, "defer_loading": True},
                "cache_control": {"type": "ephemeral"},
            }
        },
    )
    body = _build(mcp).json
    assert body["mcp_servers"] == [{"type": "url", "url": "https://m.example/mcp", "name": "m"}]
    assert body["tools"] == [
        {
            "type": "mcp_toolset",
            "mcp_server_name": "m",
            "default_config": {"enabled": False, "defer_loading": True},
            "configs": {"search": {"enabled": True}},
            "cache_control": {"type": "ephemeral"},
        }
    ]
    check_beta_create(body)


def test_description_is_dropped_with_a_warning() -> None:
    mcp = lb.HostedMCP("https://m.example", name="m", approval="never", description="Docs")
    hosted = encode_hosted([mcp])
    assert hosted.warnings == [
        "HostedMCP 'm' description: the MCP connector has no such field; dropped"
    ]
    assert "description" not in hosted.mcp_servers[0]
    assert all("description" not in t for t in hosted.tools)


def test_beta_joins_the_configured_ones_on_create_and_count_tokens() -> None:
    p = _provider(betas="files-api-2025-04-14")
    req = lb.ChatRequest(
        model="claude-sonnet-4-5",
        messages=USER,
        hosted_tools=[lb.HostedMCP("https://m.example/mcp", name="m", approval="never")],
    )
    assert p.build_request(req).headers["anthropic-beta"] == f"files-api-2025-04-14,{MCP_BETA}"
    counted = p.count_tokens_request(req)
    assert counted.headers["anthropic-beta"] == f"files-api-2025-04-14,{MCP_BETA}"
    assert counted.json["tools"] == [{"type": "mcp_toolset", "mcp_server_name": "m"}]
    _validates(
        "anthropic.types.beta.message_count_tokens_params",
        "MessageCountTokensParams",
        counted.json,
    )


# -- the response blocks, and sending them back --------------------------------------------
USE = {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "ask_question",
       "server_name": "deepwiki", "input": {}}  # fmt: skip
RESULT = {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": False,
          "content": [{"type": "text", "text": "Pydantic validates data."}]}  # fmt: skip
ARGS = {"repoName": "pydantic/pydantic", "question": "What is it?"}
START = {
    "type": "message_start",
    "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [],
                "model": "claude-sonnet-4-5", "usage": {"input_tokens": 10, "output_tokens": 1}},
}  # fmt: skip
ARGS_DELTA = {"type": "input_json_delta", "partial_json": orjson.dumps(ARGS).decode()}
TEXT_DELTA = {"type": "text_delta", "text": "It validates data."}
STOP = {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
        "usage": {"output_tokens": 20}}  # fmt: skip
STREAM = named_sse(
    START,
    {"type": "content_block_start", "index": 0, "content_block": USE},
    {"type": "content_block_delta", "index": 0, "delta": ARGS_DELTA},
    {"type": "content_block_stop", "index": 0},
    {"type": "content_block_start", "index": 1, "content_block": RESULT},
    {"type": "content_block_stop", "index": 1},
    {"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 2, "delta": TEXT_DELTA},
    {"type": "content_block_stop", "index": 2},
    STOP,
    {"type": "message_stop"},
)


def test_mcp_blocks_decode_raw_and_go_back_as_the_sdk_types_them() -> None:
    """``mcp_tool_use`` / ``mcp_tool_result`` have the same shape under 2025-11-20 (the SDK's
    ``BetaMCPToolUseBlock`` / ``BetaMCPToolResultBlock``): kept raw, no approval asked, and
    sent back verbatim as ``BetaMCPToolUseBlockParam`` / ``BetaRequestMCPToolResultBlockParam``."""
    types = pytest.importorskip("anthropic.types.beta")
    mcp = lb.HostedMCP("https://mcp.deepwiki.com/mcp", name="deepwiki", approval="never")
    p = _provider()
    req = lb.ChatRequest(model="claude-sonnet-4-5", messages=USER, hosted_tools=[mcp])
    events, error = decode_collect(p.new_decoder(req), [STREAM])
    assert error is None
    items = [e.data for e in events if isinstance(e, lb.ProviderItem)]
    assert items == [{**USE, "input": ARGS}, RESULT]
    types.BetaMCPToolUseBlock.model_validate(items[0])
    types.BetaMCPToolResultBlock.model_validate(items[1])
    assert not [e for e in events if e.type == "approval_request"]
    resp = accumulate(events, provider=p.name)
    assert [part.data for part in resp.message.content if isinstance(part, RawPart)] == items

    follow = req.model_copy(update={"messages": [*USER, resp.message, lb.ChatMessage.user("And?")]})
    body = p.build_request(follow).json
    sent = body["messages"][1]["content"][:2]
    assert sent == items
    # the content union also takes the response models (``BetaContentBlock``), so the whole
    # body is only checked to validate; each block is checked key for key against its param
    params = pytest.importorskip("anthropic.types.beta.message_create_params")
    TypeAdapter(params.MessageCreateParamsStreaming).validate_python(body)
    for block, param in zip(
        sent,
        [types.BetaMCPToolUseBlockParam, types.BetaRequestMCPToolResultBlockParam],
        strict=True,
    ):
        adapter: TypeAdapter[Any] = TypeAdapter(param)
        assert _plain(adapter.validate_python(block)) == block
