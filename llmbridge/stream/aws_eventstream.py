"""The response body as an AWS event stream: frames cut here in one linear buffer, their headers
parsed by botocore, bounded.

Rules:

* Frames are cut here, linearly: one ``bytearray`` holds what follows the last whole frame
  (botocore's ``EventStreamBuffer`` copies its whole buffer for every chunk added and every
  frame taken: 4 MiB of 16-byte frames took 85 s, an 8 MiB frame in 1 KiB pieces 115 s). The
  prelude (lengths and its CRC32) is checked as soon as its 12 bytes are in, the message CRC32
  once the frame is whole; the typed headers are parsed by botocore's
  ``EventStreamHeaderParser``. botocore is imported when the first body is read, never by
  ``import llmbridge``. Without it: ``ConfigurationError`` naming ``llmbridge[bedrock]``.
* A frame's headers are at most 32 KiB (the format allows 128 KiB, but botocore's parser
  copies what is left after every header: 128 KiB of tiny headers is 0.2 s of loop time; AWS
  sends 3 or 4 headers, under 200 bytes).
* Each message is one ``frames.EventMessage`` (its decoder's ``feed_frame``): ``:message-type``
  ``event`` (with its ``:event-type``), ``exception`` (its ``:exception-type`` in
  ``error_type``) or ``error`` (its ``:error-code`` in ``error_type``, the message in its
  ``:error-message`` header); the payload stays bytes (the decoder parses it, once). Any other
  message type is skipped.
* A bad CRC, a malformed prelude, any failure of botocore's header parser (an unknown header
  type was a bare ``KeyError(12)``) → ``MalformedStreamError``; a body that ends inside a frame
  → ``StreamTruncatedError``. Raised after the frames before it were yielded, so the transport
  attaches the partial response. (A payload that is not UTF-8 is its decoder's to refuse:
  orjson checks the encoding as it parses.)
* Bound: a frame whose prelude announces more than ``limit`` bytes is refused at once; once
  more than ``limit`` bytes are buffered without completing a frame, reading stops with
  ``MalformedStreamError``; memory stays within ``limit`` plus one piece.
"""

from __future__ import annotations

import importlib
import struct
import zlib
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError, MalformedStreamError, StreamTruncatedError
from ..frames import EventMessage
from .bounded import DEFAULT_MAX_RESPONSE_BYTES
from .framed import FramedBody, SplitFramer

if TYPE_CHECKING:
    from .record import Record

__all__ = ["CONTENT_TYPE", "EventStreamBody", "iter_eventstream"]

CONTENT_TYPE = "application/vnd.amazon.eventstream"
_PRELUDE = 12  # total length, headers length, prelude CRC32: 4 bytes each, big-endian
_MIN_FRAME = 16  # prelude (12) + message CRC (4): a frame announcing less is malformed
_MAX_HEADERS = 32 * 1024  # the headers of one frame, at most (module rules)
_PRELUDE_FORMAT = struct.Struct(">III")
_CRC_FORMAT = struct.Struct(">I")
_KINDS = {"event": ":event-type", "exception": ":exception-type", "error": ":error-code"}
"""The message types decoders get, each with the header that names its kind."""


def _botocore() -> Any:
    try:
        return importlib.import_module("botocore.eventstream")
    except ImportError as exc:
        raise ConfigurationError(
            "reading an AWS event stream needs botocore: pip install 'llmbridge[bedrock]'"
        ) from exc


def _header(headers: dict[str, Any], name: str) -> str:
    value = headers.get(name, "")
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


class _Framer(SplitFramer[EventMessage]):
    """Bytes in, ``EventMessage``s out: prelude and CRCs checked here, in one buffer read
    linearly; headers parsed by botocore; the bound and the error mapping (see module rules)."""

    __slots__ = ("_buffer", "_headers")

    def __init__(self, *, limit: int, provider: str | None) -> None:
        super().__init__(limit=limit, provider=provider)
        self._headers = _botocore().EventStreamHeaderParser()
        self._buffer = bytearray()  # the bytes after the last whole frame

    @property
    def pending(self) -> int:
        """Bytes buffered that no complete frame has consumed yet."""
        return len(self._buffer)

    def _take(self, data: bytes, frames: list[EventMessage]) -> None:
        buffer = self._buffer
        buffer += data
        at, size = 0, len(buffer)
        try:
            while size - at >= _PRELUDE:
                total, head = self._prelude(buffer, at)
                if size - at < total:
                    break
                frame = buffer[at : at + total]  # the one copy of a frame
                at += total
                self._frame(frame, head, frames)
        finally:
            del buffer[:at]  # what is left: the start of one frame (at most one piece more)
        if len(buffer) > self.limit:
            raise self._malformed(
                f"no complete event-stream frame within {self.limit:,} bytes (max_event_bytes)"
            )

    def _prelude(self, buffer: bytearray, at: int) -> tuple[int, int]:
        """The lengths of the frame at ``at`` (total, headers), its prelude checked."""
        total, head, crc = _PRELUDE_FORMAT.unpack_from(buffer, at)
        if zlib.crc32(buffer[at : at + 8]) != crc:
            raise self._malformed("malformed AWS event stream: the prelude's CRC32 does not match")
        if total < _MIN_FRAME or head > total - _MIN_FRAME:
            raise self._malformed(
                f"an event-stream frame announces {total} bytes, fewer than its parts"
            )
        if head > _MAX_HEADERS:
            raise self._malformed(
                f"malformed AWS event stream: {head:,} bytes of headers (at most {_MAX_HEADERS:,})"
            )
        if total > self.limit:
            raise self._malformed(
                f"an event-stream frame announces {total:,} bytes, more than {self.limit:,} "
                "(max_event_bytes)"
            )
        return total, head

    def _frame(self, frame: bytearray, head: int, frames: list[EventMessage]) -> None:
        """Check ``frame``'s CRC, parse its headers, append what its message type makes."""
        end = len(frame) - 4
        with memoryview(frame) as view:
            crc = zlib.crc32(view[:end])
        if crc != _CRC_FORMAT.unpack_from(frame, end)[0]:
            raise self._malformed("malformed AWS event stream: the message's CRC32 does not match")
        try:
            headers = self._headers.parse(bytes(frame[_PRELUDE : _PRELUDE + head]))
        except Exception as exc:  # any failure of botocore's parser is a malformed frame
            raise self._malformed(
                f"malformed AWS event stream: unreadable headers ({type(exc).__name__}: "
                f"{str(exc)[:200]})"
            ) from exc
        kind = headers.get(":message-type")
        name = _KINDS.get(kind) if kind.__class__ is str else None
        if name is None:
            return
        payload = bytes(frame[_PRELUDE + head : end])
        if kind == "event":
            frames.append(
                EventMessage(kind, payload, event_type=_header(headers, name), headers=headers)
            )
        else:
            frames.append(
                EventMessage(kind, payload, error_type=_header(headers, name), headers=headers)
            )

    def _malformed(self, message: str) -> MalformedStreamError:
        return MalformedStreamError(message, provider=self.provider)

    def close(self) -> list[EventMessage]:
        self.check()
        if self._buffer:
            raise StreamTruncatedError(
                f"the event stream ended inside a frame ({len(self._buffer)} bytes left over)",
                provider=self.provider,
            )
        return []


class EventStreamBody(FramedBody[EventMessage]):
    """A response's frames as the transport reads them (``framed.FramedBody`` over this
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
        framer = _Framer(limit=limit, provider=provider)
        super().__init__(response, framer, max_bytes=max_bytes, record=record)


def iter_eventstream(
    body: bytes | Iterable[bytes], *, limit: int = 16 * 1024 * 1024, provider: str | None = None
) -> Iterator[EventMessage]:
    """The ``EventMessage``s of an AWS event-stream body (bytes, or chunks split anywhere),
    framed exactly as the transport frames a live response. For tests and decoders."""
    framer = _Framer(limit=limit, provider=provider)
    for chunk in [body] if isinstance(body, bytes) else body:
        yield from framer.feed(chunk)
        framer.check()
    framer.close()
