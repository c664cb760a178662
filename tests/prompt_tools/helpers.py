"""Shared helpers for the fallback tests: run the parser over chunks, normalize events."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

from llmbridge.events import StreamEvent, TextDelta, ToolCallChunk, ToolCallEnd
from llmbridge.prompt_tools import ToolCallParser
from llmbridge.testing import check_invariants

TOOLS = ("get_weather", "search", "noop")


def run(chunks: Iterable[str], **kwargs: object) -> list[StreamEvent]:
    kwargs.setdefault("tool_names", TOOLS)
    parser = ToolCallParser(**kwargs)  # type: ignore[arg-type]
    events: list[StreamEvent] = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    events.extend(parser.close())
    check_invariants(events, complete=False)
    return events


def split(text: str, cuts: Iterable[int]) -> list[str]:
    points = sorted({c for c in cuts if 0 < c < len(text)})
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def chars(text: str) -> list[str]:
    return list(text)


def normalize(events: Sequence[StreamEvent]) -> list[StreamEvent]:
    """Merge adjacent text deltas and adjacent chunks of the same call (h11-style compare)."""
    out: list[StreamEvent] = []
    for ev in events:
        last = out[-1] if out else None
        if isinstance(ev, TextDelta) and isinstance(last, TextDelta):
            out[-1] = TextDelta(last.text + ev.text)
        elif isinstance(ev, ToolCallChunk) and isinstance(last, ToolCallChunk) and last.id == ev.id:
            out[-1] = ToolCallChunk(last.id, last.index, last.arguments_delta + ev.arguments_delta)
        else:
            out.append(ev)
    return out


def text_of(events: Sequence[StreamEvent]) -> str:
    return "".join(ev.text for ev in events if isinstance(ev, TextDelta))


def ends(events: Sequence[StreamEvent]) -> list[ToolCallEnd]:
    return [ev for ev in events if isinstance(ev, ToolCallEnd)]


def all_splits(doc: str) -> list[list[str]]:
    """The text whole, one character at a time, and cut once at every offset."""
    return [[doc], chars(doc), *(split(doc, [c]) for c in range(1, len(doc)))]


def same_everywhere(doc: str, **kwargs: object) -> list[StreamEvent]:
    """Events of ``doc`` (normalized), checked to be the same for every split."""
    whole = normalize(run([doc], **kwargs))
    for chunks in all_splits(doc):
        assert normalize(run(chunks, **kwargs)) == whole, chunks
    return whole
