"""Responses API SSE stream → normalized events (sans-IO state machine).

Follows https://platform.openai.com/docs/api-reference/responses-streaming. The handlers of
output items (``response.output_item.added`` / ``.done``) are in ``items.py``.

Rules:

* Dispatch is on the JSON ``type`` field, never on the SSE ``event:`` name (OpenRouter sends
  none); one ``orjson.loads`` per event, a dict of handlers; unknown types are skipped. Text
  and argument deltas (nearly every event) are read on an inlined fast path; any odd shape
  falls through to the careful handlers.
  ``data: [DONE]`` (OpenRouter) is ignored; anything after the terminal event is ignored.
* The first event of any kind yields one ``StreamStart`` (id and model when the event carries
  a ``response``: ``response.created``, or ``response.queued`` in background mode; a resumed
  stream may start anywhere). Ids that rotate mid-stream (Azure, GitHub Copilot) are tolerated:
  items are keyed by ``output_index`` first and by ``item_id`` only when that is absent.
* Function calls and custom (freeform) tool calls (``tool_calls.py``): ``output_item.added``
  of a ``function_call`` / ``custom_tool_call`` item starts a call whose id is its
  ``call_id``; argument deltas (``function_call_arguments`` / ``custom_tool_call_input``)
  stream chunks; the first done event ends it exactly once. A
  repeated ``output_item.added`` for the open item (same ``output_index`` / item id, even with
  rotated ids) is ignored, and so is a late one for a call that already ended (an ended call
  never starts again); another item reusing a started call's ``call_id`` is a
  ``MalformedStreamError``. A done event with no ``added`` before it starts and ends the call.
* Reasoning: summary deltas and raw ``reasoning_text`` deltas are ``ReasoningDelta``; a new
  summary part of the same item is separated by a blank line. The reasoning item's done event
  yields ``ReasoningDelta(text="", provider_data={"id", "encrypted_content"})`` for the round
  trip (with the item's text if no delta carried it).
* Phases: a ``message`` item with a ``phase`` (``commentary`` / ``final_answer``) is announced
  by one ``TextPhase`` before its text (at ``output_item.added``, else at its done event); after
  phased messages, one without gets ``TextPhase(None)``. Streams without phases get none, and
  the text fast path never looks at phases.
* Compaction (``compaction`` items, server-side compaction): the API re-encrypts the item's
  ``encrypted_content`` at every event that carries it (``output_item.added``, ``.done``,
  ``response.completed``) and the last is the one to send back. The done item is held until
  the next output item starts or finishes (then it goes out as it is, so stream order holds)
  or the response ends: then the form in ``response.output`` with the same id is the
  ``ProviderItem``. A failed response, an error event or a broken stream (``held()``)
  releases it first, so the partial response keeps it.
* Text: ``output_text.delta`` is ``TextDelta``; an ``output_text.done`` whose text extends what
  was streamed adds the missing tail once (a message item with no text events at all gives its
  text when it is done). Refusal deltas are text too, repeated in
  ``Finish.provider_data["refusal"]``.
* Items the provider runs itself (web search, file search, MCP, code interpreter, image
  generation, shell, item types newer than this code) are not tool-call
  events: each ``output_item.done`` item becomes a ``ProviderItem`` holding the item verbatim,
  in stream order, so ``resp.message`` sends it back where it was (``messages.py``).
* Typed views of provider-run work (``hosted.py``), next to the ``ProviderItem``: an MCP
  approval request → ``ApprovalRequest``, code interpreter output → ``CodeOutput``, a made
  image → ``GeneratedImage``; ``output_text.annotation.added`` ``url_citation`` →
  ``Citation`` (the cited span read from the text streamed so far).
* ``response.completed`` → ``Finish`` (``tool_calls`` if calls were emitted or a client tool
  search waits for the app's answer, else ``stop``);
  ``response.incomplete`` → reason from ``incomplete_details.reason``. Open calls are closed
  first. ``error`` and ``response.failed`` raise a typed ``APIError`` (a spliced stream a
  ``MalformedStreamError``) after every event that came before; the decoder then refuses
  further input. No terminal event → ``close()`` raises ``StreamTruncatedError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from ...errors import APIError, MalformedStreamError, StreamTruncatedError
from ...events import (
    Finish,
    ReasoningDelta,
    StreamEvent,
    StreamStart,
    TextDelta,
)
from ..base import BaseDecoder
from .errors import stream_error
from .finish_reasons import map_finish_reason
from .hosted import citation
from .items import OutputItems
from .messages import PROVIDER_NAME
from .shapes import Key, item_key, str_or_none
from .tool_calls import ToolCalls
from .usage import convert_usage

__all__ = ["ResponsesDecoder"]

_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError

_Out = list[StreamEvent]


class ResponsesDecoder(BaseDecoder, OutputItems):
    """Sans-IO decoder for one Responses API stream (see the module docstring)."""

    def __init__(self) -> None:
        self._started = False
        self._done = False
        self._error: APIError | MalformedStreamError | None = None
        self._calls = ToolCalls()
        self._item_text = False  # the current message item had text events
        self._text_buf: list[str] = []  # deltas of the text part being streamed
        self._reasoning: dict[Key, Any] = {}  # item key -> last (summary/content) index
        self._refusal: list[str] = []
        self._phased = False  # a message item carried a phase (TextPhase sent)
        self._phase_item: Any = None  # the output index / id of the message announced last
        self._held: dict[str, Any] | None = None  # a done compaction item (final form later)
        self._asks_app = False  # a client tool search waits for the app's answer

    # -- protocol ---------------------------------------------------------------------
    def feed(self, event: str, data: str) -> list[StreamEvent]:
        if self._done:  # finished, or failed: refuse further input
            if self._error is not None:
                raise self._error
            return []
        try:
            obj = _loads(data)
        except _JSONDecodeError as exc:
            if not data or data.isspace() or data == "[DONE]":  # empty: httpx-sse, id: seen
                return []
            raise MalformedStreamError(
                f"Responses stream data is not JSON: {data[:120]!r}", provider=PROVIDER_NAME
            ) from exc
        return self._decode(obj, data)

    def _decode(self, obj: Any, data: str) -> list[StreamEvent]:
        """The events of one parsed event (``resume.BackgroundDecoder`` parses first)."""
        try:  # the hot paths, text and argument deltas, read directly; odd shapes fall through
            kind = obj["type"]
            if kind == "response.output_text.delta":
                delta = obj["delta"]
                if delta.__class__ is str and self._started:
                    if not delta:
                        return []
                    self._item_text = True
                    self._text_buf.append(delta)
                    return [TextDelta(delta)]
            elif kind in _ARGUMENT_DELTAS:
                delta = obj["delta"]
                if delta.__class__ is str and self._started:
                    return self._calls.chunk(obj, delta)
        except (KeyError, TypeError):
            pass
        return self._dispatch(obj, data)

    def _dispatch(self, obj: Any, data: str) -> list[StreamEvent]:
        if obj.__class__ is not dict:
            raise MalformedStreamError(
                f"Responses stream event is not a JSON object: {data[:120]!r}",
                provider=PROVIDER_NAME,
            )
        kind = obj.get("type")
        out: _Out = []
        if not self._started:
            self._start(obj, out)
        handler = _HANDLERS.get(kind) if kind.__class__ is str else None
        if handler is None:
            if kind is None and "error" in obj:
                handler = ResponsesDecoder._on_error
            else:
                return out
        try:
            handler(self, obj, out)
        except (APIError, MalformedStreamError) as exc:
            self._error = exc
            self._done = True
            if not out:
                raise
        return out

    def close(self) -> list[StreamEvent]:
        if self._error is not None:
            raise self._error
        if not self._done:
            raise StreamTruncatedError(
                "the Responses stream ended before response.completed", provider=PROVIDER_NAME
            )
        return []

    def held(self) -> list[StreamEvent]:
        """The held compaction item, released (a broken stream's partial response keeps it)."""
        out: _Out = []
        if self._held is not None:
            self._release(None, out)
        return out

    # -- lifecycle --------------------------------------------------------------------
    def _start(self, obj: dict[str, Any], out: _Out) -> None:
        self._started = True
        response = obj.get("response")
        rid = model = None
        if isinstance(response, dict):
            rid, model = str_or_none(response.get("id")), str_or_none(response.get("model"))
        out.append(StreamStart(response_id=rid, model=model))

    def _on_completed(self, obj: dict[str, Any], out: _Out) -> None:
        self._finish(obj, out, None)

    def _on_incomplete(self, obj: dict[str, Any], out: _Out) -> None:
        response = obj.get("response")
        details = response.get("incomplete_details") if isinstance(response, dict) else None
        raw = str_or_none(details.get("reason")) if isinstance(details, dict) else None
        self._finish(obj, out, raw or "incomplete")

    def _finish(self, obj: dict[str, Any], out: _Out, incomplete: str | None) -> None:
        response = obj.get("response")
        if self._held is not None:
            self._release(response, out)
        self._calls.end_all(out)
        usage = convert_usage(response.get("usage") if isinstance(response, dict) else None)
        if incomplete is None:
            raw = str_or_none(response.get("status")) if isinstance(response, dict) else None
            raw = raw or "completed"
            asked = self._calls.count > 0 or self._asks_app
            reason = map_finish_reason("completed", had_tool_calls=asked)
        else:
            raw = incomplete
            reason = map_finish_reason(incomplete, had_tool_calls=False)
        data: dict[str, Any] = {}
        if self._refusal:
            data["refusal"] = "".join(self._refusal)
        out.append(Finish(reason=reason, raw_reason=raw, usage=usage, provider_data=data or None))
        self._done = True

    def _on_failed(self, obj: dict[str, Any], out: _Out) -> None:
        response = obj.get("response")
        if self._held is not None:  # kept in the partial response
            self._release(response, out)
        error = response.get("error") if isinstance(response, dict) else None
        raise stream_error(provider=PROVIDER_NAME, error=error, fallback="the response failed")

    def _on_error(self, obj: dict[str, Any], out: _Out) -> None:
        if self._held is not None:  # kept in the partial response
            self._release(None, out)
        raise stream_error(
            provider=PROVIDER_NAME, error=obj, fallback="error event in the response stream"
        )

    # -- text and reasoning -----------------------------------------------------------
    def _on_text_delta(self, obj: dict[str, Any], out: _Out) -> None:
        delta = obj.get("delta")
        if isinstance(delta, str) and delta:
            self._item_text = True
            self._text_buf.append(delta)
            out.append(TextDelta(delta))

    def _on_text_done(self, obj: dict[str, Any], out: _Out) -> None:
        final = obj.get("text")
        streamed = "".join(self._text_buf)
        self._text_buf.clear()
        if isinstance(final, str) and len(final) > len(streamed) and final.startswith(streamed):
            self._item_text = True
            out.append(TextDelta(final[len(streamed) :]))

    def _on_annotation(self, obj: dict[str, Any], out: _Out) -> None:
        buf = self._text_buf
        if len(buf) > 1:  # joined once and kept joined: many annotations stay linear
            buf[:] = ["".join(buf)]
        found = citation(obj.get("annotation"), buf[0] if buf else "")
        if found is not None:
            out.append(found)

    def _on_refusal_delta(self, obj: dict[str, Any], out: _Out) -> None:
        delta = obj.get("delta")
        if isinstance(delta, str) and delta:
            self._item_text = True
            self._refusal.append(delta)
            out.append(TextDelta(delta))

    def _on_reasoning_delta(self, obj: dict[str, Any], out: _Out) -> None:
        delta = obj.get("delta")
        if not isinstance(delta, str) or not delta:
            return
        key = item_key(obj)
        part = obj.get("summary_index")
        if part is None:
            part = obj.get("content_index", 0)
        last = self._reasoning.get(key)
        if last != part:
            self._reasoning[key] = part
        out.append(ReasoningDelta("\n\n" + delta if last is not None and last != part else delta))


_ARGUMENT_DELTAS = frozenset(
    {"response.function_call_arguments.delta", "response.custom_tool_call_input.delta"}
)
_REASONING_DELTAS = frozenset(
    {"response.reasoning_summary_text.delta", "response.reasoning_text.delta"}
)

_Handler = Callable[[ResponsesDecoder, dict[str, Any], _Out], None]

_HANDLERS: dict[str, _Handler] = {
    "response.output_text.delta": ResponsesDecoder._on_text_delta,
    "response.output_text.done": ResponsesDecoder._on_text_done,
    "response.refusal.delta": ResponsesDecoder._on_refusal_delta,
    "response.output_text.annotation.added": ResponsesDecoder._on_annotation,
    "response.reasoning_summary_text.delta": ResponsesDecoder._on_reasoning_delta,
    "response.reasoning_text.delta": ResponsesDecoder._on_reasoning_delta,
    "response.output_item.added": ResponsesDecoder._on_item_added,
    "response.output_item.done": ResponsesDecoder._on_item_done,
    "response.function_call_arguments.delta": ResponsesDecoder._on_args_delta,
    "response.function_call_arguments.done": ResponsesDecoder._on_args_done,
    "response.custom_tool_call_input.delta": ResponsesDecoder._on_args_delta,
    "response.custom_tool_call_input.done": ResponsesDecoder._on_args_done,
    "response.completed": ResponsesDecoder._on_completed,
    "response.incomplete": ResponsesDecoder._on_incomplete,
    "response.failed": ResponsesDecoder._on_failed,
    "error": ResponsesDecoder._on_error,
}
