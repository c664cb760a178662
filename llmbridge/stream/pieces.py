"""A response body's decoded bytes in pieces of at most ``PIECE_BYTES``: the one byte reader
under every framing (SSE through ``bounded``, AWS event streams and NDJSON through ``framed``).

Rules:

* A gzip or deflate body is inflated here a piece at a time (zlib's ``max_length``), never a
  whole network read at once (65 KB of gzip is 64 MB of text); other encodings (br, zstd, or
  several) are decoded by httpx (a whole read at once), then cut into pieces; an identity body
  is cut into pieces. A body already read (mocks) is cut into pieces too.
* Between two pieces of one network read (a read that inflates to many pieces, or one big
  chunk) the reader yields to the event loop (``anyio.lowlevel.checkpoint``), so decoding a
  hostile body never holds the loop for more than one piece's work. The first piece after a
  network read does not (the read awaited already): the hot path pays nothing.
* ``aclose()`` closes the response, then ends httpx's chain of async generators
  (``Response.aiter_raw`` → ``BoundAsyncStream.__aiter__`` → httpcore's): closing only the
  outermost leaves the inner ones suspended, and trio warns when they are collected
  (``ResourceWarning``), which is what a chunked body with frames still buffered in h11 does.
  On the closed response the chain is stepped to its end (what h11 buffered, then the closed
  connection's error), at most ``_DRAIN_STEPS`` steps, under a deadline of zero so nothing
  waits. Idempotent.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.lowlevel
import httpx

__all__ = ["PIECE_BYTES", "Pieces"]

PIECE_BYTES = 64 * 1024
"""Decoded bytes handed to a framing at once, at most."""
_INFLATED = {"gzip": zlib.MAX_WBITS | 16, "x-gzip": zlib.MAX_WBITS | 16, "deflate": zlib.MAX_WBITS}
_DRAIN_STEPS = 4096  # a socket read's worth of tiny chunks buffered in h11, and then some


class _Inflate:
    """A gzip or deflate body undone a piece at a time (httpx's decoders take a whole read)."""

    __slots__ = ("_raw_deflate", "_z")

    def __init__(self, wbits: int) -> None:
        self._z = zlib.decompressobj(wbits)
        self._raw_deflate = wbits == zlib.MAX_WBITS  # deflate: zlib-wrapped, else raw (as httpx)

    def take(self, data: bytes) -> tuple[bytes, bytes, bool]:
        """At most ``PIECE_BYTES`` of output, the input left, and whether output may still wait
        inside zlib with no input left (a full piece came out)."""
        try:
            out = self._z.decompress(data, PIECE_BYTES)
        except zlib.error as exc:
            if not self._raw_deflate:
                raise httpx.DecodingError(str(exc)) from exc
            self._raw_deflate = False  # deflate without its zlib header, as some servers send
            self._z = zlib.decompressobj(-zlib.MAX_WBITS)
            return self.take(data)
        self._raw_deflate = False
        rest = self._z.unconsumed_tail
        return out, rest, not rest and len(out) == PIECE_BYTES and not self._z.eof

    def flush(self) -> bytes:
        try:
            return self._z.flush()
        except zlib.error as exc:  # pragma: no cover - zlib reports corruption in take()
            raise httpx.DecodingError(str(exc)) from exc


def _reader(response: Any) -> tuple[AsyncIterator[bytes], _Inflate | None]:
    encodings = response.headers.get_list("content-encoding", split_commas=True)
    codings = [c.strip().lower() for c in encodings if c.strip().lower() != "identity"]
    if getattr(response, "is_stream_consumed", False):  # read already (mocks)
        return response.aiter_bytes(), None  # decoded in memory: cut into pieces
    if not codings:
        return response.aiter_raw(), None
    if len(codings) == 1 and codings[0] in _INFLATED:
        return response.aiter_raw(), _Inflate(_INFLATED[codings[0]])
    return response.aiter_bytes(), None  # br, zstd, several: httpx decodes a whole read


class Pieces:
    """A response's decoded body, ``PIECE_BYTES`` at most at a time (see module rules)."""

    __slots__ = ("_inflate", "_left", "_more", "_raw", "_response", "_within")

    def __init__(self, response: Any) -> None:
        self._response = response
        self._raw: AsyncIterator[bytes] | None = None
        self._inflate: _Inflate | None = None
        self._left = b""
        self._more = False  # inflated output may still wait inside zlib
        self._within = False  # the next piece comes from the read a piece already came from

    def open(self) -> None:
        """Start reading the body (once: ``next`` reads nothing before)."""
        if self._raw is None:
            self._raw, self._inflate = _reader(self._response)

    async def next(self) -> bytes:
        """The next piece of the decoded body; ``b""`` at its end (or once closed)."""
        while True:
            data = self._left
            if not data and not self._more:
                raw = self._raw
                if raw is None:  # read to the end, or closed
                    return b""
                try:
                    self._left = await raw.__anext__()
                except StopAsyncIteration:
                    self._raw = None  # read to the end: nothing left to close but the response
                    return self._inflate.flush() if self._inflate is not None else b""
                self._within = False
                continue
            if self._within:
                await anyio.lowlevel.checkpoint()  # one read, many pieces: let the loop run
            self._within = True
            if self._inflate is not None:
                piece, self._left, self._more = self._inflate.take(data)
            else:
                piece, self._left = data[:PIECE_BYTES], data[PIECE_BYTES:]
            if piece:
                return piece

    async def aclose(self) -> None:
        """Close the response, then end httpx's generator chain (module rules)."""
        raw, self._raw = self._raw, None
        self._left, self._more = b"", False
        await self._response.aclose()
        if raw is None:
            return
        with anyio.move_on_after(0):  # nothing may wait: a step that would is cancelled
            try:
                for _ in range(_DRAIN_STEPS):
                    await raw.__anext__()
            except Exception:  # the end, or the closed stream's error: the chain is over
                return
        aclose = getattr(raw, "aclose", None)
        if aclose is not None:
            await aclose()
