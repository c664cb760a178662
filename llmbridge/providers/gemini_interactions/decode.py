"""Sans-IO decoder of an Interactions SSE stream: the steps model and the older content model.

Follows ``google.genai`` Interactions ``InteractionSSEEvent`` (revision 2026-05-20:
``interaction.created``, ``interaction.status_update``, ``step.start`` / ``step.delta`` /
``step.stop``, ``interaction.completed``, ``error``) and the events recordings made before
8 June 2026 still hold (``interaction.start``, ``content.start`` / ``content.delta`` /
``content.stop``, ``interaction.complete``), read by the same handlers. Rules:

* the event's kind is its ``event_type`` (else the SSE event name); unknown kinds, an empty
  data line and ``[DONE]`` are skipped; one handler per kind (a table);
* ``interaction.created`` gives ``StreamStart`` (the interaction id, ``None`` when empty as
  with ``store: false``; the model); a stream that starts elsewhere (a resumed one) gets one
  from the id it was resumed for;
* ``text`` deltas → ``TextDelta``; ``thought_summary`` deltas → ``ReasoningDelta``; a non-empty
  ``thought_signature`` → ``ReasoningDelta("", signature)``, which closes that thought's part,
  so the next turn sends the thought step back signed (``messages.py``); a ``url_citation``
  annotation → ``Citation``;
* a ``function_call`` step → ``ToolCallStart`` (its ``id``; generated from the interaction id
  when missing or repeated, by the ledger), its ``arguments_delta`` texts (or the older whole
  ``arguments`` object) as ``ToolCallChunk``, ``ToolCallEnd`` at its stop (or at the end);
* any other step (built-in tool calls and results, images, step types newer than this code) is
  a ``ProviderItem`` at its stop: the start's step with the deltas' fields merged in, as the
  API takes it back in ``input``; its typed view follows (``hosted.py``);
* usage: the last ``usage`` seen (a delta's ``metadata.usage``, the completed interaction's)
  wins; ``Finish`` comes from ``close()``, its reason from the status and the steps
  (``finish_reasons.py``), ``raw_reason`` the status;
* an ``error`` event raises the typed ``APIError`` and the decoder refuses further input;
  undecodable data is a ``MalformedStreamError``; ``close()`` before the completed event is a
  ``StreamTruncatedError``;
* event ids (``event_id``): the last one is kept (``resume_point``), an id seen before is
  dropped (a resumed stream that sends it again), so no event is decoded twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from ...errors import LLMBridgeError, MalformedStreamError, StreamTruncatedError
from ...events import Finish, ProviderItem, ReasoningDelta, StreamEvent, StreamStart, TextDelta
from ...tool_calls import ToolCall, ToolCallLedger
from ..base import BaseDecoder, ResumePoint
from .errors import stream_error
from .finish_reasons import map_finish_reason
from .hosted import StepViews, image
from .usage import convert_usage

__all__ = ["InteractionsDecoder"]

_loads = orjson.loads


class _Step:
    __slots__ = ("arguments", "call", "data", "streamed", "text")

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.call: ToolCall | None = None
        self.text: list[str] = []
        self.arguments: Any = None
        """A call's ``arguments`` object sent whole (used unless argument deltas came)."""
        self.streamed = False


class InteractionsDecoder(BaseDecoder):
    """``feed(event, data)`` per SSE event, ``close()`` once at the end of the body."""

    def __init__(
        self, *, provider: str, response_id: str | None = None, after: str | None = None
    ) -> None:
        self.provider = provider
        self.response_id = response_id
        """The interaction's id: given (a resume) or read from its first event."""
        self.after = after
        """The id of the last event decoded (``None``: none yet, or events without ids)."""
        self._seen: set[str] = set() if after is None else {after}
        self._started = False
        self._events = 0
        self._steps: dict[int, _Step] = {}
        self._calls = ToolCallLedger()
        self._views = StepViews()
        self._status: str | None = None
        self._usage: dict[str, Any] | None = None
        self._last_step: str | None = None
        self._done = False
        self._error: LLMBridgeError | None = None

    def resume_point(self) -> ResumePoint | None:
        if not self.response_id or (self.after is None and self._events):
            return None  # no id yet, or events without ids: a resume would repeat them
        return ResumePoint(self.response_id, self.after, complete=self._done)

    # -- feeding -----------------------------------------------------------------------
    def feed(self, event: str, data: str) -> list[StreamEvent]:
        if self._error is not None:
            raise self._error
        if self._done or not data or data.isspace() or data == "[DONE]":
            return []
        try:
            obj = _loads(data)
        except orjson.JSONDecodeError as exc:
            raise self._fail(
                f"Interactions sent a data line that is not JSON: {data[:120]!r}"
            ) from exc
        if type(obj) is not dict:
            raise self._fail(
                f"Interactions sent a {type(obj).__name__} where an event was expected"
            )
        if self._repeated(obj.get("event_id")):
            return []  # sent again by a resumed stream: decoded already
        kind = obj.get("event_type")
        if kind == "step.delta" and self._started and "metadata" not in obj:  # the hot path
            fast = self._plain_text(obj)
            if fast is not None:
                return fast
        handler = _HANDLERS.get(kind if type(kind) is str else event)
        out: list[StreamEvent] = []
        if handler is None:
            return out
        try:
            if not self._started and handler is not InteractionsDecoder._created:
                self._start(None, out)
            handler(self, obj, out)
            metadata = obj.get("metadata")
            if type(metadata) is dict and type(metadata.get("usage")) is dict:
                self._usage = metadata["usage"]
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise self._fail(
                f"Interactions sent an event of an unexpected shape: {data[:160]!r}"
            ) from exc
        return out

    def _repeated(self, event_id: Any) -> bool:
        """Whether ``event_id`` was decoded before (else it becomes the last one)."""
        self._events += 1
        if type(event_id) is str and event_id:
            if event_id in self._seen:
                return True
            self._seen.add(event_id)
            self.after = event_id
        return False

    def _plain_text(self, obj: dict[str, Any]) -> list[StreamEvent] | None:
        """A ``text`` delta of an open step and nothing else, or ``None`` (read carefully)."""
        index, delta = obj.get("index"), obj.get("delta")
        step = self._steps.get(index) if index.__class__ is int else None  # [] is unhashable
        if step is None or delta.__class__ is not dict or delta.get("type") != "text":
            return None
        text = delta.get("text")
        if text.__class__ is not str or len(delta) != 2:
            return None
        step.text.append(text)
        return [TextDelta(text)] if text else []

    def _fail(self, message: str) -> MalformedStreamError:
        self._error = error = MalformedStreamError(message, provider=self.provider)
        return error

    def _start(self, interaction: dict[str, Any] | None, out: list[StreamEvent]) -> None:
        self._started = True
        model = None
        if interaction is not None:
            rid, model = interaction.get("id"), interaction.get("model")
            if self.response_id is None and type(rid) is str and rid:
                self.response_id = rid
        if self.response_id:
            self._calls.id_prefix = f"call_{self.response_id[-12:]}_"
        out.append(StreamStart(self.response_id, model if type(model) is str else None))

    # -- handlers ------------------------------------------------------------------------
    def _created(self, obj: dict[str, Any], out: list[StreamEvent]) -> None:
        interaction = obj.get("interaction")
        interaction = interaction if type(interaction) is dict else {}
        if not self._started:
            self._start(interaction, out)
        self._read_status(interaction.get("status"))

    def _status_update(self, obj: dict[str, Any], out: list[StreamEvent]) -> None:
        self._read_status(obj.get("status"))

    def _read_status(self, status: Any) -> None:
        if type(status) is str and status:
            self._status = status

    def _step_start(self, obj: dict[str, Any], out: list[StreamEvent]) -> None:
        raw = obj.get("step", obj.get("content"))
        data = dict(raw) if type(raw) is dict else {}
        index = obj["index"]
        self._close_step(index, out)  # a step started twice at one index: the first ends
        step = self._steps[index] = _Step(data)
        kind = data.get("type")
        if kind == "function_call":
            self._open_call(step, data, out)
            step.arguments = data.get("arguments")
        elif kind == "thought":
            self._thought(data, out)
        elif kind == "model_output":
            for content in data.get("content") or ():
                self._content(step, content, out)

    def _open_call(self, step: _Step, data: dict[str, Any], out: list[StreamEvent]) -> None:
        call_id, name = data.get("id"), data.get("name")
        if type(call_id) is not str or not call_id or call_id in self._calls:
            call_id = None
        step.call = self._calls.open(call_id, name if type(name) is str and name else None, out)

    def _thought(self, data: dict[str, Any], out: list[StreamEvent]) -> None:
        for item in data.get("summary") or ():
            text = item.get("text") if type(item) is dict else None
            if type(text) is str and text:
                out.append(ReasoningDelta(text))
        signature = data.get("signature")
        if type(signature) is str and signature:
            out.append(ReasoningDelta("", signature))

    def _content(self, step: _Step, content: Any, out: list[StreamEvent]) -> None:
        if type(content) is not dict:
            return
        if content.get("type") == "text" and type(content.get("text")) is str:
            text = content["text"]
            step.text.append(text)
            if text:
                out.append(TextDelta(text))
            if "annotations" in content:
                self._views.citations(content["annotations"], "".join(step.text), out)
        else:  # an image or other content of the model's output: kept whole
            out.append(ProviderItem({"type": "model_output", "content": [content]}, self.provider))
            image(content, out)

    def _step_delta(self, obj: dict[str, Any], out: list[StreamEvent]) -> None:
        delta = obj["delta"]
        index = obj["index"]
        kind = delta.get("type")
        step = self._steps.get(index)
        if step is None:  # a resumed stream may begin inside a step
            step = self._steps[index] = _Step({"type": _STEP_OF.get(kind, kind)})
        handler = _DELTAS.get(kind)
        if handler is not None:
            handler(self, step, delta, out)
        else:  # a built-in tool's delta: its fields go into the step kept whole
            step.data.update((k, v) for k, v in delta.items() if k != "type")

    def _text(self, step: _Step, delta: dict[str, Any], out: list[StreamEvent]) -> None:
        self._content(step, delta, out)

    def _annotation(self, step: _Step, delta: dict[str, Any], out: list[StreamEvent]) -> None:
        self._views.citations(delta.get("annotations"), "".join(step.text), out)

    def _summary(self, step: _Step, delta: dict[str, Any], out: list[StreamEvent]) -> None:
        content = delta.get("content")
        text = content.get("text") if type(content) is dict else None
        if type(text) is str and text:
            out.append(ReasoningDelta(text))

    def _signature(self, step: _Step, delta: dict[str, Any], out: list[StreamEvent]) -> None:
        signature = delta.get("signature")
        if type(signature) is str and signature:
            step.data["signature"] = signature
            out.append(ReasoningDelta("", signature))

    def _arguments(self, step: _Step, delta: dict[str, Any], out: list[StreamEvent]) -> None:
        if step.call is None:
            self._open_call(step, {**step.data, **delta}, out)
        text = delta.get("arguments")
        if type(text) is str:
            step.streamed = True
            self._calls.add(step.call, text, out)  # type: ignore[arg-type]

    def _call_delta(self, step: _Step, delta: dict[str, Any], out: list[StreamEvent]) -> None:
        """The older model's whole call in one delta (``id``, ``name``, ``arguments``)."""
        if step.call is None:
            self._open_call(step, {**step.data, **delta}, out)
        call = step.call
        assert call is not None
        name = delta.get("name")
        if type(name) is str and name:
            self._calls.name(call, name, out)
        if type(delta.get("arguments")) is dict:
            step.arguments = delta["arguments"]

    def _step_stop(self, obj: dict[str, Any], out: list[StreamEvent]) -> None:
        self._close_step(obj["index"], out)
        usage = obj.get("usage")
        if type(usage) is dict:
            self._usage = usage

    def _close_step(self, index: int, out: list[StreamEvent]) -> None:
        step = self._steps.pop(index, None)
        if step is None:
            return
        kind = step.data.get("type")
        self._last_step = kind if type(kind) is str else None
        if step.call is not None:
            if not step.streamed and type(step.arguments) is dict and step.arguments:
                self._calls.add(step.call, orjson.dumps(step.arguments).decode(), out)
            self._calls.end(step.call, out)
        elif kind not in _OWN_STEPS:
            out.append(ProviderItem(step.data, self.provider))
            self._views.step(step.data, out)

    def _completed(self, obj: dict[str, Any], out: list[StreamEvent]) -> None:
        interaction = obj.get("interaction")
        interaction = interaction if type(interaction) is dict else {}
        if not self._started:
            self._start(interaction, out)
        self._read_status(interaction.get("status"))
        if type(interaction.get("usage")) is dict:
            self._usage = interaction["usage"]
        for index in sorted(self._steps):
            self._close_step(index, out)
        self._done = True

    def _error_event(self, obj: dict[str, Any], out: list[StreamEvent]) -> None:
        self._error = error = stream_error(provider=self.provider, error=obj)
        raise error

    # -- end of body ---------------------------------------------------------------------
    def close(self) -> list[StreamEvent]:
        if self._error is not None:
            return []
        if not self._done:
            raise StreamTruncatedError(
                "the Interactions stream ended before interaction.completed",
                provider=self.provider,
            )
        out: list[StreamEvent] = []
        self._calls.end_all(out)
        status = self._status or "completed"
        had_calls = self._calls.count > 0 and self._last_step == "function_call"
        reason = map_finish_reason(status, had_tool_calls=had_calls)
        usage = convert_usage(self._usage) if self._usage is not None else None
        out.append(Finish(reason, status, usage))
        return out


_Handler = Callable[[InteractionsDecoder, dict[str, Any], list[StreamEvent]], None]
_HANDLERS: dict[str, _Handler] = {
    "interaction.created": InteractionsDecoder._created,
    "interaction.start": InteractionsDecoder._created,
    "interaction.status_update": InteractionsDecoder._status_update,
    "step.start": InteractionsDecoder._step_start,
    "content.start": InteractionsDecoder._step_start,
    "step.delta": InteractionsDecoder._step_delta,
    "content.delta": InteractionsDecoder._step_delta,
    "step.stop": InteractionsDecoder._step_stop,
    "content.stop": InteractionsDecoder._step_stop,
    "interaction.completed": InteractionsDecoder._completed,
    "interaction.complete": InteractionsDecoder._completed,
    "error": InteractionsDecoder._error_event,
}
_Delta = Callable[[InteractionsDecoder, _Step, dict[str, Any], list[StreamEvent]], None]
_DELTAS: dict[str, _Delta] = {
    "text": InteractionsDecoder._text,
    "text_annotation_delta": InteractionsDecoder._annotation,
    "thought_summary": InteractionsDecoder._summary,
    "thought_signature": InteractionsDecoder._signature,
    "arguments_delta": InteractionsDecoder._arguments,
    "function_call": InteractionsDecoder._call_delta,
}
_STEP_OF = {
    "text": "model_output",
    "text_annotation_delta": "model_output",
    "thought_summary": "thought",
    "thought_signature": "thought",
    "arguments_delta": "function_call",
}
"""The step a delta belongs to, for a stream resumed inside a step it did not see start."""
_OWN_STEPS = frozenset({"thought", "model_output", "text", "function_call"})
"""Steps read into text, reasoning and calls (the rest are kept whole as ``ProviderItem``s)."""
