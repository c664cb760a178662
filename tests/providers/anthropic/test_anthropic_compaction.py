"""Issue 36, item 3 on Anthropic: ``compaction`` blocks are kept and sent back (with the
``compact-2026-01-12`` beta flag), ``compaction=`` asks for the ``compact_20260112`` edit, and
the usage of compaction iterations is added to the one usage convention; on the real
recording (corpus C), the follow-up request checked against the anthropic SDK's beta types.
Also: ``compaction=`` on a provider without it is refused before anything is sent.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from pydantic import TypeAdapter

import llmbridge as lb
from llmbridge.errors import ConfigurationError
from llmbridge.events import ProviderItem, Usage
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.anthropic import AnthropicDecoder
from llmbridge.providers.anthropic.compaction import COMPACTION_BETA
from llmbridge.response import accumulate
from llmbridge.testing import check_invariants, decode_collect
from llmbridge.types import ChatMessage, ChatRequest, RawPart, TextPart
from tests import corpus
from tests.fakes import named_sse

pytestmark = pytest.mark.anyio

RECORDING = "C_anthropic/test_anthropic_compaction_usage_with_cache_streaming__i0__0862ad9.sse"
KEY = "sk-ant-test-0123456789"


def _entry() -> dict[str, Any]:
    for param in corpus.entries("C"):
        entry = param.values[0]
        if entry is None:
            corpus.missing()
        if entry["file"] == RECORDING:
            return entry  # type: ignore[no-any-return]
    pytest.skip(f"{RECORDING} is not in the corpus")


def _provider(name: str = "anthropic", **options: Any) -> Any:
    return create_provider(name, ProviderConfig.from_mapping({"api_key": KEY, **options}))


def _check_beta_body(body: dict[str, Any]) -> None:
    """``body`` is what the SDK's beta ``MessageCreateParamsStreaming`` types, exactly."""
    params = pytest.importorskip("anthropic.types.beta.message_create_params")
    from tests.sdk_requests import _plain

    assert _plain(TypeAdapter(params.MessageCreateParamsStreaming).validate_python(body)) == body


def _betas(headers: dict[str, str]) -> list[str]:
    return [b for b in headers.get("anthropic-beta", "").split(",") if b]


def test_recording_keeps_the_block_and_counts_the_compaction_iteration() -> None:
    entry = _entry()
    events, error = decode_collect(AnthropicDecoder(), [corpus.body(entry)])
    assert error is None
    check_invariants(events)
    blocks = [e.data for e in events if isinstance(e, ProviderItem)]
    summary = blocks[0]["content"]
    assert blocks == [{"type": "compaction", "content": summary}] and summary.endswith("Hello!")
    response = accumulate(events, provider="anthropic")
    assert response.text == "Hello!"
    assert [p.data for p in response.compactions] == blocks
    # The documented totals: the top-level counts (the message iteration: 172 in, 5 out)
    # leave the compaction iteration out (100 in + 55,096 cache writes, 71 out); it is a
    # separate model call, billed too, so it is added.
    want = expected_usage(corpus.expected(entry)["usage"])  # type: ignore[index]
    assert (
        response.usage
        == want
        == Usage(
            input_tokens=172 + 100 + 55096,
            output_tokens=5 + 71,
            cached_input_tokens=0,
            cache_write_tokens=55096,
        )
    )

    # the follow-up: the block goes back where it stood, with the beta flag
    history = [ChatMessage.user("Now say hello."), response.message, ChatMessage.user("Again.")]
    request = _provider().build_request(ChatRequest(model="claude-sonnet-4-6", messages=history))
    body = request.json
    assert body["messages"][1]["content"][0] == {"type": "compaction", "content": summary}
    assert COMPACTION_BETA in _betas(request.headers)
    _check_beta_body(body)


def expected_usage(sdk: dict[str, Any]) -> Usage:
    """Our convention from the SDK's raw usage: top level plus the compaction iterations."""
    parts = [sdk, *(i for i in sdk.get("iterations") or [] if i["type"] == "compaction")]
    read = sum(p.get("cache_read_input_tokens") or 0 for p in parts)
    write = sum(p.get("cache_creation_input_tokens") or 0 for p in parts)
    return Usage(
        input_tokens=sum(p["input_tokens"] for p in parts) + read + write,
        output_tokens=sum(p["output_tokens"] for p in parts),
        cached_input_tokens=read,
        cache_write_tokens=write,
    )


def test_iterations_repeated_in_every_report_are_counted_once() -> None:
    iterations = [
        {"type": "compaction", "input_tokens": 50, "output_tokens": 10,
         "cache_read_input_tokens": 7, "cache_creation_input_tokens": 3},
        {"type": "message", "input_tokens": 20, "output_tokens": 4,
         "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0},
    ]  # fmt: skip
    usage = {"input_tokens": 20, "output_tokens": 4, "iterations": iterations}
    body = named_sse(
        {"type": "message_start", "message": {"id": "msg_1", "model": "claude", "usage": usage}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": usage},
        {"type": "message_delta", "delta": {}, "usage": usage},
        {"type": "message_stop"},
    )
    events, error = decode_collect(AnthropicDecoder(), [body])
    assert error is None
    assert accumulate(events).usage == Usage(
        input_tokens=20 + 50 + 7 + 3, output_tokens=4 + 10, cached_input_tokens=7,
        cache_write_tokens=3,
    )  # fmt: skip


def test_a_pause_after_compaction_finishes_as_other() -> None:
    block = {"type": "compaction", "content": None}
    body = named_sse(
        {"type": "message_start", "message": {"id": "msg_1", "model": "claude"}},
        {"type": "content_block_start", "index": 0, "content_block": block},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "compaction_delta", "content": "Summary."}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "compaction"}},
        {"type": "message_stop"},
    )  # fmt: skip
    response = accumulate(decode_collect(AnthropicDecoder(), [body])[0])
    assert (response.finish_reason, response.raw_finish_reason) == ("other", "compaction")
    assert [p.data for p in response.compactions] == [{"type": "compaction", "content": "Summary."}]


def test_compaction_option_is_the_compact_edit_with_its_beta_flag() -> None:
    spec = lb.Compaction(trigger_tokens=60000, instructions="Keep file names.", pause_after=True)
    request = ChatRequest(
        model="claude-opus-4-6", messages=[ChatMessage.user("hi")], compaction=spec
    )
    wire = _provider(betas=["other-beta"]).build_request(request)
    assert wire.json["context_management"] == {
        "edits": [
            {
                "type": "compact_20260112",
                "trigger": {"type": "input_tokens", "value": 60000},
                "instructions": "Keep file names.",
                "pause_after_compaction": True,
            }
        ]
    }
    assert _betas(wire.headers) == ["other-beta", COMPACTION_BETA]
    _check_beta_body(wire.json)
    plain = ChatRequest(model="claude-opus-4-6", messages=[ChatMessage.user("hi")])
    assert COMPACTION_BETA not in _betas(_provider().build_request(plain).headers)
    count = _provider().count_tokens_request(request)
    assert COMPACTION_BETA in _betas(count.headers) and "context_management" in count.json


@pytest.mark.parametrize(
    ("name", "options", "model"),
    [
        ("anthropic-vertex", {"access_token": KEY, "project": "p", "region": "us-east5"},
         "claude-opus-4-6"),
        ("anthropic-bedrock", {"api_key": KEY, "region": "us-east-1"},
         "anthropic.claude-opus-4-6-v1"),
    ],
)  # fmt: skip
def test_claude_on_the_clouds_gets_the_edit_and_the_flag(
    name: str, options: dict[str, Any], model: str
) -> None:
    provider = create_provider(name, ProviderConfig.from_mapping(options))
    block = RawPart(provider=name, data={"type": "compaction", "content": "Earlier."})
    history = [
        ChatMessage.user("hi"),
        ChatMessage(role="assistant", content=[block, TextPart(text="Hello")]),
        ChatMessage.user("again"),
    ]
    wire = provider.build_request(ChatRequest(model=model, messages=history))
    assert COMPACTION_BETA in _betas(wire.headers)
    assert wire.json["messages"][1]["content"][0] == block.data
    asked = ChatRequest(model=model, messages=history[:1], compaction=lb.Compaction())
    wire = provider.build_request(asked)
    assert wire.json["context_management"] == {"edits": [{"type": "compact_20260112"}]}
    assert COMPACTION_BETA in _betas(wire.headers)


def test_a_responses_compaction_is_left_out_of_an_anthropic_request() -> None:
    item = {"id": "cmp_1", "type": "compaction", "encrypted_content": "opaque"}
    history = [
        ChatMessage.user("hi"),
        ChatMessage(role="assistant", content=[RawPart(provider="openai-responses", data=item),
                                               TextPart(text="Hello")]),
        ChatMessage.user("again"),
    ]  # fmt: skip
    request = ChatRequest(model="claude-opus-4-6", messages=history)
    wire = _provider().build_request(request)
    assert wire.json["messages"][1]["content"] == [{"type": "text", "text": "Hello"}]
    assert COMPACTION_BETA not in _betas(wire.headers)
    warnings = list(_provider().prepare(request).warnings)
    assert [w for w in warnings if "compaction" in w] == [
        "history: 1 compaction(s) from openai-responses were left out: anthropic cannot read "
        "another provider's compacted context (the messages before it are sent as they are)"
    ]


async def test_compaction_on_a_provider_without_it_is_refused_before_sending() -> None:
    sent: list[httpx.Request] = []
    http = httpx.AsyncClient(
        transport=httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(500))
    )
    providers = {"gemini": {"api_key": KEY}, "openai": {"api_key": KEY}}
    async with lb.Client(http_client=http, providers=providers) as client:
        for model in ("gemini:gemini-2.5-flash", "openai:gpt-4.1"):
            with pytest.raises(ConfigurationError) as info:
                await client.complete(model, "hi", compaction=True)
            assert "openai-responses" in str(info.value) and "anthropic" in str(info.value)
            assert KEY not in str(info.value)
    assert not sent


async def test_compaction_true_reaches_the_wire() -> None:
    bodies: list[dict[str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(500, json={"type": "error", "error": {"type": "api_error"}})

    http = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    async with lb.Client(http_client=http, providers={"anthropic": {"api_key": KEY}}) as client:
        with pytest.raises(lb.LLMBridgeError):
            await client.complete(
                "anthropic:claude-opus-4-6", "hi", compaction=True, max_attempts=1
            )
    assert bodies[0]["context_management"] == {"edits": [{"type": "compact_20260112"}]}
