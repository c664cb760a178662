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
from typing import Any

import anyio

from ..errors import MalformedStreamError
from .eventstream import Frame

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


class NdjsonBody:
    """A response's lines as the transport reads them: ``events()`` is an async iterator of
    ``Frame`` (``.event``, ``.data``), ``aclose()`` closes the response."""

    __slots__ = ("_bytes", "_frames", "_index", "_lines", "_response", "headers")

    def __init__(self, response: Any, *, limit: int, provider: str | None = None) -> None:
        self._response = response
        self.headers = response.headers
        self._lines = _Lines(limit=limit, provider=provider)
        self._bytes: Any = None
        self._frames: list[Frame] = []
        self._index = 0

    def events(self) -> NdjsonBody:
        if self._bytes is None:
            self._bytes = self._response.aiter_bytes()
        return self

    def __aiter__(self) -> NdjsonBody:
        return self

    async def __anext__(self) -> Frame:
        frames, index = self._frames, self._index
        while index >= len(frames):
            self._lines.check()
            chunks = self._bytes
            if chunks is None:  # read to the end, or closed
                raise StopAsyncIteration
            try:
                chunk = await chunks.__anext__()
            except StopAsyncIteration:
                self._bytes = None
                frames, index = self._lines.close(), 0
                self._frames = frames
                if not frames:
                    raise
                continue
            frames, index = self._lines.feed(chunk), 0
            self._frames = frames
        self._index = index + 1
        return frames[index]

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
