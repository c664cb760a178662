"""The response body as newline-delimited JSON (Ollama's native API), bounded.

Rules:

* Framing is lines: a body is split at ``\\n`` (a ``\\r`` before it is dropped); every
  non-blank line is one ``frames.Line`` (its decoder's ``feed_frame``), its bytes as they came:
  the decoder parses them once (orjson checks the UTF-8 as it parses; a line split across
  chunks is kept whole). No JSON is parsed here. The body comes in pieces of at most 64 KiB
  (``framed.FramedBody`` over ``pieces.Pieces``: a gzip body inflated a piece at a time); a
  piece's lines are split off at once (64 KiB of ``{}`` lines is 21,845 of them, ~5 ms) and
  ``FramedBody`` gives the loop a turn between batches of them.
* A last line the body ends without a ``\\n`` after is ``Line(data, terminated=False)``: the
  decoder reads it if it is whole and says the stream was cut (``StreamTruncatedError``) if not.
* Bound: a line of more than ``limit`` bytes, or once more than ``limit`` bytes arrive without
  a line end (one endless line, a gzip bomb), stops reading with ``MalformedStreamError``;
  memory stays within ``limit`` plus one piece. Raised after the lines before it were yielded,
  so the transport attaches the partial.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..errors import MalformedStreamError
from ..frames import Line
from .bounded import DEFAULT_MAX_RESPONSE_BYTES
from .framed import FramedBody, SplitFramer

if TYPE_CHECKING:
    from .record import Record

__all__ = ["CONTENT_TYPE", "NdjsonBody", "iter_ndjson"]

CONTENT_TYPE = "application/x-ndjson"


class _Lines(SplitFramer[Line]):
    """Bytes in, ``Line``s out: lines, the bound and the error mapping."""

    __slots__ = ("_pending", "_rest")

    def __init__(self, *, limit: int, provider: str | None) -> None:
        super().__init__(limit=limit, provider=provider)
        self._rest: list[bytes] = []  # the line still open, in pieces (no quadratic joins)
        self._pending = 0

    def _take(self, data: bytes, frames: list[Line]) -> None:
        lines = data.split(b"\n")
        tail = lines.pop()  # what follows the last line end: the start of the next line
        if lines and self._rest:  # the line left open by the last piece ends in this one
            lines[0] = b"".join([*self._rest, lines[0]])
            self._rest, self._pending = [], 0
        limit, append = self.limit, frames.append
        for line in lines:
            if len(line) > limit:
                self._pending = len(line)
                self._bound()
            if line and not line.isspace():
                append(Line(line[:-1] if line.endswith(b"\r") else line))
        if tail:
            self._rest.append(tail)
            self._pending += len(tail)
            self._bound()

    def _bound(self) -> None:
        if self._pending > self.limit:
            raise MalformedStreamError(
                f"no line end within {self.limit:,} bytes (max_event_bytes): "
                "the body is not NDJSON",
                provider=self.provider,
            )

    def close(self) -> list[Line]:
        """The unterminated last line, if the body ended inside one."""
        self.check()
        rest = b"".join(self._rest)
        self._rest, self._pending = [], 0
        if rest.endswith(b"\r"):
            rest = rest[:-1]
        return [Line(rest, terminated=False)] if rest.strip() else []


class NdjsonBody(FramedBody[Line]):
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
) -> Iterator[Line]:
    """The ``Line``s of an NDJSON body (bytes, or chunks split anywhere), framed exactly as the
    transport frames a live response. For tests and decoders."""
    lines = _Lines(limit=limit, provider=provider)
    for chunk in [body] if isinstance(body, bytes) else body:
        yield from lines.feed(chunk)
        lines.check()
    yield from lines.close()
