"""Claude on Bedrock's ``InvokeModelWithResponseStream`` frames → the Anthropic decoder.

Follows https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html
and the ``anthropic`` SDK's ``AWSEventStreamDecoder``. The transport frames the body with
botocore (``llmbridge.stream.eventstream``) and feeds one call per frame. Rules:

* ``chunk`` → its payload ``{"bytes": "<base64>"}`` (AWS's ``p`` padding ignored) holds one
  Anthropic streaming event, fed as is to **the** ``AnthropicDecoder`` (no second decoder):
  one base64 decode and the Anthropic decoder's one JSON parse per event.
* ``exception:<type>`` frames (``throttlingException``, ``modelStreamErrorException``, …) and
  ``error:<code>`` frames are typed errors from Bedrock's one table (``providers.bedrock.errors``,
  shared with ``bedrock``), raised after every event before them was returned; after an error
  the decoder refuses input. Other event types are skipped.
* AWS's ``amazon-bedrock-invocationMetrics`` (token counts, latencies, on the last event) are
  kept in ``Finish.provider_data["bedrock"]["invocation_metrics"]``.
"""

from __future__ import annotations

import binascii
from base64 import b64decode
from typing import Any

import orjson

from ...errors import LLMBridgeError, MalformedStreamError
from ...events import Finish, StreamEvent
from ..anthropic.decode import AnthropicDecoder
from ..base import BaseDecoder
from ..bedrock.errors import stream_error

__all__ = ["BedrockAnthropicDecoder"]

_METRICS_KEY = '"amazon-bedrock-invocationMetrics"'


class BedrockAnthropicDecoder(BaseDecoder):
    """Feed it the frames of one Bedrock response; it feeds the Anthropic decoder."""

    def __init__(self, *, provider: str) -> None:
        self._provider = provider
        self._inner = AnthropicDecoder(provider=provider)
        self._failed = False
        self._metrics: dict[str, Any] | None = None

    def feed(self, event: str, data: str) -> list[StreamEvent]:
        if self._failed:
            raise MalformedStreamError(
                "the decoder already failed on this stream", provider=self._provider
            )
        if event == "chunk":
            try:
                payload = orjson.loads(data)
                text = b64decode(payload["bytes"], validate=True).decode("utf-8")
            except (
                orjson.JSONDecodeError,
                KeyError,
                TypeError,
                binascii.Error,
                UnicodeError,
            ) as exc:
                self._failed = True
                raise MalformedStreamError(
                    f"unreadable Bedrock chunk ({type(exc).__name__}): {data[:120]!r}",
                    provider=self._provider,
                ) from exc
            try:
                events = self._inner.feed("", text)
            except LLMBridgeError:
                self._failed = True
                raise
            if _METRICS_KEY in text:  # the last chunk only: AWS's invocation metrics
                metrics = orjson.loads(text).get("amazon-bedrock-invocationMetrics")
                if isinstance(metrics, dict):
                    self._metrics = metrics
            return events
        kind, sep, name = event.partition(":")
        if sep and kind in ("exception", "error"):
            self._failed = True
            raise stream_error(provider=self._provider, kind=name, data=data)
        return []

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
