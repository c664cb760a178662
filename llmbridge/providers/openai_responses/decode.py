"""Responses API SSE stream → normalized events (sans-IO state machine).

Follows https://platform.openai.com/docs/api-reference/responses-streaming.

Rules:

* Dispatch is on the JSON ``type`` field, never on the SSE ``event:`` name (OpenRouter sends
  none); one ``orjson.loads`` per event, a dict of handlers; unknown types are skipped.
  ``data: [DONE]`` (OpenRouter) is ignored; anything after the terminal event is ignored.
* The first event of any kind yields one ``StreamStart`` (id and model when the event carries
  a ``response``: ``response.created``, or ``response.queued`` in background mode; a resumed
  stream may start anywhere). Ids that rotate mid-stream (Azure, GitHub Copilot) are tolerated:
  items are keyed by ``output_index`` first and by ``item_id`` only when that is absent.
* Function calls: ``output_item.added`` (a ``function_call`` item) starts a call whose id is
  its ``call_id``; ``function_call_arguments.delta`` (keyed by ``item_id``) streams chunks; the
  first of ``function_call_arguments.done`` / ``output_item.done`` ends it, keeping the item id
  in ``provider_data``. Arguments only in the done event become one chunk; done arguments that
  extend the streamed text add the missing tail once; otherwise the streamed text stands.
* Reasoning: summary deltas and raw ``reasoning_text`` deltas are ``ReasoningDelta``; a new
  summary part of the same item is separated by a blank line. The reasoning item's done event
  yields ``ReasoningDelta(text="", provider_data={"id", "encrypted_content"})`` for the round
  trip (with the item's text if no delta carried it).
* Text: ``output_text.delta`` is ``TextDelta``; an ``output_text.done`` whose text extends what
  was streamed adds the missing tail once (a message item with no text events at all gives its
  text when it is done). Refusal deltas are text too, and are repeated in ``Finish.provider_data["refusal"]``.
  Built-in tool items (web search, MCP, code interpreter, shell, …) are not tool-call events:
  their done items are kept, verbatim, in ``Finish.provider_data["items"]``.
* ``response.completed`` → ``Finish`` (``tool_calls`` if calls were emitted, else ``stop``);
  ``response.incomplete`` → reason from ``incomplete_details.reason``. Open calls are closed
  first. ``error`` and ``response.failed`` raise a typed ``APIError`` after every event that
  came before; the decoder then refuses further input. No terminal event → ``close()`` raises
  ``StreamTruncatedError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from ...errors import APIError, MalformedStreamError, StreamTruncatedError
from ...events import (
    Finish,
    FinishReason,
    ReasoningDelta,
    StreamEvent,
    StreamStart,
    TextDelta,
    ToolCallChunk,
    ToolCallEnd,
    ToolCallStart,
)
from .errors import stream_error
from .finish_reasons import completed_reason, incomplete_reason
from .messages import PROVIDER_NAME
from .usage import convert_usage

__all__ = ["ResponsesDecoder"]

_Key = int | str
_Out = list[StreamEvent]


class _Call:
    __slots__ = ("chunks", "id", "index", "item_id", "name")

    def __init__(self, *, call_id: str, name: str, index: int, item_id: str | None) -> None:
        self.id = call_id
        self.name = name
        self.index = index
        self.item_id = item_id
        self.chunks: list[str] = []


def _key(obj: dict[str, Any]) -> _Key:
    index = obj.get("output_index")
    if isinstance(index, int):
        return index
    item_id = obj.get("item_id")
    if isinstance(item_id, str):
        return item_id
    item = obj.get("item")
    return str(item.get("id")) if isinstance(item, dict) else ""


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _texts(parts: Any, kinds: tuple[str, ...]) -> list[str]:
    if not isinstance(parts, list):
        return []
    return [
        p["text"]
        for p in parts
        if isinstance(p, dict) and p.get("type") in kinds and isinstance(p.get("text"), str)
    ]


def _parse_arguments(raw: str) -> tuple[dict[str, Any], str | None]:
    if not raw.strip():
        return {}, None
    try:
        parsed = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return {}, f"tool arguments are not valid JSON: {exc}"
    if not isinstance(parsed, dict):
        return {}, f"tool arguments are a JSON {type(parsed).__name__}, not an object"
    return parsed, None


class ResponsesDecoder:
    """Sans-IO decoder for one Responses API stream (see the module docstring)."""

    def __init__(self, *, warnings: list[str] | None = None) -> None:
        self._warnings = list(warnings or [])
        self._started = False
        self._done = False
        self._error: APIError | None = None
        self._calls: dict[_Key, _Call] = {}
        self._call_count = 0
        self._closed_calls: set[_Key] = set()
        self._text_keys: set[_Key] = set()
        self._text_buf: list[str] = []  # deltas of the text part being streamed
        self._reasoning: dict[_Key, _Key] = {}  # item key -> last (summary/content) index
        self._items: list[Any] = []
        self._refusal: list[str] = []

    # -- protocol ---------------------------------------------------------------------
    def feed(self, event: str, data: str) -> list[StreamEvent]:
        if self._error is not None:
            raise self._error
        if self._done or not data or data == "[DONE]":
            return []
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise MalformedStreamError(
                f"Responses stream data is not JSON: {data[:120]!r}", provider=PROVIDER_NAME
            ) from exc
        if not isinstance(obj, dict):
            raise MalformedStreamError(
                f"Responses stream event is not a JSON object: {data[:120]!r}",
                provider=PROVIDER_NAME,
            )
        out: _Out = []
        if not self._started:
            self._start(obj, out)
        kind = obj.get("type")
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            if kind is None and "error" in obj:
                handler = ResponsesDecoder._on_error
            else:
                return out
        try:
            handler(self, obj, out)
        except APIError as exc:
            self._error = exc
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

    # -- lifecycle --------------------------------------------------------------------
    def _start(self, obj: dict[str, Any], out: _Out) -> None:
        self._started = True
        response = obj.get("response")
        rid = model = None
        if isinstance(response, dict):
            rid, model = _str(response.get("id")), _str(response.get("model"))
        out.append(StreamStart(response_id=rid, model=model, warnings=self._warnings))

    def _on_completed(self, obj: dict[str, Any], out: _Out) -> None:
        self._finish(obj, out, None)

    def _on_incomplete(self, obj: dict[str, Any], out: _Out) -> None:
        response = obj.get("response")
        details = response.get("incomplete_details") if isinstance(response, dict) else None
        raw = _str(details.get("reason")) if isinstance(details, dict) else None
        self._finish(obj, out, raw or "incomplete")

    def _finish(self, obj: dict[str, Any], out: _Out, incomplete: str | None) -> None:
        for key in list(self._calls):
            self._end_call(key, None, None, out)
        response = obj.get("response")
        usage = convert_usage(response.get("usage") if isinstance(response, dict) else None)
        reason: FinishReason
        if incomplete is None:
            reason = completed_reason(had_tool_calls=self._call_count > 0)
            raw = _str(response.get("status")) if isinstance(response, dict) else None
            raw = raw or "completed"
        else:
            reason, raw = incomplete_reason(incomplete), incomplete
        data: dict[str, Any] = {}
        if self._items:
            data["items"] = self._items
        if self._refusal:
            data["refusal"] = "".join(self._refusal)
        out.append(Finish(reason=reason, raw_reason=raw, usage=usage, provider_data=data or None))
        self._done = True

    def _on_failed(self, obj: dict[str, Any], out: _Out) -> None:
        response = obj.get("response")
        error = response.get("error") if isinstance(response, dict) else None
        raise stream_error(error, fallback="the response failed")

    def _on_error(self, obj: dict[str, Any], out: _Out) -> None:
        raise stream_error(obj, fallback="error event in the response stream")

    # -- text and reasoning -----------------------------------------------------------
    def _on_text_delta(self, obj: dict[str, Any], out: _Out) -> None:
        delta = obj.get("delta")
        if isinstance(delta, str) and delta:
            self._text_keys.add(_key(obj))
            self._text_buf.append(delta)
            out.append(TextDelta(delta))

    def _on_text_done(self, obj: dict[str, Any], out: _Out) -> None:
        final = obj.get("text")
        streamed = "".join(self._text_buf)
        self._text_buf.clear()
        if isinstance(final, str) and len(final) > len(streamed) and final.startswith(streamed):
            self._text_keys.add(_key(obj))
            out.append(TextDelta(final[len(streamed) :]))

    def _on_refusal_delta(self, obj: dict[str, Any], out: _Out) -> None:
        delta = obj.get("delta")
        if isinstance(delta, str) and delta:
            self._text_keys.add(_key(obj))
            self._refusal.append(delta)
            out.append(TextDelta(delta))

    def _on_reasoning_delta(self, obj: dict[str, Any], out: _Out) -> None:
        delta = obj.get("delta")
        if not isinstance(delta, str) or not delta:
            return
        key = _key(obj)
        part = obj.get("summary_index", obj.get("content_index", 0))
        last = self._reasoning.get(key)
        self._reasoning[key] = part
        out.append(ReasoningDelta("\n\n" + delta if last is not None and last != part else delta))

    # -- output items -----------------------------------------------------------------
    def _on_item_added(self, obj: dict[str, Any], out: _Out) -> None:
        item = obj.get("item")
        if isinstance(item, dict) and item.get("type") == "function_call":
            self._start_call(obj, item, out)

    def _start_call(self, obj: dict[str, Any], item: dict[str, Any], out: _Out) -> _Call:
        key = _key(obj)
        item_id = _str(item.get("id"))
        call_id = _str(item.get("call_id")) or item_id or f"call_{self._call_count}"
        call = _Call(
            call_id=call_id,
            name=_str(item.get("name")) or "",
            index=self._call_count,
            item_id=item_id,
        )
        self._call_count += 1
        self._calls[key] = call
        if item_id is not None and item_id != key:
            self._calls[item_id] = call
        out.append(ToolCallStart(id=call.id, name=call.name, index=call.index))
        return call

    def _find_call(self, obj: dict[str, Any]) -> tuple[_Key, _Call] | None:
        for key in (obj.get("output_index"), obj.get("item_id")):
            if isinstance(key, (int, str)) and key in self._calls:
                return key, self._calls[key]
        return None

    def _on_args_delta(self, obj: dict[str, Any], out: _Out) -> None:
        delta = obj.get("delta")
        found = self._find_call(obj)
        if found is None or not isinstance(delta, str) or not delta:
            return
        call = found[1]
        call.chunks.append(delta)
        out.append(ToolCallChunk(id=call.id, index=call.index, arguments_delta=delta))

    def _on_args_done(self, obj: dict[str, Any], out: _Out) -> None:
        found = self._find_call(obj)
        if found is not None:
            self._end_call(found[0], _str(obj.get("arguments")), _str(obj.get("name")), out)

    def _end_call(self, key: _Key, final: str | None, name: str | None, out: _Out) -> None:
        call = self._calls.get(key)
        if call is None:
            return
        for k in [k for k, c in self._calls.items() if c is call]:
            del self._calls[k]
            self._closed_calls.add(k)
        streamed = "".join(call.chunks)
        tail = ""
        if final is not None and len(final) > len(streamed) and final.startswith(streamed):
            tail = final[len(streamed) :]
            out.append(ToolCallChunk(id=call.id, index=call.index, arguments_delta=tail))
        raw = streamed + tail
        arguments, error = _parse_arguments(raw)
        data = {"item_id": call.item_id} if call.item_id is not None else None
        out.append(
            ToolCallEnd(
                id=call.id,
                index=call.index,
                name=call.name or name or "",
                arguments=arguments,
                raw_arguments=raw,
                error=error,
                provider_data=data,
            )
        )

    def _on_item_done(self, obj: dict[str, Any], out: _Out) -> None:
        item = obj.get("item")
        if not isinstance(item, dict):
            return
        handler = _ITEM_DONE.get(item.get("type"))  # type: ignore[arg-type]
        if handler is not None:
            handler(self, obj, item, out)
        else:
            self._items.append(item)

    def _function_call_done(self, obj: dict[str, Any], item: dict[str, Any], out: _Out) -> None:
        found = self._find_call(obj)
        if found is None:
            if _key(obj) in self._closed_calls:
                return
            self._start_call(obj, item, out)
            found = (_key(obj), self._calls[_key(obj)])
        self._end_call(found[0], _str(item.get("arguments")), _str(item.get("name")), out)

    def _message_done(self, obj: dict[str, Any], item: dict[str, Any], out: _Out) -> None:
        if _key(obj) in self._text_keys:
            return
        text = "".join(_texts(item.get("content"), ("output_text", "refusal")))
        refusal = _texts(item.get("content"), ("refusal",))
        if text:
            self._refusal.extend(refusal)
            out.append(TextDelta(text))

    def _reasoning_done(self, obj: dict[str, Any], item: dict[str, Any], out: _Out) -> None:
        text = ""
        if _key(obj) not in self._reasoning:
            parts = _texts(item.get("summary"), ("summary_text",))
            text = "\n\n".join(parts or _texts(item.get("content"), ("reasoning_text",)))
        data: dict[str, Any] = {}
        if isinstance(item.get("id"), str):
            data["id"] = item["id"]
        if isinstance(item.get("encrypted_content"), str):
            data["encrypted_content"] = item["encrypted_content"]
        if text or data:
            out.append(ReasoningDelta(text, provider_data=data or None))


_Handler = Callable[[ResponsesDecoder, dict[str, Any], _Out], None]
_ItemHandler = Callable[[ResponsesDecoder, dict[str, Any], dict[str, Any], _Out], None]

_HANDLERS: dict[str, _Handler] = {
    "response.output_text.delta": ResponsesDecoder._on_text_delta,
    "response.output_text.done": ResponsesDecoder._on_text_done,
    "response.refusal.delta": ResponsesDecoder._on_refusal_delta,
    "response.reasoning_summary_text.delta": ResponsesDecoder._on_reasoning_delta,
    "response.reasoning_text.delta": ResponsesDecoder._on_reasoning_delta,
    "response.output_item.added": ResponsesDecoder._on_item_added,
    "response.output_item.done": ResponsesDecoder._on_item_done,
    "response.function_call_arguments.delta": ResponsesDecoder._on_args_delta,
    "response.function_call_arguments.done": ResponsesDecoder._on_args_done,
    "response.completed": ResponsesDecoder._on_completed,
    "response.incomplete": ResponsesDecoder._on_incomplete,
    "response.failed": ResponsesDecoder._on_failed,
    "error": ResponsesDecoder._on_error,
}

_ITEM_DONE: dict[str, _ItemHandler] = {
    "function_call": ResponsesDecoder._function_call_done,
    "message": ResponsesDecoder._message_done,
    "reasoning": ResponsesDecoder._reasoning_done,
}
