"""The response body as newline-delimited JSON (Ollama's native API), bounded.

Rules:

* Framing is lines: a body is split at ``\\n`` (a ``\\r`` before it is dropped); every
  non-blank line is one frame. Each line is decoded as UTF-8 on its own (a character split
  across chunks is kept whole; a line that is not UTF-8 is ``MalformedStreamError``, after the
  lines before it). No JSON is parsed here. The body comes in pieces of at most 64 KiB
  (``framed.FramedBody`` over ``pieces.Pieces``: a gzip body inflated a piece at a time), so
  one call makes at most one piece's lines.
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
UNTERMINATED = "unterminated"
"""The event name of a last line the body ended without a line end after."""


class _Lines:
    """Bytes in, ``Frame``s out: lines, the bound and the error mapping."""

    __slots__ = ("_failure", "_pending", "_rest", "limit", "provider")

    def __init__(self, *, limit: int, provider: str | None) -> None:
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

    def feed(self, data: bytes) -> list[Frame]:
        """The lines ``data`` completes; an error after some of them waits for ``check``."""
        self.check()
        if b"\n" not in data:
            self._rest.append(data)
            self._pending += len(data)
            self._bound()
            return []
        lines = data.split(b"\n")  # one piece's lines at most (``pieces.PIECE_BYTES``)
        last = lines.pop()
        if self._rest:
            lines[0] = b"".join(self._rest) + lines[0]
        self._rest, self._pending = [last], len(last)
        frames: list[Frame] = []
        try:
            for line in lines:
                if len(line) > self.limit:
                    self._pending = len(line)
                    self._bound()
                if line.strip():
                    frames.append(Frame("", self._text(line.rstrip(b"\r"))))
            self._bound()
        except MalformedStreamError as exc:
            self._failure = exc
            if not frames:
                raise
        return frames

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
        lines.check()
    for frame in lines.close():
        yield frame.event, frame.data
