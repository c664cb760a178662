"""The response body as newline-delimited JSON (Ollama's native API), bounded.

Rules:

* Framing is lines: a body is split at ``\\n`` (a ``\\r`` before it is dropped); every
  non-blank line is one frame. The text is decoded as UTF-8 (a character split across chunks is
  kept whole; bytes that are not UTF-8 are ``MalformedStreamError``). No JSON is parsed here.
* Decoders get the same ``feed(event, data)`` as for SSE, one call per line: ``("", line)``. A
  last line the body ends without a ``\\n`` after is given as ``("unterminated", line)``: the
  decoder reads it if it is whole and says the stream was cut (``StreamTruncatedError``) if not.
* Bound: once more than ``limit`` bytes arrive without a line end (one endless line, a gzip
  bomb), reading stops with ``MalformedStreamError``; memory stays within ``limit`` plus one
  chunk. Raised after the lines before it were yielded, so the transport attaches the partial.
"""

from __future__ import annotations

import codecs
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

    __slots__ = ("_decoder", "_failure", "_pending", "_rest", "limit", "provider")

    def __init__(self, *, limit: int, provider: str | None) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._rest: list[str] = []  # the line still open, in pieces (no quadratic joins)
        self._pending = 0
        self._failure: MalformedStreamError | None = None
        self.limit = limit
        self.provider = provider

    def check(self) -> None:
        """Raise the error met after the lines last returned (they go out first)."""
        if self._failure is not None:
            raise self._failure

    def _text(self, data: bytes, final: bool = False) -> str:
        try:
            return self._decoder.decode(data, final)
        except UnicodeDecodeError as exc:
            raise MalformedStreamError(
                f"an NDJSON line is not UTF-8: {exc}", provider=self.provider
            ) from exc

    def feed(self, data: bytes) -> list[Frame]:
        """The lines ``data`` completes; an error after some of them waits for ``check``."""
        self.check()
        try:
            text = self._text(data)
        except MalformedStreamError as exc:
            self._failure = exc
            raise
        if "\n" not in text:
            self._rest.append(text)
            self._pending += len(text)
            self._bound()
            return []
        lines = ("".join(self._rest) + text).split("\n")
        last = lines.pop()
        self._rest, self._pending = [last], len(last)
        frames = [Frame("", line.rstrip("\r")) for line in lines if line.strip()]
        try:
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
        rest = ("".join(self._rest) + self._text(b"", final=True)).rstrip("\r")
        self._rest, self._pending = [], 0
        return [Frame(UNTERMINATED, rest)] if rest.strip() else []


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
