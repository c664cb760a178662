"""Conformance over real recordings: corpus categories A (OpenAI Chat Completions) and E
(OpenAI-compatible servers). Every stream decodes with the invariants held, split-invariant,
and agrees with what the official SDK accumulated (``.expected.json``) where it could; where
the SDK failed on a quirk (list-typed content, a first index of 1) we must still succeed.
"""

from __future__ import annotations

from typing import Any

import pytest

from llmbridge.errors import APIError
from llmbridge.providers.openai import ChatCompletionsDecoder
from llmbridge.providers.openai.finish_reasons import map_finish_reason
from llmbridge.providers.openai.usage import convert_usage
from llmbridge.response import accumulate
from llmbridge.testing import assert_split_invariant, check_invariants, decode_collect
from tests import corpus

ENTRIES = corpus.entries("A") + corpus.entries("E")

# Where the SDK's accumulation is wrong and we do the right thing on purpose: the calls we give.
SDK_WRONG = {
    # `arguments: null` for a parameterless call: the SDK keeps None, we give {}.
    "A_openai/test_tools_streaming_variant_d__i0.sse": [("0", "llm_version", {})],
    # Cerebras sends two whole calls, both at `index: 0` with distinct ids: the SDK glues them
    # into one call named "nonUsefulToolnonUsefulTool" with arguments "{}{}"; we split by id.
    "E_cerebras/cererebras-structured-output-tools.1.sse": [
        ("bbd2b9d98", "nonUsefulTool", {}),
        ("e0ecf32e0", "nonUsefulTool", {}),
    ],
}


def _decode(entry: dict[str, Any]):  # type: ignore[no-untyped-def]
    use_index = entry["provider"] not in ("mistral",)
    return decode_collect(
        ChatCompletionsDecoder(provider=entry["provider"], use_index=use_index),
        [corpus.body(entry)],
    )


@pytest.mark.parametrize("entry", ENTRIES)
def test_corpus_stream_matches_the_sdk(entry: dict[str, Any]) -> None:
    events, error = _decode(entry)
    check_invariants(events, complete=error is None)
    expected = corpus.expected(entry)
    status = entry["expected_status"]
    if status.startswith("sdk_error: APIError"):
        # An in-band error event (Groq) or error chunk (OpenRouter): typed, after the events.
        assert isinstance(error, APIError)
        return
    assert error is None, f"{type(error).__name__}: {error}"
    if status != "ok" or expected is None:
        # The SDK crashed on this stream (list-typed content, first index 1); we must not.
        assert accumulate(events).finish_reason is not None
        return
    ours = accumulate(events)
    assert ours.text == (expected["text"] or "") + (expected.get("refusal") or "")
    if expected.get("reasoning"):
        assert ours.reasoning == expected["reasoning"]
    got_calls = [(c.id, c.name, c.arguments) for c in ours.tool_calls]
    want_calls = SDK_WRONG.get(entry["file"]) or [
        (c["id"], c["name"], c["arguments"]) for c in expected["tool_calls"]
    ]
    assert got_calls == want_calls
    assert ours.finish_reason == map_finish_reason(
        expected["finish_reason"], had_tool_calls=bool(want_calls)
    )
    assert ours.raw_finish_reason == expected["finish_reason"]
    if expected.get("usage"):
        assert ours.usage == convert_usage(expected["usage"])


@pytest.mark.parametrize("entry", ENTRIES)
def test_corpus_stream_is_split_invariant(entry: dict[str, Any]) -> None:
    use_index = entry["provider"] not in ("mistral",)
    assert_split_invariant(
        lambda: ChatCompletionsDecoder(provider=entry["provider"], use_index=use_index),
        corpus.body(entry),
        max_splits=40,
    )
