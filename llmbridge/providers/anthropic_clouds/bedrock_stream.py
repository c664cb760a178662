"""Claude on Bedrock's ``InvokeModelWithResponseStream`` frames → the Anthropic decoder.

Follows https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html
and the ``anthropic`` SDK's ``AWSEventStreamDecoder``. The transport frames the body
(``llmbridge.stream.aws_eventstream``) and calls ``feed_frame`` once per ``frames.EventMessage``.
Rules:

* ``chunk`` → its payload ``{"bytes": "<base64>"}`` (AWS's ``p`` padding ignored) holds one
  Anthropic streaming event: one base64 decode and one ``orjson.loads`` of the event, whose
  object goes as it is to **the** ``AnthropicDecoder`` (``feed_object``: no second decoder,
  no second parse). AWS's ``amazon-bedrock-invocationMetrics`` (token counts, latencies, on
  the last event) are read off that same object and kept in
  ``Finish.provider_data["bedrock"]["invocation_metrics"]``.
* ``exception`` messages (``throttlingException``, ``modelStreamErrorException``, …: the type
  in ``error_type``) and ``error`` messages are typed errors from Bedrock's one table
  (``providers.bedrock.errors``, shared with ``bedrock``), raised after every event before
  them was returned; after an error the decoder refuses input. Other event types are skipped.
"""

from __future__ import annotations

import binascii
from base64 import b64decode
from typing import Any

import orjson

from ...errors import LLMBridgeError, MalformedStreamError
from ...events import Finish, StreamEvent
from ...frames import EventMessage
from ..anthropic import AnthropicDecoder
from ..base import BaseDecoder
from ..hosts.aws_errors import stream_error

__all__ = ["BedrockAnthropicDecoder"]

_METRICS_KEY = "amazon-bedrock-invocationMetrics"
_loads = orjson.loads
_UNREADABLE = (orjson.JSONDecodeError, KeyError, TypeError, binascii.Error)


class BedrockAnthropicDecoder(BaseDecoder):
    """Feed it the frames of one Bedrock response; it feeds the Anthropic decoder."""

    def __init__(self, *, provider: str) -> None:
        self._provider = provider
        self._inner = AnthropicDecoder(provider=provider)
        self._failed = False
        self._metrics: dict[str, Any] | None = None

    def feed_frame(self, frame: EventMessage) -> list[StreamEvent]:
        if self._failed:
            raise MalformedStreamError(
                "the decoder already failed on this stream", provider=self._provider
            )
        if frame.message_type != "event":  # an exception or an error: typed, by its type
            self._failed = True
            kind = frame.error_type or ""
            raise stream_error(provider=self._provider, kind=kind, data=frame.error_text)
        if frame.event_type != "chunk":
            return []
        try:
            obj = _loads(b64decode(_loads(frame.payload)["bytes"], validate=True))
        except _UNREADABLE as exc:
            self._failed = True
            raise MalformedStreamError(
                f"unreadable Bedrock chunk ({type(exc).__name__}): {frame.payload[:120]!r}",
                provider=self._provider,
            ) from exc
        try:
            events = self._inner.feed_object(obj)
        except LLMBridgeError:
            self._failed = True
            raise
        if obj.__class__ is dict and _METRICS_KEY in obj:  # the last chunk: AWS's metrics
            metrics = obj[_METRICS_KEY]
            if isinstance(metrics, dict):
                self._metrics = metrics
        return events

    def close(self) -> list[StreamEvent]:
        if self._failed:
            return []
        events = self._inner.close()
        if self._metrics is not None:
            for event in events:
                if isinstance(event, Finish):
                    event.provider_data = {
                        **(event.provider_data or {}),
                        "bedrock": {"invocation_metrics": self._metrics},
                    }
        return events
