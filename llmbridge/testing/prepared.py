"""A provider's decoders as the attempt loop reads them, for sans-IO tests of a prepared call.

Rules: ``prepared_decoder(provider, request)`` prepares ``request`` once
(``providers.adapter.prepared_of``) and gives a factory of decoders whose ``StreamStart``
carries the call's warnings (first, then the decoder's own), as the attempt loop stamps them
(``stream.transport``): what a recorded fixture's golden events hold. No IO.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..events import StreamEvent
from ..providers.adapter import prepared_of
from ..providers.base import AnyDecoder, Provider, WrappingDecoder
from ..request import ChatRequest
from ..stream.start_stamp import Stamp, stamp_batch

__all__ = ["prepared_decoder"]


class _Stamped(WrappingDecoder):
    """``inner`` with ``warnings`` stamped as the attempt loop stamps them
    (``stream.start_stamp.stamp_batch``: on its first ``StreamStart``, or one made)."""

    __slots__ = ("_inner", "_pending")

    def __init__(self, inner: AnyDecoder, warnings: tuple[str, ...]) -> None:
        super().__init__(inner)
        self._pending: Stamp | None = Stamp(warnings, None, None, None)
        self._inner: Any = inner  # feed or feed_frame: what the framing makes

    def feed(self, event: str, data: str) -> list[StreamEvent]:
        return self._stamp(self._inner.feed(event, data))

    def feed_frame(self, frame: Any) -> list[StreamEvent]:
        return self._stamp(self._inner.feed_frame(frame))

    def close(self) -> list[StreamEvent]:
        return self._stamp(self.inner.close(), last=True)

    def _stamp(self, out: list[StreamEvent], *, last: bool = False) -> list[StreamEvent]:
        if self._pending is None:
            return out
        out, done = stamp_batch(out, self._pending, last=last)
        if done:
            self._pending = None
        return out


def prepared_decoder(provider: Provider, request: ChatRequest) -> Callable[[], AnyDecoder]:
    """Fresh decoders for ``request`` prepared by ``provider`` (see the module rules)."""
    prepared = prepared_of(provider, request)
    warnings, new_decoder = prepared.warnings, prepared.new_decoder
    if not warnings:
        return new_decoder
    return lambda: _Stamped(new_decoder(), warnings)
