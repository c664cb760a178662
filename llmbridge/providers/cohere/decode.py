"""Cohere v2 chat SSE → normalized events (sans-IO state machine).

Follows ``StreamedChatResponseV2`` of the ``cohere`` SDK and
https://docs.cohere.com/reference/chat-stream. Every event's ``event:`` name is its ``type``
(the ``type`` inside the data is read when the name is missing). Rules:

* ``message-start`` → ``StreamStart`` (its ``id``, the model asked for; the request's warnings are added by the attempt loop).
* ``content-start`` / ``content-delta`` / ``content-end`` carry ``text`` (→ ``TextDelta``) or
  ``thinking`` (→ ``ReasoningDelta``), by the field the delta holds.
* ``tool-plan-delta`` (the plan Cohere writes before its tool calls) is collected and given as
  one ``ProviderItem`` ``{"type": "tool_plan", "tool_plan": …}`` when the plan is over (the
  first tool call, or the end): it is neither the answer nor reasoning, and Cohere wants it
  back on the assistant turn (``messages.py`` sends it as ``tool_plan``).
* ``tool-call-start`` / ``-delta`` / ``-end`` → the ledger (``llmbridge.tool_calls``) by
  ``index``: Cohere's id (``get_weather_x1y2``) is kept, arguments stream as JSON text.
* ``citation-start`` → one ``Citation`` per source (``url``: the document's ``url``, else the
  source's id; ``title``: the document's title; ``cited_text``: the answer's cited text); the
  raw citations stay in ``Finish.provider_data``. ``citation-end`` and ``debug`` add nothing.
* ``message-end`` keeps ``finish_reason`` and ``usage``; a stream that ends in ``ERROR`` keeps
  ``error`` / ``error_type`` in the provider data and finishes with reason ``error``.
  ``close()`` ends open tool calls and emits the one ``Finish``; without ``message-end`` the
  stream was cut: ``StreamTruncatedError``. ``[DONE]`` is skipped, unknown events too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from ...errors import MalformedStreamError, StreamTruncatedError
from ...events import (
    Citation,
    Finish,
    ProviderItem,
    ReasoningDelta,
    StreamEvent,
    StreamStart,
    TextDelta,
)
from ...tool_calls import ToolCall, ToolCallLedger
from ..decoding import GuardedDecoder
from .finish_reasons import map_finish_reason
from .usage import read_usage

__all__ = ["CohereDecoder"]

_Events = list[StreamEvent]
_loads = orjson.loads


def _message(obj: dict[str, Any]) -> dict[str, Any]:
    delta = obj.get("delta")
    message = delta.get("message") if isinstance(delta, dict) else None
    return message if isinstance(message, dict) else {}


class CohereDecoder(GuardedDecoder):
    """Feed it the SSE events of one ``/v2/chat`` stream."""

    def __init__(
        self,
        *,
        provider: str = "cohere",
        model: str | None = None,
    ) -> None:
        self._provider = provider
        self._model = model
        self._calls = ToolCallLedger(id_prefix="call_")
        self._by_index: dict[Any, ToolCall] = {}
        self._plan: list[str] = []
        self._started = False
        self._ended = False
        self._closed = False
        self._failed = False
        self._end: dict[str, Any] = {}
        self._citations: list[Any] = []

    def feed(self, event: str, data: str) -> _Events:
        if self._failed:  # checked inline: a method call per event shows in bench_stream
            raise self._refused()
        if not data or data == "[DONE]":
            return []
        try:
            obj = _loads(data)
        except orjson.JSONDecodeError:
            raise self._malformed(
                f"event {event!r} carries non-JSON data: {data[:120]!r}"
            ) from None
        if obj.__class__ is not dict:
            raise self._malformed(f"event {event!r} is not a JSON object: {data[:120]!r}")
        kind = event or obj.get("type")
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            return []
        out = self._start(obj) if not self._started else []
        out.extend(self._guarded(handler, obj, "event", kind))
        return out

    def close(self) -> _Events:
        if self._closed or self._failed:
            return []
        if not self._ended:
            self._failed = True
            raise StreamTruncatedError(
                "the stream ended before message-end", provider=self._provider
            )
        self._closed = True
        out = self._plan_done()
        self._calls.end_all(out)
        out.append(self._finish())
        return out

    # -- handlers ----------------------------------------------------------------------
    def _start(self, obj: dict[str, Any]) -> _Events:
        self._started = True
        response_id = obj.get("id") if obj.get("type") == "message-start" else None
        return [
            StreamStart(
                response_id=response_id if isinstance(response_id, str) else None,
                model=self._model,
            )
        ]

    def _message_start(self, obj: dict[str, Any]) -> _Events:
        return []  # StreamStart is sent before the first handled event

    def _content(self, obj: dict[str, Any]) -> _Events:
        content = _message(obj).get("content")
        if not isinstance(content, dict):
            return []
        out: _Events = []
        thinking = content.get("thinking")
        if isinstance(thinking, str) and thinking:
            out.append(ReasoningDelta(thinking))
        text = content.get("text")
        if isinstance(text, str) and text:
            out.append(TextDelta(text))
        return out

    def _nothing(self, obj: dict[str, Any]) -> _Events:
        return []

    def _tool_plan(self, obj: dict[str, Any]) -> _Events:
        plan = _message(obj).get("tool_plan")
        if isinstance(plan, str) and plan:
            self._plan.append(plan)
        return []

    def _plan_done(self) -> _Events:
        if not self._plan:
            return []
        plan, self._plan = "".join(self._plan), []
        return [ProviderItem({"type": "tool_plan", "tool_plan": plan})]

    def _call_start(self, obj: dict[str, Any]) -> _Events:
        out = self._plan_done()
        call = _message(obj).get("tool_calls")
        call = call if isinstance(call, dict) else {}
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        wire_id, name = call.get("id"), function.get("name")
        opened = self._calls.open(
            wire_id if isinstance(wire_id, str) else None,
            name if isinstance(name, str) else None,
            out,
        )
        self._by_index[obj.get("index")] = opened
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            self._calls.add(opened, arguments, out)
        return out

    def _call_delta(self, obj: dict[str, Any]) -> _Events:
        opened = self._by_index.get(obj.get("index"))
        call = _message(obj).get("tool_calls")
        function = call.get("function") if isinstance(call, dict) else None
        arguments = function.get("arguments") if isinstance(function, dict) else None
        out: _Events = []
        if opened is None:
            if isinstance(arguments, str) and arguments:
                raise MalformedStreamError(
                    f"tool-call-delta for index {obj.get('index')!r} before its start",
                    provider=self._provider,
                )
            return out
        if isinstance(arguments, str):
            self._calls.add(opened, arguments, out)
        return out

    def _call_end(self, obj: dict[str, Any]) -> _Events:
        out: _Events = []
        opened = self._by_index.get(obj.get("index"))
        if opened is not None:
            self._calls.end(opened, out)
        return out

    def _citation(self, obj: dict[str, Any]) -> _Events:
        citation = _message(obj).get("citations")
        if not isinstance(citation, dict):
            return []
        self._citations.append(citation)
        cited = citation.get("text")
        out: _Events = []
        sources = citation.get("sources")
        for source in sources if isinstance(sources, list) else []:
            if not isinstance(source, dict):
                continue
            document = source.get("document")
            document = document if isinstance(document, dict) else {}
            url = document.get("url") or source.get("id") or ""
            title = document.get("title")
            out.append(
                Citation(
                    url=str(url),
                    title=title if isinstance(title, str) else None,
                    cited_text=cited if isinstance(cited, str) else None,
                )
            )
        return out

    def _message_end(self, obj: dict[str, Any]) -> _Events:
        delta = obj.get("delta")
        self._end = delta if isinstance(delta, dict) else {}
        self._ended = True
        out = self._plan_done()
        self._calls.end_all(out)
        return out

    def _finish(self) -> Finish:
        end = self._end
        reason = end.get("finish_reason")
        raw = reason if isinstance(reason, str) else None
        data: dict[str, Any] = {}
        for key in ("usage", "error", "error_type"):
            if end.get(key):
                data[key] = end[key]
        if self._citations:
            data["citations"] = self._citations
        return Finish(
            reason=map_finish_reason(raw),
            raw_reason=raw,
            usage=read_usage(end.get("usage")),
            provider_data={self._provider: data} if data else None,
        )


_HANDLERS: dict[str, Callable[[CohereDecoder, dict[str, Any]], _Events]] = {
    "message-start": CohereDecoder._message_start,
    "content-start": CohereDecoder._content,
    "content-delta": CohereDecoder._content,
    "content-end": CohereDecoder._nothing,
    "tool-plan-delta": CohereDecoder._tool_plan,
    "tool-call-start": CohereDecoder._call_start,
    "tool-call-delta": CohereDecoder._call_delta,
    "tool-call-end": CohereDecoder._call_end,
    "citation-start": CohereDecoder._citation,
    "citation-end": CohereDecoder._nothing,
    "message-end": CohereDecoder._message_end,
}
