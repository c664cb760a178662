"""Any history, any provider: the matrix.

A two-turn tool conversation is started on one provider from a real recorded stream (the
repo's fixtures, plus ``../shared/corpus`` recordings when present), then continued on every
other provider (and the presets with reasoning) through the whole client, over a mock
transport that records what would be sent. Each request body must validate against that
provider's SDK request types, carry no foreign signature, encrypted blob, provider item or
refused tool-call id, keep every call paired with its result, and name what was left out in
``StreamStart.warnings``. Same-provider pairs must keep their own signatures (round trip).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.cohere.request import COHERE_IDS
from llmbridge.providers.gemini.messages import PLACEHOLDER_SIGNATURE
from llmbridge.providers.history import (
    ANTHROPIC_IDS,
    ANY_IDS,
    CHAT_COMPLETIONS_IDS,
    MISTRAL_IDS,
    RESPONSES_IDS,
    IdRule,
)
from llmbridge.providers.openai.round_trip import reasoning_details
from llmbridge.response import accumulate
from llmbridge.testing import decode_collect, load_fixture
from tests import corpus
from tests.fakes import mock_client, sse_response
from tests.sdk_requests import check_body

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24


@dataclass(frozen=True)
class Target:
    model: str
    api: str
    ids: IdRule
    reply: str
    """A recorded plain-text stream in this provider's format (the mock's answer)."""
    config: tuple[tuple[str, str], ...] = ()

    @property
    def provider(self) -> str:
        return self.model.partition(":")[0]


TARGETS = {
    "anthropic": Target(
        "anthropic:claude-sonnet-4-5", "anthropic", ANTHROPIC_IDS, "anthropic/text"
    ),
    "openai": Target("openai:gpt-4.1", "chat", CHAT_COMPLETIONS_IDS, "openai/plain_text"),
    "openai-responses": Target(
        "openai-responses:gpt-5", "responses", RESPONSES_IDS, "openai-responses/text"
    ),
    "gemini": Target("gemini:gemini-3-pro-preview", "gemini", ANY_IDS, "gemini/text"),
    "mistral": Target("mistral:magistral-medium-latest", "chat", MISTRAL_IDS, "openai/plain_text"),
    "deepseek": Target("deepseek:deepseek-reasoner", "chat", ANY_IDS, "openai/plain_text"),
    "openrouter": Target(
        "openrouter:anthropic/claude-sonnet-4.5", "chat", ANY_IDS, "openai/plain_text"
    ),
    "ollama-native": Target("ollama-native:qwen3:8b", "ollama", ANY_IDS, "ollama-native/text"),
    "cohere": Target("cohere:command-a-03-2025", "cohere", COHERE_IDS, "cohere/text"),
    "gemini-openai": Target(  # Gemini's OpenAI endpoint
        "openai-compatible:gemini-3-pro-preview",
        "chat",
        ANY_IDS,
        "openai/plain_text",
        (("base_url", "https://generativelanguage.googleapis.com/v1beta/openai"),),
    ),
}

REPO_SOURCES = {
    "anthropic": "anthropic/thinking_tool_use",  # thinking + signature + tool_use
    "openai": "openai/parallel_tool_calls",  # three parallel calls
    "openai-responses": "openai-responses/custom_tool_grammar_call",  # encrypted reasoning,
    # a custom (freeform) call and a function call with item ids
    "gemini": "gemini/parallel_calls",  # Gemini 3: a thoughtSignature on the first call
    "mistral": "mistral/thinking_parts_and_tool_call",  # magistral thinking + 9-char id
    "groq": "groq/whole_call_one_chunk",  # reasoning + a whole call in one chunk
    "openrouter": "openrouter/reasoning_details_tool_round_trip",  # signed reasoning_details
    # (the answer of a tool turn: the history sent for it held a tool call)
    "openrouter-text": "openrouter/reasoning_details_keepalive",  # the same, no tool call
    "gemini-openai": "openai-compatible/gemini_endpoint_thought_signature",  # extra_content
    "ollama-native": "ollama-native/thinking_tool_call",  # thinking + two whole calls, no ids
    "cohere": "cohere/tool_plan_parallel_calls",  # a tool plan (provider item) + two calls
}
CORPUS_SOURCES = {
    "C_anthropic/test_a_real_anthropic_run_streams_thinking_and_a_tool_call__i0__c7cd2fc.sse": (
        "anthropic"
    ),
    "C_anthropic/test_anthropic_code_execution_tool_stream__i0.sse": "anthropic",
    "D_gemini/google-tool-call.sse": "gemini",
    "B_openai/openai-reasoning-encrypted-content.1.sse": "openai-responses",
    "E_deepseek/deepseek-tool-call.sse": "deepseek",
    "E_openrouter/test_openrouter_stream_with_reasoning__i0.sse": "openrouter",
    "H_ollama/chat_function_calling_ollama_llama3_1_8b_can_use_tools_with_multi-turn_streaming_conversat__2.ndjson": (
        "ollama-native"
    ),
    "I_cohere/chat_function_calling_cohere_command-a-03-2025_can_use_tools_with_multi-turn_streaming_con.sse": (
        "cohere"
    ),
}


def _decode(
    provider_name: str,
    body: bytes,
    request: lb.ChatRequest,
    config: dict[str, Any] | None = None,
) -> lb.ChatMessage:
    options = {**(config or {}), "api_key": "k"}
    provider = create_provider(provider_name, ProviderConfig.from_mapping(options))
    framing = getattr(provider, "framing", "sse")
    events, error = decode_collect(provider.new_decoder(request), [body], framing=framing)
    assert error is None, error
    return accumulate(events, provider=provider_name).message


def _repo_turn(name: str) -> tuple[str, lb.ChatMessage]:
    fx = load_fixture(FIXTURES / REPO_SOURCES[name])
    return fx.provider, _decode(fx.provider, fx.body, fx.request, fx.provider_config)


def _corpus_turn(file: str) -> tuple[str, lb.ChatMessage]:
    path = corpus.CORPUS / file
    if not path.exists():
        corpus.missing()
    name = CORPUS_SOURCES[file]
    request = lb.ChatRequest(model="m", messages=[lb.ChatMessage.user("hi")])
    return name, _decode(name, path.read_bytes(), request)


def conversation(turn: lb.ChatMessage) -> list[lb.ChatMessage]:
    """System, user, the recorded assistant turn, then its tool results (the first with an
    image): the next request is the model's turn 2, inside the same (current) user turn."""
    messages = [
        lb.ChatMessage.system("Be brief."),
        lb.ChatMessage.user("What is the weather in Paris? Use the tools."),
        turn,
    ]
    for i, call in enumerate(turn.tool_calls):
        content: list[Any] = [lb.TextPart(text='{"temp_c": 18, "sky": "clear"}')]
        if i == 0:
            content.append(lb.ImagePart(data=PNG, media_type="image/png"))
        messages.append(lb.ChatMessage.tool_result(call.id, content, name=call.name))
    if not turn.tool_calls:
        messages.append(lb.ChatMessage.user("Thanks. And in Lima?"))
    return messages


def _tools(turn: lb.ChatMessage) -> list[lb.ToolSpec]:
    names = dict.fromkeys(["get_weather", *(c.name for c in turn.tool_calls)])
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    return [lb.ToolSpec.from_json_schema(n, f"The {n} tool.", schema) for n in names]


def continue_on(
    target: Target, messages: list[lb.ChatMessage], tools: list[lb.ToolSpec]
) -> tuple[dict[str, Any], list[str]]:
    """The body ``target`` is sent for the next turn, and the warnings it streamed back."""
    sent: list[dict[str, Any]] = []
    fixture = load_fixture(FIXTURES / target.reply)
    reply, kind = fixture.body, fixture.headers.get("content-type", "text/event-stream")

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(orjson.loads(request.content))
        return sse_response(reply, **{"content-type": kind})

    async def main() -> list[str]:
        providers = {t.provider: {"api_key": "k", **dict(t.config)} for t in TARGETS.values()}
        async with lb.Client(http_client=mock_client(handler), providers=providers) as client:
            response = await client.complete(target.model, messages, tools=tools)
        return response.warnings

    warnings = anyio.run(main)
    (body,) = sent
    return body, warnings


def _opaque(turn: lb.ChatMessage) -> set[str]:
    """Signatures, encrypted blobs, item ids and provider items of ``turn``: only their maker
    may see them again."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str) and len(value) >= 16:
            found.add(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                if key not in ("text", "type", "format", "name"):
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for part in turn.content:
        if isinstance(part, lb.ReasoningPart):
            walk(part.signature)
            walk(part.provider_data)
        elif isinstance(part, lb.ToolCallPart):
            data = part.provider_data or {}
            for key in ("thoughtSignature", "extra_content", "item_id"):
                walk(data.get(key))
        elif isinstance(part, lb.RawPart):
            walk(part.data)
    return found


def _ids(api: str, body: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(tool-call ids, tool-result ids) as sent."""
    calls: list[str] = []
    results: list[str] = []
    if api == "anthropic":
        for turn in body["messages"]:
            for block in turn["content"] if isinstance(turn["content"], list) else []:
                if block["type"] == "tool_use":
                    calls.append(block["id"])
                elif block["type"] == "tool_result":
                    results.append(block["tool_use_id"])
    elif api in ("chat", "cohere"):  # Cohere's v2 messages carry ids as Chat Completions do
        for message in body["messages"]:
            calls.extend(c["id"] for c in message.get("tool_calls", []))
            if message["role"] == "tool":
                results.append(message["tool_call_id"])
    elif api == "ollama":  # no ids on this wire: calls and results pair by tool name
        for message in body["messages"]:
            calls.extend(c["function"]["name"] for c in message.get("tool_calls", []))
            if message["role"] == "tool":
                results.append(message["tool_name"])
    elif api == "responses":
        for item in body["input"]:
            if item.get("type") in ("function_call", "custom_tool_call"):
                calls.append(item["call_id"])
            elif item.get("type") in ("function_call_output", "custom_tool_call_output"):
                results.append(item["call_id"])
    else:
        for content in body["contents"]:
            for part in content["parts"]:
                if "functionCall" in part and "id" in part["functionCall"]:
                    calls.append(part["functionCall"]["id"])
                if "functionResponse" in part and "id" in part["functionResponse"]:
                    results.append(part["functionResponse"]["id"])
    return calls, results


def check_continuation(source: str, turn: lb.ChatMessage, target_name: str) -> None:
    target = TARGETS[target_name]
    messages = conversation(turn)
    body, warnings = continue_on(target, messages, _tools(turn))
    check_body(target.api, body)
    text = orjson.dumps(body).decode()
    opaque = _opaque(turn)
    own = source == target.provider
    model = target.model.partition(":")[2]
    if own and source == "openrouter" and not reasoning_details(turn, provider=source, model=model):
        # OpenRouter reasoning of another model family (an o3 blob sent to a Claude model)
        own = False
        assert any("another model family" in w for w in warnings), warnings
    if own:
        assert not opaque or any(o in text for o in opaque), "own signatures must round-trip"
    else:
        leaked = sorted(o[:40] for o in opaque if o in text)
        assert not leaked, f"foreign data sent to {target_name}: {leaked}"
    # every call paired with its result, under ids this provider accepts, none refused leaking
    calls, results = _ids(target.api, body)
    assert sorted(calls) == sorted(results)
    assert all(target.ids.accepts(i) for i in calls)
    if target.api != "gemini":
        assert len(calls) == len(turn.tool_calls)
    refused = [c.id for c in turn.tool_calls if not target.ids.accepts(c.id)]
    assert not [i for i in refused if f'"{i}"' in text]
    # Gemini 3: the first call of the current turn is signed (its own, or the placeholder)
    if target.api == "gemini" and turn.tool_calls:
        model_parts = [p for c in body["contents"] if c["role"] == "model" for p in c["parts"]]
        first = next(p for p in model_parts if "functionCall" in p)
        if not own:
            assert first["thoughtSignature"] == PLACEHOLDER_SIGNATURE
        else:
            assert first["thoughtSignature"] != PLACEHOLDER_SIGNATURE
    if target.model == TARGETS["gemini-openai"].model and turn.tool_calls:
        calls = [c for m in body["messages"] for c in m.get("tool_calls", [])]
        signature = calls[0]["extra_content"]["google"]["thought_signature"]
        assert (signature == PLACEHOLDER_SIGNATURE) != own
    # what was left out is named
    foreign_reasoning = any(
        isinstance(p, lb.ReasoningPart) and (p.text or p.signature or p.provider_data)
        for p in turn.content
    )
    history = [w for w in warnings if w.startswith("history:")]
    if source != target.provider and foreign_reasoning:
        assert any("reasoning part(s) from " + source in w for w in history), warnings
    if not own and any(isinstance(p, lb.RawPart) for p in turn.content):
        assert any("provider item(s)" in w for w in history), warnings
    if own:
        assert not [w for w in history if "reasoning part" in w or "provider item" in w]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("source", REPO_SOURCES)
def test_recorded_turn_continues_on_every_provider(source: str, target: str) -> None:
    provider, turn = _repo_turn(source)
    check_continuation(provider, turn, target)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("file", CORPUS_SOURCES)
def test_corpus_turn_continues_on_every_provider(file: str, target: str) -> None:
    provider, turn = _corpus_turn(file)
    check_continuation(provider, turn, target)


def test_the_sources_hold_what_the_matrix_is_about() -> None:
    """Guard against a fixture change that would make the matrix vacuous."""
    turns = {name: _repo_turn(name)[1] for name in REPO_SOURCES}
    assert turns["anthropic"].content[0].signature  # type: ignore[union-attr]
    assert any((c.provider_data or {}).get("thoughtSignature") for c in turns["gemini"].tool_calls)
    encrypted = [p for p in turns["openai-responses"].content if isinstance(p, lb.ReasoningPart)]
    assert (encrypted[0].provider_data or {}).get("encrypted_content")
    details = [p for p in turns["openrouter"].content if isinstance(p, lb.ReasoningPart)]
    assert any((p.provider_data or {}).get("reasoning_details") for p in details)
    no_calls = {"openrouter", "openrouter-text"}  # their reasoning_details are the point
    assert all(len(turns[n].tool_calls) >= 1 for n in REPO_SOURCES if n not in no_calls)
    extra = turns["gemini-openai"].tool_calls[0].provider_data or {}
    assert extra["extra_content"]["google"]["thought_signature"]
    assert turns["ollama-native"].reasoning  # Ollama's thinking, no signature
    plans = [p for p in turns["cohere"].content if isinstance(p, lb.RawPart)]
    assert plans and plans[0].data["type"] == "tool_plan"
