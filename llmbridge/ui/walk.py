"""Walk llmbridge events into protocol-neutral UI ops (``llmbridge.ui.ops``): the part both
browser protocols share.

Rules:

* ``Walker`` is a sans-IO fold: ``feed(event) -> [ops]``, ``fail(exc) -> [ops]``,
  ``end() -> [ops]``. ``walk(events)`` is the thin async loop over it, and it closes the
  upstream stream (``aclose``) however it ends: finished, failed, cancelled or closed early
  (a browser that went away), so no model connection outlives the page's.
* One run is one assistant message: ``RunStart`` first, ``RunEnd`` last (also after a failure).
  Each model turn is a step: it opens at the turn's first event and closes when the next turn
  starts or the run ends, so a tool loop's ``ToolResult``s land in the step that called them.
* Text and reasoning are blocks: a block opens at its first delta and closes at anything else
  that is not a delta of it (a tool call, a phase change, a provider item, the turn's end).
* An ``LLMBridgeError`` raised by the stream becomes ``Failed`` (its message, never a secret)
  after closing open blocks; any other exception propagates (a bug is not a chat message).
* Event types this walker does not know are skipped, so new event types never break a page.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator, AsyncIterable, Callable
from typing import Any

import anyio
import orjson

from ..errors import LLMBridgeError
from ..events import (
    ApprovalRequest,
    Citation,
    CodeOutput,
    Finish,
    GeneratedImage,
    ModelSwitch,
    PartialObject,
    ProviderItem,
    ReasoningDelta,
    StreamStart,
    TextDelta,
    TextPhase,
    ToolCallChunk,
    ToolCallEnd,
    ToolCallStart,
    ToolSearchCall,
    event_to_dict,
)
from ..parts import DocumentPart, ImagePart, TextPart
from ..tools.results import ToolOutput as ToolReturn
from ..tools.results import ToolResult, to_content
from . import ops
from .app_events import Data, State

__all__ = ["CLOSE_TIMEOUT", "Walker", "jsonable", "walk"]

CLOSE_TIMEOUT = 5.0
"""Seconds closing the upstream stream may take once the walk ends."""


def jsonable(value: Any) -> Any:
    """``value`` as a JSON value (pydantic models, dataclasses and the like as the tool loop
    sends them to the model)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    text = "".join(p.text for p in to_content(value) if isinstance(p, TextPart))
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return text


def _result_output(result: ToolResult) -> tuple[Any, str]:
    part = result.message.tool_results[0] if result.message.tool_results else None
    text = part.text if part is not None else ""
    value = result.value
    parts = (TextPart, ImagePart, DocumentPart)
    is_parts = isinstance(value, list) and bool(value) and all(isinstance(v, parts) for v in value)
    if result.is_error or is_parts or isinstance(value, (ToolReturn, *parts)):
        return text, text
    return jsonable(value), text


class Walker:
    """The fold from llmbridge events (plus ``ToolResult``, ``Data``, ``State``) to UI ops."""

    def __init__(
        self,
        *,
        id_prefix: str | None = None,
        provider: str | None = None,
        message_id: str | None = None,
    ) -> None:
        self._prefix = id_prefix or uuid.uuid4().hex[:12]
        self._message_id = message_id or f"{self._prefix}-msg"
        self._n = 0
        self.provider = provider
        self._model: str | None = None
        self._text: str | None = None
        self._reasoning: str | None = None
        self._signature: str | None = None
        self._reasoning_data: dict[str, Any] | None = None
        self._step = 0
        self._step_open = False
        self._turn_done = True
        self._parent: str | None = None
        self._reason: str | None = None
        self._usage: list[ops.TurnUsage] = []
        self._calls: dict[str, tuple[str, list[str]]] = {}
        """Open tool calls: id -> (name, argument fragments so far)."""
        self._handlers: dict[type, Callable[[Any], list[ops.Op]]] = {
            TextDelta: self._on_text,
            ReasoningDelta: self._on_reasoning,
            ToolCallStart: self._on_tool_start,
            ToolCallChunk: self._on_tool_chunk,
            ToolCallEnd: self._on_tool_end,
            Finish: self._on_finish,
            StreamStart: self._on_start,
            TextPhase: lambda e: self._close_blocks(),
            ProviderItem: lambda e: [
                *self._close_blocks(),
                ops.Raw(e.provider or self.provider, e.data),
            ],
            Citation: lambda e: [ops.Source(self._id("src"), e.url, e.title, e.cited_text)],
            GeneratedImage: self._on_image,
            CodeOutput: lambda e: [self._data("llmbridge-code-output", e, "code_output")],
            ApprovalRequest: lambda e: [self._data("llmbridge-approval-request", e, "approval")],
            ToolSearchCall: lambda e: [self._data("llmbridge-tool-search", e, "tool_search")],
            PartialObject: lambda e: [
                ops.DataOut("llmbridge-partial-object", e.value, f"{self._prefix}-object", False)
            ],
            ModelSwitch: self._on_switch,
        }

    # -- the fold ---------------------------------------------------------------------------
    def begin(self) -> list[ops.Op]:
        return [ops.RunStart(self._message_id)]

    def feed(self, event: Any) -> list[ops.Op]:
        kind = type(event)
        if kind is ToolResult:
            output, text = _result_output(event)
            op = ops.ToolOutput(event.id, event.name, output, text, event.is_error, self._id("tr"))
            return [*self._close_blocks(), op]
        if kind is Data:
            return [ops.DataOut(event.name, event.value, event.id, event.transient)]
        if kind is State:
            return [ops.StateOut(event.value)]
        handler = self._handlers.get(kind)
        if handler is None:
            return []
        return [*self._open_step(), *handler(event)]

    def fail(self, exc: LLMBridgeError) -> list[ops.Op]:
        broken = "the stream broke before this call was complete"
        out: list[ops.Op] = [
            ops.ToolInput(id, name, {}, "".join(raw), broken, None)
            for id, (name, raw) in self._calls.items()
        ]
        self._calls.clear()
        out += [*self._close_blocks(), ops.Failed(exc.message, type(exc).__name__)]
        return [*out, *self._finish_run(failed=True)]

    def end(self) -> list[ops.Op]:
        return [*self._close_blocks(), *self._finish_run(failed=False)]

    # -- helpers ----------------------------------------------------------------------------
    def _id(self, kind: str) -> str:
        self._n += 1
        return f"{self._prefix}-{kind}-{self._n}"

    def _data(self, name: str, event: Any, kind: str) -> ops.DataOut:
        value = jsonable({k: v for k, v in event_to_dict(event).items() if k != "type"})
        return ops.DataOut(name, value, self._id(kind), False)

    def _open_step(self) -> list[ops.Op]:
        if not self._turn_done:
            return []
        out: list[ops.Op] = []
        if self._step_open:
            out.append(ops.StepEnd(self._step))
        self._step += 1
        self._step_open, self._turn_done, self._parent = True, False, None
        out.append(ops.StepStart(self._step))
        return out

    def _close_blocks(self) -> list[ops.Op]:
        out: list[ops.Op] = []
        if self._text is not None:
            out.append(ops.TextEnd(self._text))
            self._text = None
        if self._reasoning is not None:
            end = ops.ReasoningEnd(
                self._reasoning, self._signature, self._reasoning_data, self.provider
            )
            out.append(end)
            self._reasoning, self._signature, self._reasoning_data = None, None, None
        return out

    def _finish_run(self, *, failed: bool) -> list[ops.Op]:
        out: list[ops.Op] = []
        if self._step_open:
            out.append(ops.StepEnd(self._step))
            self._step_open = False
        out.append(ops.RunEnd(self._reason, tuple(self._usage), failed))
        return out

    # -- handlers ---------------------------------------------------------------------------
    def _on_start(self, event: StreamStart) -> list[ops.Op]:
        self._model = event.model or self._model
        self.provider = event.provider or self.provider
        return []

    def _on_text(self, event: TextDelta) -> list[ops.Op]:
        out: list[ops.Op] = []
        if self._text is None:
            out = self._close_blocks()
            self._text = self._parent = self._id("text")
            out.append(ops.TextStart(self._text))
        if event.text:
            out.append(ops.TextDeltaOp(self._text, event.text))
        return out

    def _on_reasoning(self, event: ReasoningDelta) -> list[ops.Op]:
        out: list[ops.Op] = []
        if self._reasoning is None:
            out = self._close_blocks()
            self._reasoning = self._id("reasoning")
            out.append(ops.ReasoningStart(self._reasoning))
        self._signature = event.signature or self._signature
        if event.provider_data is not None:
            self._reasoning_data = {**(self._reasoning_data or {}), **event.provider_data}
        if event.text:
            out.append(ops.ReasoningDeltaOp(self._reasoning, event.text))
        return out

    def _on_tool_start(self, event: ToolCallStart) -> list[ops.Op]:
        out = self._close_blocks()
        if self._parent is None:
            self._parent = self._id("msg")
        self._calls[event.id] = (event.name, [])
        return [*out, ops.ToolStart(event.id, event.name, self._parent)]

    def _on_tool_chunk(self, event: ToolCallChunk) -> list[ops.Op]:
        if event.id in self._calls:
            self._calls[event.id][1].append(event.arguments_delta)
        return [ops.ToolDelta(event.id, event.arguments_delta)] if event.arguments_delta else []

    def _on_tool_end(self, event: ToolCallEnd) -> list[ops.Op]:
        self._calls.pop(event.id, None)
        return [
            ops.ToolInput(
                event.id,
                event.name,
                event.arguments,
                event.raw_arguments,
                event.error,
                event.provider_data,
            )
        ]

    def _on_finish(self, event: Finish) -> list[ops.Op]:
        self._reason = event.reason
        self._turn_done = True
        if event.usage is not None:
            self._usage.append(ops.TurnUsage(event.usage, self._model, self.provider))
        return self._close_blocks()

    def _on_image(self, event: GeneratedImage) -> list[ops.Op]:
        media_type = event.media_type or "image/png"
        url = event.url or f"data:{media_type};base64,{event.b64 or ''}"
        return [*self._close_blocks(), ops.FileOut(url, media_type)]

    def _on_switch(self, event: ModelSwitch) -> list[ops.Op]:
        out = self._close_blocks()
        self._parent = None
        return [*out, ops.Switched(event.from_model, event.to_model, event.error.message)]


async def walk(
    events: AsyncIterable[Any], *, walker: Walker | None = None
) -> AsyncGenerator[ops.Op, None]:
    """The UI ops of ``events``; closes ``events`` however the walk ends (see module rules)."""
    fold = walker or Walker()
    if fold.provider is None:  # a client stream knows its provider (the format of its items)
        known = getattr(events, "provider", None)  # a ToolLoop's name, an EventStream's Provider
        fold.provider = known if isinstance(known, str) else getattr(known, "name", None)
    for op in fold.begin():
        yield op
    try:
        try:
            async for event in events:
                for op in fold.feed(event):
                    yield op
        except LLMBridgeError as exc:
            for op in fold.fail(exc):
                yield op
            return
        for op in fold.end():
            yield op
    finally:
        close = getattr(events, "aclose", None)
        if close is not None:  # shielded: a cancelled walk (the browser left) still closes it
            with anyio.move_on_after(CLOSE_TIMEOUT, shield=True):
                await close()
