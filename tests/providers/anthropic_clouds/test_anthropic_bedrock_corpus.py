"""Claude on Bedrock (``anthropic-bedrock``): every Anthropic recording of corpus G decodes.

Each ``InvokeModelWithResponseStream`` body (binary AWS event stream) is framed by botocore
exactly as the transport frames it (``iter_eventstream``), split at random offsets, and its
``chunk`` frames go through the Anthropic decoder (``BedrockAnthropicDecoder``). The result must
equal what the official ``AnthropicBedrock`` client accumulated from the same bytes
(``expected_file``): text, reasoning and its signature, tool calls, stop reason, usage (our
convention: cache reads and writes are part of ``input_tokens``).

Out of scope, skipped with the reason: other model families' bodies in G (Titan, Nova, Llama,
Cohere, Mistral) and the legacy Text Completions body (``anthropic.completions``): their chunks
are not Anthropic Messages events, and ``anthropic-bedrock`` sends the Messages API only.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from llmbridge.events import Finish, StreamEvent
from llmbridge.messages import ReasoningPart
from llmbridge.providers.anthropic.finish_reasons import map_finish_reason
from llmbridge.providers.anthropic_clouds.bedrock_stream import BedrockAnthropicDecoder
from llmbridge.response import accumulate
from llmbridge.testing import check_invariants
from llmbridge.testing.invariants import merge_deltas
from tests.corpus import body, entries, expected, missing

pytest.importorskip("botocore")
from llmbridge.stream.aws_eventstream import iter_eventstream

ENTRIES = entries("G")


def _family(entry: dict[str, Any]) -> str:
    tags = [t for t in entry["contains"] if t.startswith("model_family:")]
    return tags[0].partition(":")[2] if tags else "unknown"


def _decode(raw: bytes, cuts: list[int]) -> list[StreamEvent]:
    chunks = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
    decoder = BedrockAnthropicDecoder(provider="anthropic-bedrock")
    events: list[StreamEvent] = []
    for message in iter_eventstream(chunks):
        events.extend(decoder.feed_frame(message))
    events.extend(decoder.close())
    return events


@pytest.mark.parametrize("entry", ENTRIES)
def test_anthropic_recording_decodes_like_the_sdk(entry: dict[str, Any]) -> None:
    if _family(entry) != "anthropic.messages":
        pytest.skip(f"{_family(entry)} chunks are not Anthropic Messages events (out of scope)")
    raw = body(entry)
    want = expected(entry)
    assert want is not None and entry["expected_status"] == "ok"
    whole = _decode(raw, [])
    check_invariants(whole)
    rng = random.Random(entry["file"])
    for _ in range(8):  # random splits, one byte at a time included
        cuts = sorted(rng.sample(range(1, len(raw)), min(len(raw) - 1, rng.randint(1, 40))))
        assert merge_deltas(_decode(raw, cuts)) == merge_deltas(whole)
    got = accumulate(whole, provider="anthropic-bedrock")
    assert got.text == (want["text"] or "")
    assert got.reasoning == (want["reasoning"] or "")
    signatures = [p.signature for p in got.message.content if isinstance(p, ReasoningPart)]
    if want.get("reasoning_signature"):
        assert want["reasoning_signature"] in signatures
    assert [(c.id, c.name, c.arguments) for c in got.tool_calls] == [
        (c["id"], c["name"], c["arguments"]) for c in want["tool_calls"]
    ]
    assert got.raw_finish_reason == want["finish_reason"]
    assert got.finish_reason == map_finish_reason(want["finish_reason"])
    usage = want["usage"]
    read = usage.get("cache_read_input_tokens") or 0
    write = usage.get("cache_creation_input_tokens") or 0
    assert got.usage is not None
    assert got.usage.input_tokens == usage["input_tokens"] + read + write
    assert (got.usage.cached_input_tokens, got.usage.cache_write_tokens) == (read, write)
    assert got.usage.output_tokens == usage["output_tokens"]
    finish = whole[-1]
    assert isinstance(finish, Finish)
    metrics = (finish.provider_data or {}).get("bedrock", {}).get("invocation_metrics")
    assert metrics == want["invocation_metrics"]


def test_corpus_has_anthropic_recordings() -> None:
    found = [e for p in ENTRIES for e in p.values if e and _family(e) == "anthropic.messages"]
    if not ENTRIES or ENTRIES[0].values[0] is None:
        missing()
    assert len(found) >= 200
