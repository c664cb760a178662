"""The streaming writer of a batch's input: lines to a temporary file, cut at the provider's limits.

Rules: each request's line is written as it is encoded (never the whole batch in memory: lines
gather in a buffer of at most ``WRITE_BYTES`` that is written in one call, and the file spills
to disk past ``SPOOL_BYTES``); a line that would take a file past ``max_requests``
lines or ``max_bytes`` bytes (its ``head`` and ``tail`` counted) closes it first, so one
submission becomes several files (several provider jobs behind one ``BatchJob``). A
``Chunk`` is read back piece by piece, wrapped in ``head`` and ``tail`` (a multipart envelope,
``{"requests": [`` ... ``]}``), afresh for every attempt of its upload.
"""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import IO

import anyio.lowlevel

from ..errors import UsageError

__all__ = ["PIECE", "SPOOL_BYTES", "WRITE_BYTES", "Chunk", "JsonlWriter"]

SPOOL_BYTES = 8 * 1024 * 1024
"""Bytes of a file kept in memory before it spills to disk."""
PIECE = 1024 * 1024
"""Bytes read back per piece of an upload."""
WRITE_BYTES = 256 * 1024
"""Bytes of lines gathered before they are written to the file at once."""


@dataclass(slots=True)
class Chunk:
    """One file's worth of lines (see the module rules)."""

    file: IO[bytes]
    count: int
    size: int
    """Bytes of the lines and their separators (without ``head`` / ``tail``)."""
    buffer: list[bytes] = field(default_factory=list)
    """Lines (and separators) not yet written to ``file``."""
    buffered: int = 0

    def write(self, data: bytes) -> None:
        self.buffer.append(data)
        self.buffered += len(data)
        self.size += len(data)
        if self.buffered >= WRITE_BYTES:
            self.flush()

    def flush(self) -> None:
        if self.buffer:
            self.file.write(b"".join(self.buffer))
            self.buffer.clear()
            self.buffered = 0

    def length(self, head: bytes = b"", tail: bytes = b"") -> int:
        return len(head) + self.size + len(tail)

    async def pieces(self, head: bytes = b"", tail: bytes = b"") -> AsyncIterator[bytes]:
        """The file's bytes wrapped in ``head`` and ``tail``, a piece at a time."""
        if head:
            yield head
        self.flush()
        self.file.seek(0)
        left = self.size
        while left > 0:
            piece = self.file.read(min(PIECE, left))
            if not piece:  # pragma: no cover - the file is ours
                break
            left -= len(piece)
            yield piece
            await anyio.lowlevel.checkpoint()
        if tail:
            yield tail

    def close(self) -> None:
        self.file.close()


class JsonlWriter:
    """Lines in, ``Chunk``s out at the limits (module rules); ``sep`` between two lines."""

    __slots__ = ("_chunk", "max_bytes", "max_requests", "overhead", "sep")

    def __init__(
        self, *, max_requests: int, max_bytes: int, sep: bytes = b"\n", overhead: int = 0
    ) -> None:
        self.max_requests = max_requests
        self.max_bytes = max_bytes
        self.sep = sep
        self.overhead = overhead
        """Bytes each file's ``head`` and ``tail`` take."""
        self._chunk: Chunk | None = None

    def add(self, line: bytes) -> Chunk | None:
        """Write ``line``; the chunk it closed (full before it), if any."""
        if len(line) + self.overhead > self.max_bytes:
            raise UsageError(
                f"one batch request is {len(line):,} bytes encoded: over the provider's "
                f"{self.max_bytes:,} bytes per batch file"
            )
        full = None
        chunk = self._chunk
        if chunk is not None and (
            chunk.count >= self.max_requests
            or chunk.size + len(self.sep) + len(line) + self.overhead > self.max_bytes
        ):
            full, chunk = chunk, None
        if chunk is None:
            chunk = self._chunk = Chunk(tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES), 0, 0)  # noqa: SIM115 - closed by Chunk.close
        elif self.sep:
            chunk.write(self.sep)
        chunk.write(line)
        chunk.count += 1
        if full is not None:
            full.flush()
        return full

    def finish(self) -> Chunk | None:
        """The last chunk (``None``: no line was written since the last one)."""
        chunk, self._chunk = self._chunk, None
        if chunk is not None:
            chunk.flush()
        return chunk
