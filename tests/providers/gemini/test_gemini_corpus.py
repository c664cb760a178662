"""Conformance: every real Gemini / Vertex SSE recording of corpus category D.

Compared with what google-genai 3.4 accumulated from the same bytes (``.expected.json``):
text, reasoning, tool calls (name, arguments, id when Gemini gave one), finish reason mapped to
ours, usage under our convention. The ``json_array_stream`` recordings answer the non-SSE
endpoint, which llmbridge does not use: they are skipped.
"""

from __future__ import annotations

from typing import Any

import pytest

from llmbridge.events import Usage
from llmbridge.providers.gemini import GeminiDecoder
from llmbridge.providers.gemini.finish_reasons import map_finish_reason
from llmbridge.response import accumulate
from llmbridge.testing import assert_split_invariant, check_invariants, decode_collect
from tests import corpus


def _usage(sdk: dict[str, Any]) -> Usage:
    thoughts = sdk.get("thoughts_token_count") or 0
    return Usage(
        input_tokens=(sdk.get("prompt_token_count") or 0)
        + (sdk.get("tool_use_prompt_token_count") or 0),
        output_tokens=(sdk.get("candidates_token_count") or 0) + thoughts,
        cached_input_tokens=sdk.get("cached_content_token_count") or 0,
        reasoning_tokens=thoughts,
    )


@pytest.mark.parametrize("entry", corpus.entries("D"))
def test_recording_matches_the_sdk(entry: dict[str, Any]) -> None:
    if "json_array_stream" in entry["contains"]:
        pytest.skip("the non-SSE JSON-array endpoint is not used by llmbridge")
    provider = "vertex" if entry["file"].startswith("D_vertex") else "gemini"
    events, error = decode_collect(GeminiDecoder(provider=provider), [corpus.body(entry)])
    assert error is None, error
    check_invariants(events)
    got = accumulate(events, provider=provider)
    expected = corpus.expected(entry)
    assert expected is not None and entry["expected_status"] == "ok"

    assert got.text == (expected["text"] or "")
    if expected.get("reasoning"):
        assert got.reasoning == expected["reasoning"]
    sdk_calls = expected["tool_calls"]
    if any("partial_args" in c or "will_continue" in c for c in sdk_calls):
        # The SDK lists each streamed fragment as its own call; a call starts on a named one.
        assert [c.name for c in got.tool_calls] == [c["name"] for c in sdk_calls if c["name"]]
        assert all(c.arguments for c in got.tool_calls if c.name != "read_theme")
    else:
        assert [(c.name, c.arguments) for c in got.tool_calls] == [
            (c["name"], c["arguments"] or {}) for c in sdk_calls
        ]
        for ours, theirs in zip(got.tool_calls, sdk_calls, strict=True):
            if theirs["id"]:
                assert ours.id == theirs["id"]
    assert got.finish_reason == map_finish_reason(
        expected["finish_reason"], had_tool_calls=bool(sdk_calls)
    )
    assert got.usage == (_usage(expected["usage"]) if expected.get("usage") else None)


@pytest.mark.parametrize("entry", corpus.entries("D", framing="verbatim"))
def test_recording_split_invariance(entry: dict[str, Any]) -> None:
    if "json_array_stream" in entry["contains"]:
        pytest.skip("the non-SSE JSON-array endpoint is not used by llmbridge")
    assert_split_invariant(
        lambda: GeminiDecoder(provider="gemini"), corpus.body(entry), max_splits=60
    )
