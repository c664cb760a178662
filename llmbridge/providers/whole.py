"""Whole (non-streaming) answers: the decoders' common half, and a whole body read into the
``ChatResponse`` the stream fold gives (``ChatRequest.stream=False``, framing ``whole``).

Rules:

* A whole decoder is a ``frames.FrameDecoder`` of one frame: ``feed_frame(body)`` is given the
  parsed body once (``stream.whole_body``) and returns the normalized events, ``close()`` the
  rest, as the format's stream decoder would for the same content. ``ReplayDecoder`` is how
  every built-in one does it: the body is restated as the events of the format's stream
  (``replay``) and fed to the format's own stream decoder, so text, reasoning, tool calls,
  citations, finish reasons and usage come from the one set of event builders.
* A body that is not a JSON object, or whose shape the replay cannot read, is a
  ``MalformedStreamError`` naming the provider; a whole decoder fed twice, or closed unfed, is
  one too (``StreamTruncatedError`` for the latter: no answer came).
* ``whole_response(provider, request, body)`` is the fold ``complete()`` uses
  (``response.Accumulator``) over the events of ``body`` (bytes, text or a parsed mapping),
  the decoder from ``provider.prepare(request with stream=False)``: what batch results are
  read with. ``require_whole`` refuses a provider with no whole mode (its prepared call is
  not framed ``whole``): a ``ConfigurationError`` naming it, before any request.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import orjson

from ..errors import ConfigurationError, MalformedStreamError, StreamTruncatedError
from ..events import StreamEvent
from ..frames import parse_whole
from ..messages import ChatResponse
from ..request import ChatRequest
from ..response import Accumulator
from .base import AnyDecoder, BaseDecoder, Provider
from .prepared import Prepared

__all__ = [
    "ReplayDecoder",
    "WholeDecoder",
    "require_whole",
    "sse",
    "whole_response",
]

_UNREADABLE = (KeyError, TypeError, IndexError, AttributeError, ValueError)


class WholeDecoder(BaseDecoder):
    """A decoder of one whole answer (module rules): subclasses give ``decode(body)`` and
    ``rest()``."""

    def __init__(self, *, provider: str) -> None:
        self.provider = provider
        self._fed = False

    def feed_frame(self, frame: Any) -> list[StreamEvent]:
        if self._fed:
            raise MalformedStreamError("a whole answer is read once", provider=self.provider)
        self._fed = True
        if not isinstance(frame, dict):
            raise MalformedStreamError(
                f"a whole answer is a JSON object, not {type(frame).__name__}: "
                f"{str(frame)[:120]!r}",
                provider=self.provider,
            )
        try:
            return self.decode(frame)
        except _UNREADABLE as exc:
            raise MalformedStreamError(
                f"unreadable whole answer ({type(exc).__name__}: {exc})", provider=self.provider
            ) from None

    def close(self) -> list[StreamEvent]:
        if not self._fed:
            raise StreamTruncatedError(
                "the body ended before a whole answer came", provider=self.provider
            )
        return self.rest()

    def decode(self, body: dict[str, Any]) -> list[StreamEvent]:
        raise NotImplementedError  # each format's own

    def rest(self) -> list[StreamEvent]:
        return []


class ReplayDecoder(WholeDecoder):
    """A whole decoder that restates the body as its format's stream (``replay``: SSE
    ``(event, data)`` pairs for an SSE decoder, typed frames for a frame decoder) and feeds it
    to ``inner``, that format's stream decoder (module rules)."""

    def __init__(self, inner: AnyDecoder, *, provider: str) -> None:
        super().__init__(provider=provider)
        self.inner = inner

    def replay(self, body: dict[str, Any]) -> list[Any]:
        raise NotImplementedError  # each format's own

    def decode(self, body: dict[str, Any]) -> list[StreamEvent]:
        inner: Any = self.inner
        out: list[StreamEvent] = []
        for item in self.replay(body):
            if isinstance(item, tuple):
                out.extend(inner.feed(*item))
            else:
                out.extend(inner.feed_frame(item))
        return out

    def rest(self) -> list[StreamEvent]:
        return self.inner.close()

    def held(self) -> list[StreamEvent]:
        return self.inner.held()


def sse(event: str, payload: Any) -> tuple[str, str]:
    """One SSE event of a replay: its name and its JSON data."""
    return event, orjson.dumps(payload).decode()


def require_whole(prepared: Prepared, *, provider: str, model: str | None = None) -> Prepared:
    """``prepared`` when it is a whole call; else the ``ConfigurationError`` of a provider with
    no whole mode (module rules)."""
    if prepared.framing != "whole":
        where = f"{provider}:{model}" if model else provider
        raise ConfigurationError(
            f"stream=False (a whole, non-streaming answer) is not available on {where}: "
            f"its calls are framed {prepared.framing!r}",
            provider=provider,
        )
    return prepared


def whole_response(
    provider: Provider,
    request: ChatRequest,
    body: bytes | str | Mapping[str, Any],
    *,
    wrap: Callable[[AnyDecoder], AnyDecoder] | None = None,
) -> ChatResponse:
    """The ``ChatResponse`` of ``body``, a whole answer to ``request`` from ``provider`` (module
    rules); ``wrap``: the planning's decoder wrapper (``client.pipeline.Planned.wrap``), if any.
    A body that is an error object raises the provider's typed error."""
    from .adapter import prepared_of

    whole = request if request.stream is False else request.model_copy(update={"stream": False})
    prepared = require_whole(
        prepared_of(provider, whole), provider=provider.name, model=request.model
    )
    if isinstance(body, bytes | str):
        raw = body.encode() if isinstance(body, str) else body
        parsed: Any = parse_whole(raw, provider=provider.name)
    else:
        parsed = dict(body)
    decoder: Any = prepared.new_decoder()
    if wrap is not None:
        decoder = wrap(decoder)
    acc = Accumulator(provider=provider.name)
    for event in [*decoder.feed_frame(parsed), *decoder.close()]:
        acc.add(event)
    return acc.response()
