"""Conformance over real recorded Anthropic streams (corpus category C).

Each recording decodes without breaking the event invariants, split anywhere gives the same
events, and where the official SDK accumulated the same bytes (``expected_status == "ok"``)
we agree on text, reasoning, app tool calls, stop reason and usage (our convention).

Where we knowingly differ from the SDK (asserted, with the reason):
* bodies that concatenate several messages: the SDK appends each message's blocks by index
  into one snapshot (text of the second message lands inside the first's block, tool inputs
  collide) and keeps only the last usage; we continue one response in order and add the
  usages of the separate messages;
* a message_start for another message while one is open (a spliced stream): the SDK mixes the
  two; we raise ``MalformedStreamError`` (as vercel/ai does).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from llmbridge.errors import MalformedStreamError
from llmbridge.providers.anthropic import AnthropicDecoder
from llmbridge.providers.anthropic.finish_reasons import map_finish_reason
from llmbridge.response import accumulate
from llmbridge.testing import assert_split_invariant, check_invariants, decode_collect
from llmbridge.types import RawPart
from tests.corpus import body, entries, expected, missing

ENTRIES = entries("C")


def _payloads(raw: bytes) -> list[dict[str, Any]]:
    lines = raw.decode().splitlines()
    return [json.loads(line[5:]) for line in lines if line.startswith("data:")]


@pytest.mark.parametrize("entry", ENTRIES)
def test_recording_decodes_with_invariants(entry: dict[str, Any]) -> None:
    raw = body(entry)
    events, error = decode_collect(AnthropicDecoder(), [raw])
    if "spliced" in entry["file"]:
        assert isinstance(error, MalformedStreamError)
        return
    assert error is None, error
    check_invariants(events)
    assert_split_invariant(AnthropicDecoder, raw, max_splits=60)


@pytest.mark.parametrize("entry", ENTRIES)
def test_recording_matches_sdk_accumulation(entry: dict[str, Any]) -> None:
    want = expected(entry)
    if want is None or entry["expected_status"] != "ok" or "spliced" in entry["file"]:
        pytest.skip("no SDK result to compare")
    raw = body(entry)
    events, error = decode_collect(AnthropicDecoder(), [raw])
    assert error is None
    got = accumulate(events, provider="anthropic")
    concatenated = len({*(got.provider_data or {}).get("anthropic", {}).get("message_ids", [])}) > 1
    assert got.finish_reason == map_finish_reason(want["finish_reason"])
    assert got.raw_finish_reason == want["finish_reason"]
    assert got.reasoning == (want["reasoning"] or "")
    app_calls = [c for c in want["tool_calls"] if not c.get("server_side")]
    if concatenated:  # the SDK mixes messages up (module docstring): check against the raw events
        payloads = _payloads(raw)
        texts = [
            p["delta"]["text"] for p in payloads if p.get("delta", {}).get("type") == "text_delta"
        ]
        blocks = [
            b
            for p in payloads
            for b in (
                [p["content_block"]]
                if p.get("type") == "content_block_start"
                else p.get("message", {}).get("content") or []
            )
        ]
        tools = [b["id"] for b in blocks if b["type"] == "tool_use"]
        assert got.text == "".join(texts)
        assert [c.id for c in got.tool_calls] == tools
        return
    assert got.text == (want["text"] or "")
    assert [(c.id, c.name, c.arguments) for c in got.tool_calls] == [
        (c["id"], c["name"], c["arguments"]) for c in app_calls
    ]
    usage = want["usage"]
    # compaction iterations are model calls the top-level counts leave out: added (the
    # documented totals; providers/anthropic/compaction.py)
    extra = [i for i in usage.get("iterations") or [] if i["type"] == "compaction"]
    read = sum(u.get("cache_read_input_tokens") or 0 for u in (usage, *extra))
    write = sum(u.get("cache_creation_input_tokens") or 0 for u in (usage, *extra))
    assert got.usage is not None
    assert got.usage.input_tokens == sum(u["input_tokens"] for u in (usage, *extra)) + read + write
    assert got.usage.cached_input_tokens == read and got.usage.cache_write_tokens == write
    assert got.usage.output_tokens == sum(u["output_tokens"] for u in (usage, *extra))
    server_calls = [c["id"] for c in want["tool_calls"] if c.get("server_side")]
    kept = [p.data for p in got.message.content if isinstance(p, RawPart)]
    assert [b["id"] for b in kept if b.get("id") in server_calls] == server_calls


def test_sequential_messages_recording_continues_one_response() -> None:
    entry = next((e.values[0] for e in ENTRIES if "sequential-messages" in str(e.values[0])), None)
    if entry is None:
        missing()
    events, error = decode_collect(AnthropicDecoder(), [body(entry)])
    assert error is None  # the SDK fails on this body with an AttributeError
    resp = accumulate(events)
    assert resp.text == "firstsecond"
    assert resp.usage is not None and (resp.usage.input_tokens, resp.usage.output_tokens) == (21, 5)
