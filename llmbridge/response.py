"""The accumulator: a pure fold of stream events into a ``ChatResponse``.

Rules: the accumulator is the single place that turns events into a response. It is used by
``Client.complete()``, by the partial response attached to errors, and by apps and tests. It
checks the event invariants of DESIGN.md as it folds and raises ``EventOrderError`` when a
decoder breaks one (that is a decoder bug, never a provider quirk to hide). ``add`` matches
every event class and ends in ``assert_never``, so a new event type is a type error here, not
an event silently dropped. A ``TextPhase`` closes the open text run; the text after it is
a part of its own whose ``provider_data["phase"]`` says its phase (commentary, final answer).
A ``ModelSwitch`` (a fallback model took over) starts the fold
afresh, and a ``StreamStart`` naming its ``provider`` says whose reasoning and items follow, so
only the answering model's events are folded and they are tagged with its provider.
``compact()`` joins the open runs' pieces (the stream's record calls it every few thousand
events, so a partial response's memory follows its content). ``ChatResponse`` is a
ground-floor shape (``llmbridge.messages``), re-exported here.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any, NoReturn

from .errors import EventOrderError
from .events import (
    ApprovalRequest,
    Citation,
    CodeOutput,
    Finish,
    GeneratedImage,
    ModelSwitch,
    PartialObject,
    ProviderItem,
    ReasoningDelta,
    StreamEvent,
    StreamStart,
    TextDelta,
    TextPhase,
    ToolCallChunk,
    ToolCallEnd,
    ToolCallStart,
    ToolSearchCall,
)
from .messages import ChatMessage
from .messages import ChatResponse as ChatResponse
from .parts import ContentPart, RawPart, ReasoningPart, TextPart, ToolCallPart

__all__ = [
    "Accumulator",
    "accumulate",
]

if sys.version_info >= (3, 11):
    from typing import assert_never
else:  # pragma: no cover - Python 3.10

    def assert_never(value: NoReturn, /) -> NoReturn:
        raise AssertionError(f"Expected code to be unreachable, but got: {value!r}")


class _OpenCall:
    __slots__ = ("chunks", "id", "index", "name", "packed", "slot")

    def __init__(self, start: ToolCallStart, slot: int) -> None:
        self.id = start.id
        self.name = start.name
        self.index = start.index
        self.slot = slot
        self.chunks: list[str] = []
        self.packed = 0  # chunks[:packed] are joined blocks (``compact``)


def _pack(pieces: list[str], packed: int) -> int:
    """Join ``pieces[packed:]`` into one string; the new count of joined blocks."""
    if len(pieces) - packed > 1:
        pieces[packed:] = ["".join(pieces[packed:])]
    return len(pieces)


class Accumulator:
    """Fold events one at a time; ``response()`` gives the response so far."""

    def __init__(self, *, provider: str | None = None) -> None:
        self.provider = provider
        self._reset()

    def _reset(self) -> None:
        self._parts: list[ContentPart | None] = []
        self._text: list[str] | None = None  # open text run
        self._text_slot = -1
        self._text_packed = 0
        self._phase: str | None = None  # the phase of the text that follows (TextPhase)
        self._reasoning: list[str] | None = None  # open reasoning run
        self._reasoning_packed = 0
        self._reasoning_part: ReasoningPart | None = None
        self._calls: dict[str, _OpenCall] = {}
        self._seen_ids: set[str] = set()
        self._finish: Finish | None = None
        self._start: StreamStart | None = None
        self._hosted: list[Citation | ApprovalRequest | CodeOutput | GeneratedImage] = []
        self._searches: list[ToolSearchCall] = []
        # Searches still waiting for their result, by position: every one (for a result
        # without an id) and per id. Answered ones are skipped when they reach the top, so
        # each search is pushed and popped once (a scan of every search per result was
        # quadratic: 8,000 searches and their results took 1.8 s).
        self._waiting: list[int] = []
        self._waiting_by_id: dict[str, list[int]] = {}

    @property
    def finished(self) -> bool:
        return self._finish is not None

    def compact(self) -> None:
        """Join the pieces the open text and reasoning runs and tool calls got since the last
        call into one string each, so memory follows the content (a list of one-character
        deltas costs about 60 bytes a delta). For a long fold, every few thousand events."""
        if self._text is not None:
            self._text_packed = _pack(self._text, self._text_packed)
        if self._reasoning is not None:
            self._reasoning_packed = _pack(self._reasoning, self._reasoning_packed)
        for call in self._calls.values():
            call.packed = _pack(call.chunks, call.packed)

    def add(self, event: StreamEvent) -> None:
        if type(event) is ModelSwitch:  # a fallback model starts afresh: fold only its events
            self._reset()
            return
        if self._finish is not None:
            raise EventOrderError(f"{event.type} after finish")
        # Deltas are nearly every event: exact type tests take them first, since on Python 3.11
        # a class pattern allocates on every match (~30 ns an event, measured). The match is
        # the exhaustive dispatch (assert_never) and also takes subclasses.
        if type(event) is TextDelta:
            run = self._text if self._text is not None else self._open_text()
            run.append(event.text)
            return
        if type(event) is ToolCallChunk:
            self._open_call(event.id).chunks.append(event.arguments_delta)
            return
        if type(event) is ReasoningDelta:
            self._add_reasoning(event)
            return
        self._add_other(event)

    def _add_other(self, event: StreamEvent) -> None:
        """Every event but the deltas' fast paths: the exhaustive dispatch (``assert_never``),
        which also takes subclasses of the delta types."""
        match event:
            case TextDelta():
                run = self._text if self._text is not None else self._open_text()
                run.append(event.text)
            case ReasoningDelta():
                self._add_reasoning(event)
            case ToolCallStart():
                self._start_call(event)
            case ToolCallChunk():
                self._open_call(event.id).chunks.append(event.arguments_delta)
            case ToolCallEnd():
                self._end_call(event)
            case Finish():
                self._finished(event)
            case ProviderItem():
                self._close_runs()
                provider = event.provider or self.provider or "unknown"
                self._parts.append(RawPart(provider=provider, data=event.data))
            case StreamStart():
                self._start = event
                if event.provider is not None:  # a fallback chain's model answers
                    self.provider = event.provider
            case Citation() | ApprovalRequest() | CodeOutput() | GeneratedImage():
                self._hosted.append(event)  # typed views: the raw items hold the round trip
            case TextPhase():
                self._close_runs()  # a new message: its text is a part of its own
                self._phase = event.phase
            case ToolSearchCall():
                self._add_search(event)
            case PartialObject() | ModelSwitch():
                pass  # a view of the text already folded; a switch is handled first, in add
            case _:
                assert_never(event)

    def _start_call(self, event: ToolCallStart) -> None:
        self._close_runs()
        if event.id in self._seen_ids:
            raise EventOrderError(f"tool call id {event.id!r} started twice")
        self._seen_ids.add(event.id)
        self._calls[event.id] = _OpenCall(event, len(self._parts))
        self._parts.append(None)

    def _finished(self, event: Finish) -> None:
        if self._calls:
            raise EventOrderError(f"finish with tool calls still open: {sorted(self._calls)}")
        self._close_runs()
        self._finish = event

    def _end_call(self, event: ToolCallEnd) -> None:
        call = self._open_call(event.id)
        raw = "".join(call.chunks)
        if raw != event.raw_arguments:
            raise EventOrderError(
                f"tool call {event.id!r}: chunks {raw!r} != raw_arguments {event.raw_arguments!r}"
            )
        del self._calls[event.id]
        self._parts[call.slot] = ToolCallPart(
            id=event.id,
            name=event.name,
            arguments=event.arguments,
            raw_arguments=event.raw_arguments,
            error=event.error,
            provider_data=event.provider_data,
        )

    def _add_search(self, event: ToolSearchCall) -> None:
        """A search, or the result of one: merged into the search it answers (same id; a
        result without an id answers the last search still waiting)."""
        if event.tools is not None or event.error is not None:
            waiting = self._waiting if event.id is None else self._waiting_by_id.get(event.id)
            i = self._last_waiting(waiting)
            if i is not None:
                known = self._searches[i]
                self._searches[i] = ToolSearchCall(
                    id=known.id,
                    query=known.query,
                    arguments=known.arguments,
                    execution=known.execution,
                    tools=event.tools,
                    error=event.error,
                )
                return
        else:
            slot = len(self._searches)
            self._waiting.append(slot)
            if event.id is not None:
                self._waiting_by_id.setdefault(event.id, []).append(slot)
        self._searches.append(event)

    def _last_waiting(self, slots: list[int] | None) -> int | None:
        """Take the last search of ``slots`` that still waits (answered ones are dropped)."""
        searches = self._searches
        while slots:
            i = slots.pop()
            known = searches[i]
            if known.tools is None and known.error is None:
                return i
        return None

    def _open_text(self) -> list[str]:
        self._close_reasoning()
        self._text = []
        self._text_packed = 0
        self._text_slot = len(self._parts)
        self._parts.append(None)
        return self._text

    def _open_call(self, call_id: str) -> _OpenCall:
        try:
            return self._calls[call_id]
        except KeyError:
            raise EventOrderError(f"tool call {call_id!r} is not open") from None

    def _add_reasoning(self, event: ReasoningDelta) -> None:
        if self._reasoning is None:
            self._close_text()
            self._reasoning = []
            self._reasoning_packed = 0
            self._reasoning_part = ReasoningPart(provider=self.provider)
            self._parts.append(self._reasoning_part)
        self._reasoning.append(event.text)
        part = self._reasoning_part
        assert part is not None
        if event.signature is not None or event.provider_data is not None:
            if event.signature is not None:
                part.signature = event.signature
            if event.provider_data is not None:
                part.provider_data = {**(part.provider_data or {}), **event.provider_data}
            self._close_reasoning()  # signed or opaque data closes the block

    def _text_part(self, text: str) -> TextPart:
        phase = self._phase
        return TextPart(text=text, provider_data={"phase": phase} if phase else None)

    def _close_text(self) -> None:
        if self._text is not None:
            self._parts[self._text_slot] = self._text_part("".join(self._text))
            self._text = None

    def _close_reasoning(self) -> None:
        if self._reasoning is not None and self._reasoning_part is not None:
            self._reasoning_part.text = "".join(self._reasoning)
        self._reasoning = None
        self._reasoning_part = None

    def _close_runs(self) -> None:
        self._close_text()
        self._close_reasoning()

    def response(self) -> ChatResponse:
        """The response so far. Open runs and unfinished calls are included, flagged."""
        finish, start = self._finish, self._start
        hosted = self._hosted
        return ChatResponse(
            message=ChatMessage(role="assistant", content=self._content()),
            finish_reason=finish.reason if finish else None,
            raw_finish_reason=finish.raw_reason if finish else None,
            usage=finish.usage if finish else None,
            provider_data=finish.provider_data if finish else None,
            **_started(start),
            provider=self.provider,
            citations=[e for e in hosted if type(e) is Citation],
            approval_requests=[e for e in hosted if type(e) is ApprovalRequest],
            code_outputs=[e for e in hosted if type(e) is CodeOutput],
            images=[e for e in hosted if type(e) is GeneratedImage],
            tool_searches=list(self._searches),
        )

    def _content(self) -> list[ContentPart]:
        """The message's parts so far: open runs as they stand, unfinished calls flagged."""
        parts: list[ContentPart] = []
        text_run = "".join(self._text) if self._text is not None else None
        open_slots = {call.slot: call for call in self._calls.values()}
        for slot, part in enumerate(self._parts):
            if part is None and slot in open_slots:
                call = open_slots[slot]
                parts.append(
                    ToolCallPart(
                        id=call.id,
                        name=call.name,
                        raw_arguments="".join(call.chunks),
                        error="the stream ended inside this tool call",
                    )
                )
            elif part is None:
                parts.append(self._text_part(text_run or ""))
            elif isinstance(part, ReasoningPart) and part is self._reasoning_part:
                parts.append(part.model_copy(update={"text": "".join(self._reasoning or [])}))
            else:
                parts.append(part)
        return parts


def _started(start: StreamStart | None) -> dict[str, Any]:
    """What a response takes from its ``StreamStart`` (nothing without one)."""
    if start is None:
        return {
            "response_id": None,
            "model": None,
            "warnings": [],
            "request_id": None,
            "rate_limit": None,
        }
    return {
        "response_id": start.response_id,
        "model": start.model,
        "warnings": list(start.warnings),
        "request_id": start.request_id,
        "rate_limit": start.rate_limit,
    }


def accumulate(events: Iterable[StreamEvent], *, provider: str | None = None) -> ChatResponse:
    """Fold a whole event sequence into a ``ChatResponse``."""
    acc = Accumulator(provider=provider)
    for event in events:
        acc.add(event)
    return acc.response()
