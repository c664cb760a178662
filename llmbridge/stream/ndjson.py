"""The response body as newline-delimited JSON (Ollama's native API), bounded.

Rules:

* Framing is lines: a body is split at ``\\n`` (a ``\\r`` before it is dropped); every
  non-blank line is one frame. Each line is decoded as UTF-8 on its own (a character split
  across chunks is kept whole; a line that is not UTF-8 is ``MalformedStreamError``, after the
  lines before it). No JSON is parsed here. The body comes in pieces of at most 64 KiB
  (``framed.FramedBody`` over ``pieces.Pieces``: a gzip body inflated a piece at a time), and
  a piece's lines are handed out lazily, ``_BATCH`` at most at a time (``feed``, then
  ``more()`` while ``waiting``), the loop given a turn between batches: 64 KiB of ``{}``
  lines is 21,845 frames.
* Decoders get the same ``feed(event, data)`` as for SSE, one call per line: ``("", line)``. A
  last line the body ends without a ``\\n`` after is given as ``("unterminated", line)``: the
  decoder reads it if it is whole and says the stream was cut (``StreamTruncatedError``) if not.
* Bound: a line of more than ``limit`` bytes, or once more than ``limit`` bytes arrive without
  a line end (one endless line, a gzip bomb), stops reading with ``MalformedStreamError``;
  memory stays within ``limit`` plus one piece. Raised after the lines before it were yielded, so the transport attaches the partial.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..errors import MalformedStreamError
from .bounded import DEFAULT_MAX_RESPONSE_BYTES
from .framed import Frame, FramedBody

if TYPE_CHECKING:
    from .record import Record

__all__ = ["CONTENT_TYPE", "UNTERMINATED", "NdjsonBody", "iter_ndjson"]

CONTENT_TYPE = "application/x-ndjson"
_BATCH = 512
"""Lines split off a piece at once, at most (blank ones included)."""
UNTERMINATED = "unterminated"
"""The event name of a last line the body ended without a line end after."""


class _Lines:
    """Bytes in, ``Frame``s out: lines, the bound and the error mapping."""

    __slots__ = ("_at", "_failure", "_pending", "_rest", "_todo", "limit", "provider")

    def __init__(self, *, limit: int, provider: str | None) -> None:
        self._todo = b""  # the last piece, its lines from ``_at`` on not handed out yet
        self._at = 0
        self._rest: list[bytes] = []  # the line still open, in pieces (no quadratic joins)
        self._pending = 0
        self._failure: MalformedStreamError | None = None
        self.limit = limit
        self.provider = provider

    def check(self) -> None:
        """Raise the error met after the lines last returned (they go out first)."""
        if self._failure is not None:
            raise self._failure

    def _text(self, line: bytes) -> str:
        try:
            return line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedStreamError(
                f"an NDJSON line is not UTF-8: {exc}", provider=self.provider
            ) from exc

    @property
    def waiting(self) -> bool:
        """Whether lines of the last piece wait for ``more()``."""
        return bool(self._todo)

    def feed(self, data: bytes) -> list[Frame]:
        """The first lines ``data`` completes (at most ``_BATCH``; ``more()`` gives the rest);
        an error after some of them waits for ``check``."""
        self.check()
        self._todo, self._at = data, 0
        return self.more()

    def more(self) -> list[Frame]:
        """The next lines of the last piece, at most ``_BATCH``."""
        frames: list[Frame] = []
        try:
            self._lines(frames)
        except MalformedStreamError as exc:
            self._failure, self._todo = exc, b""
            if not frames:
                raise
        return frames

    def _lines(self, frames: list[Frame]) -> None:
        data, at, limit = self._todo, self._at, self.limit
        for _ in range(_BATCH):
            end = data.find(b"\n", at)
            if end < 0:
                if at < len(data):
                    self._rest.append(data[at:])
                    self._pending += len(data) - at
                self._todo = b""
                self._bound()
                return
            line = data[at:end]
            at = end + 1
            if self._rest:
                line = b"".join(self._rest) + line
                self._rest, self._pending = [], 0
            if len(line) > limit:
                self._pending = len(line)
                self._bound()
            if line.strip():
                frames.append(Frame("", self._text(line.rstrip(b"\r"))))
        self._at = at

    def _bound(self) -> None:
        if self._pending > self.limit:
            raise MalformedStreamError(
                f"no line end within {self.limit:,} bytes (max_event_bytes): "
                "the body is not NDJSON",
                provider=self.provider,
            )

    def close(self) -> list[Frame]:
        """The unterminated last line, if the body ended inside one."""
        self.check()
        rest = b"".join(self._rest).rstrip(b"\r")
        self._rest, self._pending = [], 0
        return [Frame(UNTERMINATED, self._text(rest))] if rest.strip() else []


class NdjsonBody(FramedBody):
    """A response's lines as the transport reads them (``framed.FramedBody`` over this
    module's framer)."""

    __slots__ = ()

    def __init__(
        self,
        response: Any,
        *,
        limit: int,
        max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        provider: str | None = None,
        record: Record | None = None,
    ) -> None:
        super().__init__(
            response, _Lines(limit=limit, provider=provider), max_bytes=max_bytes, record=record
        )


def iter_ndjson(
    body: bytes | Iterable[bytes], *, limit: int = 16 * 1024 * 1024, provider: str | None = None
) -> Iterator[tuple[str, str]]:
    """The ``(event, data)`` pairs of an NDJSON body (bytes, or chunks split anywhere), framed
    exactly as the transport frames a live response. For tests and decoders."""
    lines = _Lines(limit=limit, provider=provider)
    for chunk in [body] if isinstance(body, bytes) else body:
        for frame in lines.feed(chunk):
            yield frame.event, frame.data
        while lines.waiting:
            for frame in lines.more():
                yield frame.event, frame.data
        lines.check()
    for frame in lines.close():
        yield frame.event, frame.data
