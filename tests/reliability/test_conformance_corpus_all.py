"""One cross-provider pass over every real recording in ``../shared/corpus`` (skips when absent).

Each manifest entry is routed by its ``api`` to the provider that speaks it — built through the
registry, as the client would (presets included, so a preset's decoder quirks are exercised),
falling back to ``openai-compatible`` for servers without a preset. Checks held for all: only
``LLMBridgeError`` may escape, the event invariants hold (``check_invariants``), a recording the
official SDK read fine (``expected_status == "ok"``) decodes without error and ends in one
``Finish`` whose text agrees with the SDK's. The detailed per-field comparisons live in the
per-provider suites under ``tests/providers/*``; this suite guarantees nothing is left out.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Any

import pytest

import llmbridge as lb
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.base import Decoder
from llmbridge.providers.registry import available_providers
from llmbridge.response import accumulate
from llmbridge.testing import check_invariants, decode_collect
from tests import corpus

ROUTES: dict[str, str | None] = {
    "openai.chat.completions": "chat",
    "openai.chat.completions(compatible)": "chat",
    "openai.responses": "openai-responses",
    "anthropic.messages": "anthropic",
    "gemini.streamGenerateContent": "gemini",
    "gemini.streamGenerateContent(json-array)": None,  # the non-SSE endpoint: not used
    "bedrock.converse_stream": "bedrock",  # AWS event streams (Fd: already decoded, see below)
    "bedrock.invoke_model_with_response_stream": "anthropic-bedrock",  # G: Claude's chunks only
    "ollama.chat": "ollama-native",  # H: NDJSON
    "ollama.generate": "ollama-native",  # H: /api/generate lines, read by the same decoder
    "cohere.v2.chat": "cohere",  # I
}
OUT_OF_SCOPE: dict[tuple[str, str], str] = {
    ("D", "gemini.streamGenerateContent(json-array)"): "Gemini's non-SSE stream endpoint (a "
    "JSON array), which llmbridge does not call",
    ("Fd", "decoded_events"): "Converse events without their wire framing: "
    "tests/providers/bedrock/test_bedrock_corpus.py feeds them to the decoder",
    **{
        ("G", family): "InvokeModelWithResponseStream chunks in a non-Anthropic model family's "
        "own format: llmbridge reaches these models through Converse (bedrock:), whose one "
        "decoder serves them all; no InvokeModel decoder per family is built"
        for family in (
            "amazon.nova",
            "amazon.titan",
            "cohere.command",
            "meta.llama",
            "mistral",
            "anthropic.completions",  # Claude v2's legacy Text Completions chunks
        )
    },
}
"""(category, api / framing / model family) left unrouted on purpose, with the reason."""
CONFIG: dict[str, dict[str, Any]] = {
    "azure": {"base_url": "https://contoso.openai.azure.com"},
    "openai-compatible": {"base_url": "https://llm.example.test/v1"},
    "vertex": {"project": "demo-project", "location": "global"},
    "bedrock": {"region": "us-east-1"},
    "anthropic-bedrock": {"region": "us-east-1"},
}
# Recordings whose expected outcome is an error although the SDK read them (see the
# per-provider suites): Anthropic streams spliced from two messages.
EXPECTED_ERRORS = {
    "C_anthropic/spliced-message-start.sse": lb.MalformedStreamError,
    "C_anthropic/issue-18331-spliced-message-start__ce3aaaf.sse": lb.MalformedStreamError,
}
# Where our text knowingly differs from the SDK's (kept in step with the per-provider suites):
# the ChatGPT Codex backend ends with a ``response.completed`` whose ``output`` is empty, and the
# SDK takes its text from there (""), while the text did stream; one Azure recording had its
# deltas hand-edited upstream ("XXXX…") so they disagree with the done item the SDK reads.
SDK_TEXT_DIFFERS = {
    "B_chatgpt_codex/test_openai_codex_agent_run__i0__690c27e.sse",
    "B_chatgpt_codex/test_openai_codex_agent_run_stream__i0__690c27e.sse",
    "B_chatgpt_codex/test_openai_codex_drops_generic_settings_the_backend_rejects__i0__690c27e.sse",
    "B_chatgpt_codex/test_openai_codex_tool_call_round_trip__i1__690c27e.sse",
    "B_openai/azure-gpt5-reasoning-multi-summary-no-encryption__e76dafc.sse",
}
REQUEST = lb.ChatRequest(model="any-model", messages=[lb.ChatMessage.user("hi")])


def provider_name(entry: dict[str, Any]) -> str | None:
    if entry["framing"] == "decoded_events":  # Fd: events without their wire framing
        return None  # (tests/providers/bedrock/test_bedrock_corpus.py feeds them to the decoder)
    route = ROUTES[entry["api"]]
    if route == "anthropic-bedrock" and "model_family:anthropic.messages" not in entry["contains"]:
        return None  # Titan, Nova, Llama, Cohere, Mistral, legacy Text Completions chunks
    if route == "chat":
        name = entry["provider"]
        return name if name in available_providers() else "openai-compatible"
    if route == "gemini" and entry["file"].startswith("D_vertex"):
        return "vertex"
    return route


@cache
def _provider(name: str) -> Any:
    config = ProviderConfig.from_mapping({"api_key": "test-key", **CONFIG.get(name, {})})
    return create_provider(name, config)


def new_decoder(entry: dict[str, Any]) -> Decoder:
    name = provider_name(entry)
    assert name is not None
    return _provider(name).new_decoder(REQUEST)  # type: ignore[no-any-return]


STREAM_CATEGORIES = ("A", "B", "C", "D", "E", "F", "Fd", "G", "H", "I")
"""The corpus's streamed bodies; J–M (whole responses, embeddings, Interactions, batches) are
read by their own suites: J (and J_err) by ``tests/whole/test_whole_corpus.py``, which routes
each whole body to its provider's whole decoder and checks that every J entry is routed."""


def _all_entries() -> list[Any]:
    params: list[Any] = []
    for category in STREAM_CATEGORIES:
        params.extend(corpus.entries(category))
    return params


ENTRIES = _all_entries()


@pytest.mark.parametrize("entry", ENTRIES)
def test_every_recording_decodes_within_the_contract(entry: dict[str, Any]) -> None:
    if provider_name(entry) is None:
        pytest.skip(f"out of scope: {OUT_OF_SCOPE.get(_scope_key(entry), 'no reason given')}")
    raw = corpus.body(entry)
    framing = getattr(_provider(provider_name(entry) or ""), "framing", "sse")
    try:
        events, error = decode_collect(new_decoder(entry), [raw], framing=framing)
    except Exception as exc:  # pragma: no cover - the failure message is the point
        pytest.fail(f"a non-llmbridge exception escaped the decoder: {exc!r}")
    check_invariants(events, complete=error is None)
    want_error = EXPECTED_ERRORS.get(entry["file"])
    if want_error is not None:
        assert isinstance(error, want_error), repr(error)
        return
    if entry["expected_status"] != "ok":
        return  # the SDK failed here; any typed outcome with the invariants held is fine
    assert error is None, f"{entry['file']}: {error!r}"
    assert isinstance(events[-1], lb.Finish)
    expected = corpus.expected(entry)
    if expected is not None and entry["file"] not in SDK_TEXT_DIFFERS:
        got = accumulate(events, provider=provider_name(entry) or "")
        if (expected.get("text") or "") != got.text:
            assert _is_concatenation(raw), f"{entry['file']}: text differs from the SDK's"


def _is_concatenation(raw: bytes) -> bool:
    """Anthropic bodies holding several messages (the SDK merges them by block index)."""
    return raw.count(b'"type":"message_start"') + raw.count(b'"type": "message_start"') > 1


def test_the_whole_corpus_is_routed() -> None:
    if not corpus.present():
        corpus.missing()
    items = [e for e in corpus.manifest() if e["category"] in STREAM_CATEGORIES]
    assert len(ENTRIES) == len(items), "every streamed manifest entry is a test case"
    unknown = {e["api"] for e in items} - set(ROUTES)
    assert not unknown, f"recordings of an api nobody routes: {unknown}"
    routed = Counter(provider_name(e) for e in items)
    assert sum(n for name, n in routed.items() if name is not None) >= 350
    assert {"anthropic", "gemini", "openai", "openai-responses", "vertex"} <= set(routed)
    assert {"ollama-native", "cohere"} <= set(routed)
    unrouted = {_scope_key(e): e["file"] for e in items if provider_name(e) is None}
    unexplained = {key: file for key, file in unrouted.items() if key not in OUT_OF_SCOPE}
    assert not unexplained, f"recordings nobody reads, with no reason given: {unexplained}"


def _scope_key(entry: dict[str, Any]) -> tuple[str, str]:
    """The ``OUT_OF_SCOPE`` key of an unrouted entry."""
    if entry["framing"] == "decoded_events":
        return entry["category"], "decoded_events"
    families = [c.split(":", 1)[1] for c in entry["contains"] if c.startswith("model_family:")]
    if entry["category"] == "G" and families:
        return "G", families[0]
    return entry["category"], entry["api"]
