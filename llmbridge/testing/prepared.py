"""A provider's decoders as the attempt loop reads them, for sans-IO tests of a prepared call.

Rules: ``prepared_decoder(provider, request)`` prepares ``request`` once
(``providers.adapter.prepared_of``) and gives a factory of decoders whose ``StreamStart``
carries the call's warnings (first, then the decoder's own), as the attempt loop stamps them
(``stream.transport``): what a recorded fixture's golden events hold. No IO.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..events import StreamEvent, StreamStart
from ..providers.adapter import prepared_of
from ..providers.base import AnyDecoder, Provider, WrappingDecoder
from ..request import ChatRequest

__all__ = ["prepared_decoder"]


class _Stamped(WrappingDecoder):
    """``inner`` with ``warnings`` on its first ``StreamStart`` (one of their own in front of
    its first events when it sends none)."""

    __slots__ = ("_inner", "_pending")

    def __init__(self, inner: AnyDecoder, warnings: tuple[str, ...]) -> None:
        super().__init__(inner)
        self._pending = warnings
        self._inner: Any = inner  # feed or feed_frame: what the framing makes

    def feed(self, event: str, data: str) -> list[StreamEvent]:
        out: list[StreamEvent] = self._inner.feed(event, data)
        return self._stamp(out) if self._pending and out else out

    def feed_frame(self, frame: Any) -> list[StreamEvent]:
        out: list[StreamEvent] = self._inner.feed_frame(frame)
        return self._stamp(out) if self._pending and out else out

    def close(self) -> list[StreamEvent]:
        out = self.inner.close()
        return self._stamp(out) if self._pending else out

    def _stamp(self, out: list[StreamEvent]) -> list[StreamEvent]:
        pending, self._pending = self._pending, ()
        for event in out:
            if isinstance(event, StreamStart):
                event.warnings = [*pending, *event.warnings]
                return out
        return [StreamStart(warnings=list(pending)), *out]


def prepared_decoder(provider: Provider, request: ChatRequest) -> Callable[[], AnyDecoder]:
    """Fresh decoders for ``request`` prepared by ``provider`` (see the module rules)."""
    prepared = prepared_of(provider, request)
    warnings, new_decoder = prepared.warnings, prepared.new_decoder
    if not warnings:
        return new_decoder
    return lambda: _Stamped(new_decoder(), warnings)
