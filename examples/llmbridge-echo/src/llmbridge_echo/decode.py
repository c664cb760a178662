"""Decoder: Echo API Server-Sent Events -> normalized llmbridge events. Sans-IO.

Rules (the invariants every llmbridge decoder keeps, see ``llmbridge.testing.check_invariants``):

* ``feed(event, data)`` takes one SSE event; one ``orjson.loads`` per event, dispatch by event
  name through a table; unknown events are skipped so new API features never break old clients.
* Per tool call: one ``ToolCallStart`` -> ``ToolCallChunk``s -> one ``ToolCallEnd`` with the id
  the server gave; the chunks join to ``raw_arguments``. A call ends only on ``call_end`` (or
  ``done``), never because its arguments happen to parse. Bad JSON arguments give
  ``ToolCallEnd(arguments={}, error=...)``, never a crash.
* ``done`` ends the stream with exactly one ``Finish`` carrying the usage; ``error`` raises the
  typed ``APIError``; non-JSON data raises ``MalformedStreamError``; ``close()`` without ``done``
  raises ``StreamTruncatedError``. Only llmbridge errors escape: odd shapes are caught.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from llmbridge import (
    Finish,
    StreamStart,
    TextDelta,
    ToolCallChunk,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from llmbridge.errors import LLMBridgeError, MalformedStreamError, StreamTruncatedError
from llmbridge.events import FinishReason, StreamEvent
from llmbridge.stream.http_errors import api_error

__all__ = ["FINISH_REASONS", "EchoDecoder"]

FINISH_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "max_tokens": "length",
    "tool_calls": "tool_calls",
    "blocked": "content_filter",
}
_NOTHING: list[StreamEvent] = []


@dataclass(slots=True)
class _Call:
    id: str
    name: str
    index: int
    parts: list[str] = field(default_factory=list)

    def end(self) -> ToolCallEnd:
        raw = "".join(self.parts)
        try:
            arguments = orjson.loads(raw) if raw.strip() else {}
        except orjson.JSONDecodeError as exc:
            return self._flagged(raw, f"arguments are not valid JSON: {exc}")
        if not isinstance(arguments, dict):
            return self._flagged(raw, "arguments are not a JSON object")
        return ToolCallEnd(self.id, self.index, self.name, arguments, raw)

    def _flagged(self, raw: str, error: str) -> ToolCallEnd:
        return ToolCallEnd(self.id, self.index, self.name, {}, raw, error=error)


class EchoDecoder:
    """One decoder per response stream."""

    def __init__(self) -> None:
        self._calls: dict[int, _Call] = {}
        self._count = 0
        self._done = False
        self._handlers: dict[str, Callable[[dict[str, Any]], list[StreamEvent]]] = {
            "message_start": self._start,
            "text": self._text,
            "call_start": self._call_start,
            "call_args": self._call_args,
            "call_end": self._call_end,
            "done": self._finish,
            "error": self._error,
        }

    def feed(self, event: str, data: str) -> list[StreamEvent]:
        handler = self._handlers.get(event)
        if handler is None:  # ping, or an event type newer than this plug-in
            return _NOTHING
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise MalformedStreamError(f"echo: {event} data is not JSON: {data[:80]!r}") from exc
        if not isinstance(obj, dict):
            raise MalformedStreamError(f"echo: {event} data is not an object: {data[:80]!r}")
        try:
            return handler(obj)
        except LLMBridgeError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise MalformedStreamError(f"echo: unreadable {event} event: {exc!r}") from exc

    def close(self) -> list[StreamEvent]:
        if not self._done:
            raise StreamTruncatedError("echo: the stream ended before its 'done' event")
        return _NOTHING

    # -- handlers, one per event name -----------------------------------------------------
    def _start(self, obj: dict[str, Any]) -> list[StreamEvent]:
        return [StreamStart(response_id=obj.get("id"), model=obj.get("model"))]

    def _text(self, obj: dict[str, Any]) -> list[StreamEvent]:
        text = obj["text"]
        return [TextDelta(text)] if text else _NOTHING

    def _call_start(self, obj: dict[str, Any]) -> list[StreamEvent]:
        call = _Call(id=str(obj["id"]), name=str(obj["name"]), index=self._count)
        self._count += 1
        self._calls[int(obj["call"])] = call
        return [ToolCallStart(call.id, call.name, call.index)]

    def _call_args(self, obj: dict[str, Any]) -> list[StreamEvent]:
        call = self._calls[int(obj["call"])]
        delta = str(obj["args"])
        call.parts.append(delta)
        return [ToolCallChunk(call.id, call.index, delta)]

    def _call_end(self, obj: dict[str, Any]) -> list[StreamEvent]:
        return [self._calls.pop(int(obj["call"])).end()]

    def _finish(self, obj: dict[str, Any]) -> list[StreamEvent]:
        events: list[StreamEvent] = [call.end() for call in self._calls.values()]
        self._calls.clear()
        raw = obj.get("reason")
        usage = obj.get("usage")
        events.append(
            Finish(
                reason=FINISH_REASONS.get(raw, "other") if isinstance(raw, str) else "other",
                raw_reason=raw if isinstance(raw, str) else None,
                usage=Usage(int(usage.get("input", 0)), int(usage.get("output", 0)))
                if isinstance(usage, dict)
                else None,
            )
        )
        self._done = True
        return events

    def _error(self, obj: dict[str, Any]) -> list[StreamEvent]:
        raise api_error(provider="echo", status=None, error=obj.get("error", obj))
