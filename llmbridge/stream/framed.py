"""A response body read as frames by a sans-IO framer: the one reader behind every framing that
is not SSE (AWS event stream, NDJSON).

Rules:

* A framer is sans-IO: ``feed(bytes) -> list[Frame]`` (the frames that chunk completes),
  ``check()`` (raise the error met after the frames last returned: they go out first, so the
  transport attaches the partial) and ``close() -> list[Frame]`` (the frames the end of the body
  completes; raises ``StreamTruncatedError`` when it ends inside a frame).
* ``FramedBody`` is what the transport iterates: ``events()`` yields ``Frame`` (``.event``,
  ``.data``, as a decoder's ``feed`` takes them); it counts the decoded bytes against
  ``max_response_bytes`` and folds the response's record when enough events wait in it, as
  ``bounded.BoundedBody`` does for SSE; ``aclose()`` closes the response, idempotently.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import anyio

from ..errors import MalformedStreamError
from .bounded import DEFAULT_MAX_RESPONSE_BYTES

if TYPE_CHECKING:
    from .record import Record

__all__ = ["Frame", "FramedBody", "Framer"]


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

    def feed(self, data: bytes) -> list[Frame]: ...

    def check(self) -> None: ...

    def close(self) -> list[Frame]: ...


class FramedBody:
    """A response's frames as the transport reads them (see module rules)."""

    __slots__ = (
        "_bytes",
        "_framer",
        "_frames",
        "_index",
        "_response",
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
        self._response = response
        self.headers = response.headers
        self._framer = framer
        self._bytes: Any = None
        self._frames: list[Frame] = []
        self._index = 0
        self.max_bytes = max_bytes
        self.read = 0
        """Decoded bytes read so far."""
        self.record = record

    def events(self) -> FramedBody:
        if self._bytes is None:
            self._bytes = self._response.aiter_bytes()
        return self

    def __aiter__(self) -> FramedBody:
        return self

    async def __anext__(self) -> Frame:
        frames, index = self._frames, self._index
        while index >= len(frames):
            self._framer.check()
            chunks = self._bytes
            if chunks is None:  # read to the end, or closed
                raise StopAsyncIteration
            try:
                chunk = await chunks.__anext__()
            except StopAsyncIteration:
                self._bytes = None
                frames, index = self._framer.close(), 0
                self._frames = frames
                if not frames:
                    raise
                continue
            self._count(len(chunk))
            frames, index = self._framer.feed(chunk), 0
            self._frames = frames
        self._index = index + 1
        return frames[index]

    def _count(self, size: int) -> None:
        """Count a chunk against ``max_bytes``; fold the record when enough events wait."""
        self.read += size
        if self.read > self.max_bytes:
            raise MalformedStreamError(
                f"the response is larger than {self.max_bytes:,} bytes (max_response_bytes)",
                provider=self._framer.provider,
            )
        record = self.record
        if record is not None and record.due():
            record.fold()

    async def aclose(self) -> None:
        """Close the response, then end its byte reader (see ``bounded.BoundedBody.aclose``:
        an abandoned chain of httpx's async generators warns under trio). Idempotent."""
        chunks, self._bytes = self._bytes, None
        await self._response.aclose()
        if chunks is None:
            return
        with anyio.move_on_after(0):
            try:
                await chunks.__anext__()
            except Exception:  # the end, or the closed stream's error: either way it is over
                return
        aclose = getattr(chunks, "aclose", None)
        if aclose is not None:
            await aclose()
