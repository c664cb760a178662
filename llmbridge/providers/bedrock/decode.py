"""Converse stream → normalized events (sans-IO state machine).

Follows ``ConverseStreamOutput`` of botocore's ``bedrock-runtime`` model. The transport frames
the AWS event stream (``llmbridge.stream.aws_eventstream``) and calls ``feed_frame(message)``
once per ``frames.EventMessage``. Rules:

* One ``orjson.loads`` per event message, of its bytes payload; dispatch on its ``event_type``
  through a table. Text deltas (nearly every frame) take an inlined fast path. Unknown event
  types are skipped. AWS's ``p`` padding field is ignored wherever it is.
* ``messageStart`` → ``StreamStart`` (the model asked for; the attempt loop adds the request's
  warnings; Converse
  sends no response id: the request id comes from the ``x-amzn-RequestId`` header). Content
  blocks are decoded by ``blocks.py``.
* ``messageStop`` keeps ``stopReason`` (and ``additionalModelResponseFields``) and ends every
  open block; ``metadata`` (after it) gives the usage (``usage.py``), ``metrics``, ``trace``
  (guardrails, prompt router), ``performanceConfig``, ``serviceTier``. ``close()`` emits the one
  ``Finish`` once ``messageStop`` came, with ``Finish.provider_data["bedrock"]`` holding what
  has no shared field (those, ``serverToolUsage`` and citations); otherwise the stream was cut:
  ``StreamTruncatedError``.
* An ``exception`` message (its type in ``error_type``, its JSON payload) and an ``error``
  message (its code in ``error_type``, its ``:error-message``) are the typed errors of
  ``errors.py`` (by that type, never a prefix in a string), raised after every event before them was returned. After any error the
  decoder refuses input.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from ...errors import MalformedStreamError, StreamTruncatedError
from ...events import Finish, StreamEvent, StreamStart, TextDelta
from ...frames import EventMessage
from ..decoding import GuardedDecoder
from .blocks import ContentBlocks
from .errors import stream_error
from .finish_reasons import map_finish_reason
from .usage import read_usage

__all__ = ["BedrockDecoder"]

_Events = list[StreamEvent]
_loads = orjson.loads
_METADATA = ("metrics", "trace", "performanceConfig", "serviceTier")


class BedrockDecoder(GuardedDecoder):
    """Feed it the frames of one ConverseStream response; it returns normalized events."""

    def __init__(
        self,
        *,
        provider: str = "bedrock",
        model: str | None = None,
    ) -> None:
        self._provider = provider
        self._model = model
        self._content = ContentBlocks(provider=provider)
        self._started = False
        self._stop_reason: str | None = None
        self._stopped = False
        self._done = False
        self._failed = False
        self._usage: Any = None
        self._extra: dict[str, Any] = {}

    def feed_frame(self, frame: EventMessage) -> _Events:
        if self._failed:  # checked inline: a method call per event shows in bench_stream
            raise self._refused()
        event = frame.event_type
        if frame.message_type != "event":  # an exception or an error: typed, by its type
            self._failed = True
            kind = frame.error_type or ""
            raise stream_error(provider=self._provider, kind=kind, data=frame.error_text)
        data = frame.payload
        try:
            obj = _loads(data) if data else {}
        except orjson.JSONDecodeError:
            raise self._malformed(
                f"frame {event!r} carries non-JSON data: {data[:120]!r}"
            ) from None
        if event == "contentBlockDelta" and self._started:  # the hot path: text deltas
            try:
                text = obj["delta"]["text"]
                if text.__class__ is str:
                    return [TextDelta(text)] if text else []
            except (KeyError, TypeError):
                pass
        handler = _HANDLERS.get(event)
        if handler is None:
            return []
        if obj.__class__ is not dict:
            raise self._malformed(f"frame {event!r} is not a JSON object: {data[:120]!r}")
        out = self._start([]) if not self._started else []
        out.extend(self._guarded(handler, obj, "frame", event))
        return out

    def close(self) -> _Events:
        if self._done or self._failed:
            return []
        if not self._stopped:
            self._failed = True
            where = "messageStart" if not self._started else "messageStop"
            raise StreamTruncatedError(f"the stream ended before {where}", provider=self._provider)
        self._done = True
        return [*self._content.stop_all(), self._finish()]

    # -- handlers ----------------------------------------------------------------------
    def _start(self, out: _Events) -> _Events:
        self._started = True
        out.append(StreamStart(model=self._model))
        return out

    def _message_start(self, obj: dict[str, Any]) -> _Events:
        return []  # StreamStart is sent before the first handled frame, this one or not

    def _block_start(self, obj: dict[str, Any]) -> _Events:
        if self._stopped:
            raise MalformedStreamError(
                "contentBlockStart after messageStop", provider=self._provider
            )
        start = obj.get("start")
        return self._content.start(
            obj.get("contentBlockIndex"), start if isinstance(start, dict) else {}
        )

    def _block_delta(self, obj: dict[str, Any]) -> _Events:
        delta = obj.get("delta")
        if not isinstance(delta, dict):
            return []
        return self._content.delta(obj.get("contentBlockIndex"), delta)

    def _block_stop(self, obj: dict[str, Any]) -> _Events:
        return self._content.stop(obj.get("contentBlockIndex"))

    def _message_stop(self, obj: dict[str, Any]) -> _Events:
        reason = obj.get("stopReason")
        self._stop_reason = reason if isinstance(reason, str) else None
        fields = obj.get("additionalModelResponseFields")
        if fields is not None:
            self._extra["additionalModelResponseFields"] = fields
        self._stopped = True
        return self._content.stop_all()

    def _metadata(self, obj: dict[str, Any]) -> _Events:
        usage = obj.get("usage")
        if isinstance(usage, dict):
            self._usage = usage
            if usage.get("serverToolUsage"):
                self._extra["serverToolUsage"] = usage["serverToolUsage"]
        for key in _METADATA:
            if obj.get(key) is not None:
                self._extra[key] = obj[key]
        return []

    def _finish(self) -> Finish:
        data = dict(self._extra)
        if self._content.citations:
            data["citations"] = self._content.citations
        return Finish(
            reason=map_finish_reason(self._stop_reason),
            raw_reason=self._stop_reason,
            usage=read_usage(self._usage),
            provider_data={self._provider: data} if data else None,
        )


_HANDLERS: dict[str, Callable[[BedrockDecoder, dict[str, Any]], _Events]] = {
    "messageStart": BedrockDecoder._message_start,
    "contentBlockStart": BedrockDecoder._block_start,
    "contentBlockDelta": BedrockDecoder._block_delta,
    "contentBlockStop": BedrockDecoder._block_stop,
    "messageStop": BedrockDecoder._message_stop,
    "metadata": BedrockDecoder._metadata,
}
