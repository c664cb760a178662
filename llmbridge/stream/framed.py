"""A response body read as frames by a sans-IO framer: the one reader behind every framing that
is not SSE (AWS event stream, NDJSON).

Rules:

* A framer is sans-IO: ``feed(bytes) -> list[Frame]`` (the frames that chunk completes, or
  the first batch of them: then ``waiting`` is true and ``more()`` gives the next batch),
  ``check()`` (raise the error met after the frames last returned: they go out first, so the
  transport attaches the partial) and ``close() -> list[Frame]`` (the frames the end of the body
  completes; raises ``StreamTruncatedError`` when it ends inside a frame).
* ``FramedBody`` is what the transport iterates: ``events()`` yields ``Frame`` (``.event``,
  ``.data``, as a decoder's ``feed`` takes them). It reads the body through ``pieces.Pieces``
  (the byte reader SSE uses too: gzip and deflate inflated a piece of at most 64 KiB at a time,
  the loop given a turn between two pieces of one read), so a framer is fed one piece at a
  time and makes at most one piece's frames at once; the loop also gets a turn every
  ``_BATCH`` frames of one piece. It counts the decoded bytes against
  ``max_response_bytes`` and folds the response's record when enough events wait in it, as
  ``bounded.BoundedBody`` does for SSE; ``aclose()`` closes the response, idempotently.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import anyio.lowlevel

from ..errors import MalformedStreamError
from .bounded import DEFAULT_MAX_RESPONSE_BYTES
from .pieces import Pieces

if TYPE_CHECKING:
    from .record import Record

__all__ = ["Frame", "FramedBody", "Framer"]

_BATCH = 512
"""Frames handed out between two turns of the loop, at most (a 64 KiB piece of 3-byte NDJSON
lines is 21,845 frames: ~0.15 s of decoding in one go without these turns)."""


class Frame:
    """One frame as a decoder gets it: ``event`` (its kind) and ``data`` (its payload)."""

    __slots__ = ("data", "event")

    def __init__(self, event: str, data: str) -> None:
        self.event = event
        self.data = data

    def __repr__(self) -> str:
        return f"Frame({self.event!r}, {self.data[:80]!r})"


class Framer(Protocol):
    """Bytes in, ``Frame``s out (see module rules)."""

    provider: str | None

    @property
    def waiting(self) -> bool:
        """Whether frames of the last piece wait for ``more()`` (a framer may hand a piece's
        frames out in batches)."""
        ...

    def feed(self, data: bytes) -> list[Frame]: ...

    def more(self) -> list[Frame]: ...

    def check(self) -> None: ...

    def close(self) -> list[Frame]: ...


class FramedBody:
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
        framer: Framer,
        *,
        max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        record: Record | None = None,
    ) -> None:
        self._pieces = Pieces(response)
        self.headers = response.headers
        self._framer = framer
        self._frames: list[Frame] = []
        self._index = 0
        self._turn = _BATCH  # the index of the frame the loop is given a turn before
        self._ended = False
        self.max_bytes = max_bytes
        self.read = 0
        """Decoded bytes read so far."""
        self.record = record

    def events(self) -> FramedBody:
        self._pieces.open()
        return self

    def __aiter__(self) -> FramedBody:
        return self

    async def __anext__(self) -> Frame:
        frames, index = self._frames, self._index
        while index >= len(frames):
            self._framer.check()
            if self._ended:
                raise StopAsyncIteration
            if self._framer.waiting:  # more frames of the last piece: the loop runs first
                await anyio.lowlevel.checkpoint()
                frames, index = self._framer.more(), 0
                self._frames = frames
                continue
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
