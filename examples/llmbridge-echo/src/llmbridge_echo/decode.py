"""Decoder: Echo API Server-Sent Events -> normalized llmbridge events. Sans-IO.

Rules (the invariants every llmbridge decoder keeps, see ``llmbridge.testing.check_invariants``):

* ``feed(event, data)`` takes one SSE event; one ``orjson.loads`` per event, dispatch by event
  name through a table; unknown events are skipped so new API features never break old clients.
* Tool calls go through llmbridge's ``ToolCallLedger``, which keeps ids unique, joins the
  chunks to ``raw_arguments``, ends each call once and parses its arguments (bad JSON gives
  ``ToolCallEnd(arguments={}, error=...)``, never a crash); this decoder only knows how the
  Echo API addresses a call (its ``call`` number). A call ends only on ``call_end`` (or
  ``done``), never because its arguments happen to parse.
* ``done`` ends the stream with exactly one ``Finish`` carrying the usage; ``error`` raises the
  typed ``APIError``; non-JSON data raises ``MalformedStreamError``; ``close()`` without ``done``
  raises ``StreamTruncatedError``. Only llmbridge errors escape: odd shapes are caught.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from llmbridge import Finish, StreamStart, TextDelta, Usage
from llmbridge.errors import LLMBridgeError, MalformedStreamError, StreamTruncatedError
from llmbridge.events import FinishReason, StreamEvent
from llmbridge.tool_calls import ToolCall, ToolCallLedger

from .errors import stream_error

__all__ = ["FINISH_REASONS", "EchoDecoder"]

FINISH_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "max_tokens": "length",
    "tool_calls": "tool_calls",
    "blocked": "content_filter",
}
_NOTHING: list[StreamEvent] = []


class EchoDecoder:
    """One decoder per response stream."""

    def __init__(self) -> None:
        self._ledger = ToolCallLedger()
        self._calls: dict[int, ToolCall] = {}  # by the Echo API's ``call`` number
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
        out: list[StreamEvent] = []
        call_id = obj.get("id")
        name = str(obj["name"])
        self._calls[int(obj["call"])] = self._ledger.open(str(call_id or ""), name, out)
        return out

    def _call_args(self, obj: dict[str, Any]) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        self._ledger.add(self._calls[int(obj["call"])], str(obj["args"]), out)
        return out

    def _call_end(self, obj: dict[str, Any]) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        self._ledger.end(self._calls.pop(int(obj["call"])), out)
        return out

    def _finish(self, obj: dict[str, Any]) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        self._ledger.end_all(events)
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
        raise stream_error(provider="echo", error=obj.get("error", obj))
