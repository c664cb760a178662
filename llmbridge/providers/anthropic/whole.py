"""A whole Messages answer (``stream=False``) → normalized events, through the stream decoder
(``providers.whole.ReplayDecoder``).

Rules: the body (a ``message``: ``content`` blocks, ``stop_reason``, ``usage``) is the
``message`` of a ``message_start`` followed by ``message_stop``; ``decode.AnthropicDecoder``
decodes content given up front as if it had streamed, so text with its citations, thinking
with its signature, redacted thinking, tool calls (their input whole), server tools and their
results, the stop reason and usage come out as the stream gives them. The same body comes from
the Messages API, Bedrock ``InvokeModel`` and Vertex ``rawPredict``. An ``error`` object
(``{"type": "error", ...}``) raises the typed error the stream decoder raises for it.
``whole_body`` makes the streamed request body a whole one (no ``stream``).
"""

from __future__ import annotations

from typing import Any

from ...events import StreamEvent
from ..whole import WholeDecoder
from .decode import AnthropicDecoder

__all__ = ["AnthropicWholeDecoder", "whole_body"]


def whole_body(body: dict[str, Any]) -> dict[str, Any]:
    """The streamed request ``body`` as a whole one (module rules)."""
    return {k: v for k, v in body.items() if k != "stream"}


class AnthropicWholeDecoder(WholeDecoder):
    """A whole Messages answer, decoded by the stream decoder (module rules)."""

    def __init__(self, *, provider: str) -> None:
        super().__init__(provider=provider)
        self.inner = AnthropicDecoder(provider=provider)

    def decode(self, body: dict[str, Any]) -> list[StreamEvent]:
        inner = self.inner
        if body.get("type") == "error" or ("error" in body and "content" not in body):
            return inner.feed("error", _dumps({"type": "error", **body}))
        return [
            *inner.feed_object({"type": "message_start", "message": body}),
            *inner.feed_object({"type": "message_stop"}),
        ]

    def rest(self) -> list[StreamEvent]:
        return self.inner.close()

    def held(self) -> list[StreamEvent]:
        return self.inner.held()


def _dumps(value: Any) -> str:
    import orjson

    return orjson.dumps(value).decode()
