"""A response body read as frames by a sans-IO framer: the one reader behind every framing that
is not SSE (AWS event stream, NDJSON), and how the loop feeds its frames to a decoder.

Rules:

* A framer is sans-IO: ``feed(bytes) -> list[frame]`` (every frame that chunk completes: one
  piece's worth at most), ``check()`` (raise the error met after the frames last returned:
  they go out first, so the transport attaches the partial) and ``close() -> list[frame]``
  (the frames the end of the body completes; raises ``StreamTruncatedError`` when it ends
  inside a frame). Frames are the typed ones of ``llmbridge.frames`` (``EventMessage``,
  ``Line``).
* ``FramedBody`` is what the transport iterates: ``events()`` yields the frames. It reads the
  body through ``pieces.Pieces`` (the byte reader SSE uses too: gzip and deflate inflated a
  piece of at most 64 KiB at a time, the loop given a turn between two pieces of one read), so
  a framer is fed one piece at a time; the loop also gets a turn every ``_BATCH`` frames of
  one piece (the one turn of this reader: framers never batch). It counts the decoded bytes
  against ``max_response_bytes`` and folds the response's record when enough events wait in
  it, as ``bounded.BoundedBody`` does for SSE; ``aclose()`` closes the response, idempotently.
* ``feeds(body, decoder)``: how the loop feeds ``decoder`` what ``body`` yields, chosen once
  per attempt: ``(typed, feed)``. For a ``FramedBody``, ``typed`` is ``frame_feed(decoder)``:
  the decoder's own ``feed_frame`` (``frames.FrameDecoder``), or, for a decoder written against
  ``feed(event, data)`` before typed frames (a plug-in), that ``feed`` given each frame's
  ``pair()`` (a payload that is not UTF-8 is a ``MalformedStreamError`` there). For SSE,
  ``typed`` is ``None`` and ``feed`` the decoder's ``feed(event, data)``, called as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

import anyio.lowlevel

from ..errors import ConfigurationError, MalformedStreamError
from ..events import StreamEvent
from ..frames import EventMessage, FrameDecoder, Line
from ..providers.base import Decoder
from .bounded import DEFAULT_MAX_RESPONSE_BYTES
from .pieces import Pieces

if TYPE_CHECKING:
    from .record import Record

__all__ = ["FrameFeed", "FramedBody", "Framer", "SseFeed", "feeds", "frame_feed"]

_BATCH = 512
"""Frames handed out between two turns of the loop, at most (a 64 KiB piece of 3-byte NDJSON
lines is 21,845 frames: ~0.15 s of decoding in one go without these turns)."""

_T = TypeVar("_T", EventMessage, Line)
FrameFeed = Callable[[Any], list[StreamEvent]]
"""What the loop calls with each frame of a ``FramedBody`` (``feeds``)."""
SseFeed = Callable[[str, str], list[StreamEvent]]
"""What the loop calls with each SSE event's name and data (``feeds``)."""


class Framer(Protocol[_T]):
    """Bytes in, frames out (see module rules)."""

    provider: str | None

    def feed(self, data: bytes) -> list[_T]: ...

    def check(self) -> None: ...

    def close(self) -> list[_T]: ...


class SplitFramer(Generic[_T]):
    """The half every framer shares: ``feed`` hands out the frames a piece completes, and an
    error met after some of them is kept for ``check`` (the frames before it go out first).
    A framer adds ``_take(data, frames)``, which appends what ``data`` completes."""

    __slots__ = ("_failure", "limit", "provider")

    def __init__(self, *, limit: int, provider: str | None) -> None:
        self.limit = limit
        self.provider = provider
        self._failure: MalformedStreamError | None = None

    def check(self) -> None:
        """Raise the error met after the frames last returned (they go out first)."""
        if self._failure is not None:
            raise self._failure

    def feed(self, data: bytes) -> list[_T]:
        """The frames ``data`` completes; an error after some of them waits for ``check``."""
        self.check()
        frames: list[_T] = []
        try:
            self._take(data, frames)
        except MalformedStreamError as exc:
            self._failure = exc
            if not frames:
                raise
        return frames

    def _take(self, data: bytes, frames: list[_T]) -> None:
        raise NotImplementedError  # each framer's own


def _paired(feed: Callable[[str, str], list[StreamEvent]], provider: str | None) -> FrameFeed:
    def feed_frame(frame: EventMessage | Line) -> list[StreamEvent]:
        try:
            event, data = frame.pair()
        except UnicodeDecodeError as exc:
            raise MalformedStreamError(f"a frame is not UTF-8: {exc}", provider=provider) from exc
        return feed(event, data)

    return feed_frame


def frame_feed(decoder: Decoder | FrameDecoder[Any], *, provider: str | None = None) -> FrameFeed:
    """What to call with each typed frame for ``decoder`` (see module rules)."""
    if isinstance(decoder, FrameDecoder):
        return decoder.feed_frame
    return _paired(decoder.feed, provider)


def _unfed(event: str, data: str) -> list[StreamEvent]:  # pragma: no cover - never called
    raise AssertionError("a framed body's frames go to the typed feed")


def feeds(body: object, decoder: Decoder | FrameDecoder[Any]) -> tuple[FrameFeed | None, SseFeed]:
    """``(typed, feed)``: what the loop calls per item of ``body`` (see module rules)."""
    if isinstance(body, FramedBody):
        return frame_feed(decoder, provider=body.provider), _unfed
    feed: SseFeed | None = getattr(decoder, "feed", None)
    if feed is None:
        raise ConfigurationError(
            f"{type(decoder).__name__} reads typed frames (feed_frame), but the body is SSE: "
            "the provider's framing and its decoder disagree"
        )
    return None, feed


class FramedBody(Generic[_T]):
    """A response's frames as the transport reads them (see module rules)."""

    __slots__ = (
        "_ended",
        "_framer",
        "_frames",
        "_index",
        "_pieces",
        "_turn",
        "headers",
        "max_bytes",
        "read",
        "record",
    )

    def __init__(
        self,
        response: Any,
        framer: Framer[_T],
        *,
        max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        record: Record | None = None,
    ) -> None:
        self._pieces = Pieces(response)
        self.headers = response.headers
        self._framer: Framer[_T] = framer
        self._frames: list[_T] = []
        self._index = 0
        self._turn = _BATCH  # the index of the frame the loop is given a turn before
        self._ended = False
        self.max_bytes = max_bytes
        self.read = 0
        """Decoded bytes read so far."""
        self.record = record

    @property
    def provider(self) -> str | None:
        return self._framer.provider

    def events(self) -> FramedBody[_T]:
        self._pieces.open()
        return self

    def __aiter__(self) -> FramedBody[_T]:
        return self

    async def __anext__(self) -> _T:
        frames, index = self._frames, self._index
        while index >= len(frames):
            self._framer.check()
            if self._ended:
                raise StopAsyncIteration
            piece = await self._pieces.next()
            if piece:
                self._count(len(piece))
                frames = self._framer.feed(piece)
            else:  # the end of the body
                self._ended = True
                frames = self._framer.close()
            self._frames, index, self._turn = frames, 0, _BATCH
        if index >= self._turn:  # one piece of many tiny frames: the loop runs between batches
            self._turn = index + _BATCH
            await anyio.lowlevel.checkpoint()
        self._index = index + 1
        return frames[index]

    def _count(self, size: int) -> None:
        """Count a piece against ``max_bytes``; fold the record when enough events wait."""
        self.read += size
        if self.read > self.max_bytes:
            raise MalformedStreamError(
                f"the response is larger than {self.max_bytes:,} bytes once decompressed "
                "(max_response_bytes)",
                provider=self._framer.provider,
            )
        record = self.record
        if record is not None and record.due():
            record.fold()

    async def aclose(self) -> None:
        """Close the response and end its reader (``pieces.Pieces.aclose``). Idempotent."""
        self._ended = True
        await self._pieces.aclose()
