"""Checks any decoder (built-in or plug-in) can run over its output.

``check_invariants(events)`` asserts the event contract of DESIGN.md; ``merge_deltas`` folds
adjacent text / reasoning deltas so outputs of differently split inputs compare equal;
``decode_body`` / ``decode_collect`` run a decoder over raw body bytes split at chosen boundaries
(pure, no IO), framed as the provider's ``framing`` says (SSE, an AWS event stream, NDJSON, or
``whole``: one parsed answer); ``assert_split_invariant`` checks that every split gives the same events. A decoder of a typed
framing is given its frames (``llmbridge.frames``: ``feed_frame``), as the client gives them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..errors import LLMBridgeError
from ..events import (
    Finish,
    ModelSwitch,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallChunk,
    ToolCallEnd,
    ToolCallStart,
)
from ..providers.base import AnyDecoder
from ..stream.bounded import iter_sse


def _frames(framing: str) -> Callable[[Iterable[bytes]], Iterable[Any]] | None:
    """The typed frames of ``framing``'s bodies (``None``: SSE, fed ``(event, data)``)."""
    if framing == "aws-eventstream":
        from ..stream.aws_eventstream import iter_eventstream

        return iter_eventstream
    if framing == "ndjson":
        from ..stream.ndjson import iter_ndjson

        return iter_ndjson
    if framing == "whole":  # one whole answer: the parsed body is its one frame
        from ..frames import parse_whole

        return lambda chunks: [parse_whole(b"".join(chunks), provider=None)]
    return None


__all__ = [
    "assert_split_invariant",
    "check_invariants",
    "decode_body",
    "decode_collect",
    "merge_deltas",
]


def check_invariants(events: Sequence[StreamEvent], *, complete: bool = True) -> None:
    """Raise ``AssertionError`` naming the first broken invariant."""
    open_calls: dict[str, list[str]] = {}
    seen_ids: set[str] = set()
    finishes = 0
    for i, ev in enumerate(events):
        if isinstance(ev, ModelSwitch):  # a fallback model starts afresh
            assert finishes == 0, f"event {i}: model_switch after finish"
            open_calls.clear()
            seen_ids.clear()
            continue
        assert finishes == 0, f"event {i} ({ev.type}) after finish"
        if isinstance(ev, ToolCallStart):
            assert ev.id, f"event {i}: tool call without id"
            assert ev.id not in seen_ids, f"event {i}: tool call id {ev.id!r} reused"
            seen_ids.add(ev.id)
            open_calls[ev.id] = []
        elif isinstance(ev, ToolCallChunk):
            assert ev.id in open_calls, f"event {i}: chunk for call {ev.id!r} that is not open"
            open_calls[ev.id].append(ev.arguments_delta)
        elif isinstance(ev, ToolCallEnd):
            assert ev.id in open_calls, f"event {i}: end for call {ev.id!r} that is not open"
            raw = "".join(open_calls.pop(ev.id))
            assert raw == ev.raw_arguments, (
                f"event {i}: chunks {raw!r} != raw_arguments {ev.raw_arguments!r}"
            )
            if (ev.provider_data or {}).get("custom"):  # custom tool: raw text, not JSON
                assert ev.arguments == {"input": raw}, f"event {i}: custom call arguments"
            elif ev.error is None:
                parsed = json.loads(ev.raw_arguments) if ev.raw_arguments.strip() else {}
                assert parsed == ev.arguments, f"event {i}: arguments do not match raw_arguments"
        elif isinstance(ev, Finish):
            finishes += 1
            assert not open_calls, f"finish with open tool calls {sorted(open_calls)}"
    if complete:
        assert finishes == 1, f"expected exactly one finish, got {finishes}"


def merge_deltas(events: Iterable[StreamEvent]) -> list[StreamEvent]:
    """Join adjacent plain text deltas (and plain reasoning deltas) into one."""
    out: list[StreamEvent] = []
    for ev in events:
        last = out[-1] if out else None
        if isinstance(ev, TextDelta) and isinstance(last, TextDelta):
            out[-1] = TextDelta(last.text + ev.text)
        elif (
            isinstance(ev, ReasoningDelta)
            and isinstance(last, ReasoningDelta)
            and last.signature is None
            and last.provider_data is None
        ):
            out[-1] = ReasoningDelta(last.text + ev.text, ev.signature, ev.provider_data)
        else:
            out.append(ev)
    return out


def decode_body(
    decoder: AnyDecoder, chunks: Iterable[bytes], *, framing: str = "sse"
) -> list[StreamEvent]:
    """Feed raw body chunks through the framing and ``decoder``; include ``close()``."""
    events, error = decode_collect(decoder, chunks, framing=framing)
    if error is not None:
        raise error
    return events


def decode_collect(
    decoder: AnyDecoder, chunks: Iterable[bytes], *, framing: str = "sse"
) -> tuple[list[StreamEvent], LLMBridgeError | None]:
    """Like ``decode_body`` but returns the events that came before an error, and the error."""
    events: list[StreamEvent] = []
    frames = _frames(framing)
    try:
        if frames is None:
            from ..stream.framed import feeds

            _, feed = feeds(None, decoder)
            for name, data in iter_sse(chunks):
                events.extend(feed(name, data))
        else:
            from ..stream.framed import frame_feed

            typed = frame_feed(decoder)
            for frame in frames(chunks):
                events.extend(typed(frame))
        events.extend(decoder.close())
    except LLMBridgeError as exc:
        return events, exc
    return events, None


def _outcome(
    decoder: AnyDecoder, chunks: Iterable[bytes], framing: str
) -> tuple[list[StreamEvent], str | None]:
    events, error = decode_collect(decoder, chunks, framing=framing)
    return merge_deltas(events), (type(error).__name__ if error else None)


def assert_split_invariant(
    new_decoder: Callable[[], AnyDecoder],
    body: bytes,
    *,
    max_splits: int | None = None,
    framing: str = "sse",
) -> tuple[list[StreamEvent], str | None]:
    """Decode ``body`` whole, byte by byte and split at every offset; all must agree.

    Returns the merged events and the name of the error class the stream ended with (if any).
    """
    whole = _outcome(new_decoder(), [body], framing)
    bytewise = _outcome(new_decoder(), [body[i : i + 1] for i in range(len(body))], framing)
    assert bytewise == whole, "byte-by-byte decoding differs from whole-body decoding"
    offsets = range(1, len(body))
    if max_splits is not None and len(body) > max_splits:
        step = max(1, len(body) // max_splits)
        offsets = range(1, len(body), step)
    for cut in offsets:
        split = _outcome(new_decoder(), [body[:cut], body[cut:]], framing)
        assert split == whole, f"splitting the body at byte {cut} changes the events"
    return whole
