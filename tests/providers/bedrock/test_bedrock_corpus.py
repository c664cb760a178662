"""Every recorded ConverseStream body of ``../shared/corpus`` (F: binary event streams, Fd:
decoded event lists) decodes, at random splits, to what the manifest's expected file says
(botocore's own parser, folded), with the decoder invariants holding.

Where we differ from the reference on purpose:

* Tool calls Bedrock ran itself (``toolUse`` of type ``server_tool_use``: Nova's code
  interpreter and grounding) are in the reference's ``tool_calls``; for us they are not calls
  for the app (DESIGN.md invariant 7) but ``ProviderItem``s, checked apart, as are the
  ``toolResult`` blocks of their results.
* The reference's ``usage`` is Bedrock's own (``inputTokens`` without the cache); ours is the
  one convention (input = inputTokens + cache reads + cache writes), checked against it.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llmbridge.events import Finish
from llmbridge.frames import EventMessage
from tests.corpus import CORPUS, body, entries, expected
from tests.providers.bedrock.bedrock_helpers import check_invariants, decode, fold


def _pairs(entry: dict[str, Any]) -> list[EventMessage]:
    frames = []
    for line in (CORPUS / entry["file"]).read_text().splitlines():
        if line.strip():
            ((kind, payload),) = json.loads(line).items()
            frames.append(EventMessage("event", orjson.dumps(payload), event_type=kind))
    return frames


def _compare(entry: dict[str, Any], got: dict[str, Any]) -> None:
    want = expected(entry)
    assert want is not None and entry["expected_status"] == "ok"
    assert got["text"] == (want["text"] or "")
    assert got["reasoning"] == (want["reasoning"] or "")
    signature = want["reasoning_signature"]
    assert got["signatures"][-1:] == ([signature] if signature else [])
    assert got["redacted"] == (want["redacted_reasoning"] or [])
    server = [c for c in want["tool_calls"] if c.get("type") == "server_tool_use"]
    app = [
        {k: c[k] for k in ("id", "name", "arguments")}
        for c in want["tool_calls"]
        if c.get("type") != "server_tool_use"
    ]
    assert got["tool_calls"] == app
    uses = [i["toolUse"] for i in got["items"] if "toolUse" in i]
    assert [(u["toolUseId"], u["name"], u["input"]) for u in uses] == [
        (c["id"], c["name"], c["arguments"]) for c in server
    ]
    results = [i["toolResult"] for i in got["items"] if "toolResult" in i]
    assert results == want.get("tool_results", [])
    finish: Finish = got["finish"]
    assert finish.raw_reason == want["finish_reason"]
    usage, report = finish.usage, want["usage"]
    assert usage is not None
    read = report.get("cacheReadInputTokens", 0)
    write = report.get("cacheWriteInputTokens", 0)
    assert usage.input_tokens == report["inputTokens"] + read + write
    assert (usage.output_tokens, usage.cached_input_tokens, usage.cache_write_tokens) == (
        report["outputTokens"],
        read,
        write,
    )
    assert usage.input_tokens + usage.output_tokens == report["totalTokens"]
    data = (finish.provider_data or {}).get("bedrock", {})
    assert data.get("metrics") == want["metrics"]
    assert data.get("trace", {}).get("guardrail") == (want["guardrail_trace"] or {}).get(
        "guardrail"
    )
    assert data.get("additionalModelResponseFields") == want["additional_model_response_fields"]
    assert len(data.get("citations", [])) == (want["citations"] or 0)


@pytest.mark.parametrize("entry", entries("F"))
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_binary_streams_match_the_reference_at_random_splits(
    entry: dict[str, Any], data: Any
) -> None:
    raw = body(entry)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(raw)), max_size=12)))
    pieces = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
    events = decode(pieces, model=entry.get("model"))
    check_invariants(events)
    _compare(entry, fold(events))


@pytest.mark.parametrize("entry", entries("Fd"))
def test_decoded_event_lists_match_the_reference(entry: dict[str, Any]) -> None:
    events = decode(_pairs(entry))
    check_invariants(events)
    _compare(entry, fold(events))
