"""The inlined delta fast path reads odd shapes exactly like the careful handlers: skipped."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from llmbridge.events import TextDelta, ToolCallChunk
from llmbridge.providers.anthropic import AnthropicDecoder

ODD: list[Any] = [
    {"type": "content_block_delta", "index": "0", "delta": {"type": "text_delta", "text": "x"}},
    {"type": "content_block_delta", "index": 7, "delta": {"type": "text_delta", "text": "x"}},
    {"type": "content_block_delta", "index": [0], "delta": {"type": "text_delta", "text": "x"}},
    {"type": "content_block_delta", "index": 0, "delta": ["text_delta"]},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 5}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta"}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta"}},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "x"}},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta"}},
    {"type": "content_block_delta", "index": 0, "delta": "text"},
    {"type": "content_block_delta"},
]


def _open_decoder() -> AnthropicDecoder:
    decoder = AnthropicDecoder()
    for payload in (
        {"type": "message_start", "message": {"id": "m", "model": "x", "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}},
        },
    ):
        decoder.feed(payload["type"], orjson.dumps(payload).decode())
    return decoder


@pytest.mark.parametrize("payload", ODD)
def test_odd_delta_shapes_are_skipped_and_the_stream_goes_on(payload: Any) -> None:
    decoder = _open_decoder()
    assert decoder.feed("content_block_delta", orjson.dumps(payload).decode()) == []
    text = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "a"}}
    args = {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "input_json_delta", "partial_json": "{}"},
    }
    assert decoder.feed("content_block_delta", orjson.dumps(text).decode()) == [TextDelta("a")]
    assert decoder.feed("content_block_delta", orjson.dumps(args).decode()) == [
        ToolCallChunk("t", 0, "{}")
    ]
