"""Cross-check: every fixture body through the official SDK's stream accumulator.

The ``anthropic`` SDK (dev-only) folds the same events with its pure ``accumulate_event``;
its final message must agree with ``accumulate(our_events)`` on text, thinking and
signatures, redacted thinking, app tool calls, server tool blocks, stop reason and usage
(ours adds cache reads / writes to ``input_tokens`` by the project convention).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from llmbridge.providers.anthropic import AnthropicDecoder
from llmbridge.response import accumulate
from llmbridge.testing import decode_collect, iter_sse, load_fixture
from llmbridge.types import RawPart, ReasoningPart

streaming = pytest.importorskip("anthropic.lib.streaming._messages")

FIXTURES = sorted(
    (Path(__file__).resolve().parents[3] / "fixtures" / "anthropic").glob("*/input.json")
)


def _sdk_message(body: bytes) -> Any:
    snapshot, bufs = None, {}
    for _, data in list(iter_sse(body)):
        event = orjson.loads(data)
        if event["type"] in ("ping", "error"):
            continue
        snapshot = streaming.accumulate_event(
            event=event, current_snapshot=snapshot, json_bufs=bufs
        )
    return snapshot


@pytest.mark.parametrize(
    "path", [p.parent for p in FIXTURES], ids=[p.parent.name for p in FIXTURES]
)
def test_fixture_agrees_with_sdk_accumulator(path: Path) -> None:
    fx = load_fixture(path)
    events, error = decode_collect(AnthropicDecoder(), [fx.body])
    ours = accumulate(events, provider="anthropic")
    sdk = _sdk_message(fx.body)
    blocks = sdk.content
    assert ours.text == "".join(b.text for b in blocks if b.type == "text")
    thinking = [b for b in blocks if b.type == "thinking"]
    assert ours.reasoning == "".join(b.thinking for b in thinking)
    parts = [p for p in ours.message.content if isinstance(p, ReasoningPart)]
    assert [p.signature for p in parts if p.signature] == [
        b.signature for b in thinking if b.signature
    ]
    redacted = [b.data for b in blocks if b.type == "redacted_thinking"]
    assert [p.provider_data["data"] for p in parts if p.provider_data] == redacted
    assert [(c.id, c.name, c.arguments) for c in ours.tool_calls] == [
        (b.id, b.name, b.input) for b in blocks if b.type == "tool_use"
    ]
    # provider-run blocks are RawParts in stream order, each the block the SDK built
    kept = [p.data for p in ours.message.content if isinstance(p, RawPart)]
    app_types = {"text", "thinking", "redacted_thinking", "tool_use"}
    sdk_kept = [b.to_dict() for b in blocks if b.type not in app_types]
    assert [k["type"] for k in kept] == [b["type"] for b in sdk_kept]
    # Where the SDK knows the block (server tools and their results) the data is identical.
    # For block types it does not know it ignores their string deltas, which we append to the
    # field (the documented delta rule), so only the types are compared there.
    known = ("server_tool_use", "_tool_result", "mcp_tool_use")
    assert [k for k in kept if k["type"].endswith(known)] == [
        b for b in sdk_kept if b["type"].endswith(known)
    ]
    if error is not None:  # mid-stream error: the SDK raises there; the partial text matched
        assert ours.finish_reason is None
        return
    assert ours.raw_finish_reason == sdk.stop_reason
    u = sdk.usage
    read, write = u.cache_read_input_tokens or 0, u.cache_creation_input_tokens or 0
    assert ours.usage is not None
    assert ours.usage.input_tokens == u.input_tokens + read + write
    assert (ours.usage.cached_input_tokens, ours.usage.cache_write_tokens) == (read, write)
    assert ours.usage.output_tokens == u.output_tokens
    details = u.output_tokens_details
    assert ours.usage.reasoning_tokens == (details.thinking_tokens if details else 0)
