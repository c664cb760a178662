"""Conformance: every real Responses API recording (corpus category B) decodes cleanly, and
where the official SDK accumulated it, we agree on text, reasoning, tool calls, finish and usage.
"""

from __future__ import annotations

from typing import Any

import pytest

from llmbridge.events import Finish, StreamStart
from llmbridge.providers.openai_responses import ResponsesDecoder
from llmbridge.response import accumulate
from llmbridge.testing import check_invariants, decode_collect
from llmbridge.types import ReasoningPart
from tests import corpus


def _decode(entry: dict[str, Any]):  # type: ignore[no-untyped-def]
    events, error = decode_collect(ResponsesDecoder(), [corpus.body(entry)])
    return events, error


@pytest.mark.parametrize("entry", corpus.entries("B"))
def test_corpus_stream_decodes_with_invariants(entry: dict[str, Any]) -> None:
    events, error = _decode(entry)
    assert error is None, f"{type(error).__name__}: {error}"
    check_invariants(events)
    assert isinstance(events[0], StreamStart)
    assert isinstance(events[-1], Finish)


@pytest.mark.parametrize("entry", corpus.entries("B"))
def test_corpus_matches_sdk_accumulation(entry: dict[str, Any]) -> None:
    if entry["expected_status"] != "ok":
        pytest.skip(f"the SDK could not read this stream ({entry['expected_status']})")
    expected = corpus.expected(entry)
    assert expected is not None
    events, error = _decode(entry)
    assert error is None
    resp = accumulate(events, provider="openai-responses")

    assert resp.text == (expected["text"] or "")
    # One ReasoningPart per reasoning item; the SDK joins every summary with a blank line.
    reasoning = "\n\n".join(
        p.text for p in resp.message.content if isinstance(p, ReasoningPart) and p.text
    )
    assert reasoning == (expected["reasoning"] or "")
    calls = [(c.id, c.name, c.arguments) for c in resp.tool_calls]
    assert calls == [(c["id"], c["name"], c["arguments"]) for c in expected["tool_calls"]]
    item_ids = [(c.provider_data or {}).get("item_id") for c in resp.tool_calls]
    assert item_ids == [c.get("item_id") for c in expected["tool_calls"]]

    assert expected["finish_reason"] == "completed"
    assert resp.finish_reason == ("tool_calls" if expected["tool_calls"] else "stop")
    usage = expected["usage"]
    if usage is None:
        assert resp.usage is None
    else:
        assert resp.usage is not None
        assert resp.usage.input_tokens == usage["input_tokens"]
        assert resp.usage.output_tokens == usage["output_tokens"]
        details_in = usage.get("input_tokens_details") or {}
        details_out = usage.get("output_tokens_details") or {}
        assert resp.usage.cached_input_tokens == (details_in.get("cached_tokens") or 0)
        assert resp.usage.reasoning_tokens == (details_out.get("reasoning_tokens") or 0)
