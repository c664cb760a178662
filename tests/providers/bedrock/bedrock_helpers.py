"""Shared by the Bedrock tests: decode a body at given splits, fold the events for comparing."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from llmbridge.events import (
    Finish,
    ProviderItem,
    ReasoningDelta,
    StreamEvent,
    StreamStart,
    TextDelta,
    ToolCallEnd,
)
from llmbridge.frames import EventMessage
from llmbridge.providers.bedrock import BedrockDecoder
from llmbridge.response import Accumulator
from llmbridge.stream.aws_eventstream import iter_eventstream
from llmbridge.testing import invariants


def decode(
    body: bytes | Iterable[bytes] | Iterable[EventMessage], **kwargs: Any
) -> list[StreamEvent]:
    """Every event of a ConverseStream body (bytes or chunks), or of its messages."""
    decoder = BedrockDecoder(**kwargs)
    if isinstance(body, bytes):
        frames: Iterable[EventMessage] = iter_eventstream(body)
    else:
        items = list(body)
        frames = iter_eventstream(items) if items and isinstance(items[0], bytes) else items  # type: ignore[arg-type]
    events: list[StreamEvent] = []
    for frame in frames:
        events.extend(decoder.feed_frame(frame))
    events.extend(decoder.close())
    return events


def check_invariants(events: list[StreamEvent]) -> None:
    """DESIGN.md's decoder invariants (``llmbridge.testing.check_invariants``), a stream start
    first, and that the accumulator takes the events."""
    invariants.check_invariants(events)
    assert isinstance(events[0], StreamStart)
    acc = Accumulator(provider="bedrock")
    for event in events:
        acc.add(event)
    acc.response()


def fold(events: list[StreamEvent]) -> dict[str, Any]:
    """What the corpus' expected files hold, from our events."""
    finish = events[-1]
    assert isinstance(finish, Finish)
    reasoning = [e for e in events if isinstance(e, ReasoningDelta)]
    redacted = [
        e.provider_data["redacted_content"]
        for e in reasoning
        if e.provider_data and "redacted_content" in e.provider_data
    ]
    signatures = [e.signature for e in reasoning if e.signature]
    return {
        "text": "".join(e.text for e in events if isinstance(e, TextDelta)),
        "reasoning": "".join(e.text for e in reasoning),
        "signatures": signatures,
        "redacted": redacted,
        "tool_calls": [
            {"id": e.id, "name": e.name, "arguments": e.arguments}
            for e in events
            if isinstance(e, ToolCallEnd)
        ],
        "items": [e.data for e in events if isinstance(e, ProviderItem)],
        "finish": finish,
    }
