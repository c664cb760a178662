"""The response body as botocore reads AWS event streams (its framing, not ours), bounded.

Rules:

* Framing is botocore's ``botocore.eventstream.EventStreamBuffer`` (prelude, typed headers,
  both CRC32s checked); botocore is imported when the first body is read, never by
  ``import llmbridge``. Without it: ``ConfigurationError`` naming ``llmbridge[bedrock]``.
* Decoders get the same ``feed(event, data)`` as for SSE, one call per frame:
  ``:message-type`` ``event`` → ``(<:event-type>, <payload as str>)``; ``exception`` →
  ``("exception:" + <:exception-type>, <payload>)``; ``error`` →
  ``("error:" + <:error-code>, <:error-message>)``. Any other message type is skipped.
* A bad CRC, a malformed prelude or headers → ``MalformedStreamError``; a body that ends inside
  a frame → ``StreamTruncatedError``. Raised after the frames before it were yielded, so the
  transport attaches the partial response.
* Bound: once more than ``limit`` bytes are buffered without completing a frame (a frame whose
  prelude announces more, a body of garbage that never makes a frame), reading stops with
  ``MalformedStreamError``; memory stays within ``limit`` plus one chunk.
"""

from __future__ import annotations

import importlib
import struct
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError, MalformedStreamError, StreamTruncatedError
from .bounded import DEFAULT_MAX_RESPONSE_BYTES
from .framed import Frame, FramedBody

if TYPE_CHECKING:
    from .record import Record

__all__ = ["CONTENT_TYPE", "EventStreamBody", "Frame", "iter_eventstream"]

CONTENT_TYPE = "application/vnd.amazon.eventstream"
_MIN_FRAME = 16  # prelude (12) + message CRC (4): a frame announcing less is malformed


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


class _Framer:
    """Bytes in, ``Frame``s out: botocore's buffer plus the bound and the error mapping."""

    __slots__ = ("_buffer", "_errors", "_failure", "limit", "pending", "provider")

    def __init__(self, *, limit: int, provider: str | None) -> None:
        module = _botocore()
        self._buffer = module.EventStreamBuffer()
        self._errors: type[Exception] = module.ParserError
        self.limit = limit
        self.pending = 0
        """Bytes buffered that no complete frame has consumed yet."""
        self.provider = provider
        self._failure: MalformedStreamError | None = None

    def check(self) -> None:
        """Raise the error met after the frames last returned (they go out first)."""
        if self._failure is not None:
            raise self._failure

    def feed(self, data: bytes) -> list[Frame]:
        """The frames ``data`` completes; an error after some of them waits for ``check``."""
        self.check()
        frames: list[Frame] = []
        try:
            self._frames(data, frames)
        except MalformedStreamError as exc:
            self._failure = exc
            if not frames:
                raise
        return frames

    def _frames(self, data: bytes, frames: list[Frame]) -> None:
        buffer = self._buffer
        buffer.add_data(data)
        self.pending += len(data)
        try:
            for message in buffer:
                size = message.prelude.total_length
                if size < _MIN_FRAME or message.prelude.payload_length < 0:
                    raise MalformedStreamError(
                        f"an event-stream frame announces {size} bytes, fewer than its parts",
                        provider=self.provider,
                    )
                self.pending -= size
                headers = message.headers
                kind = headers.get(":message-type")
                if kind == "event":
                    frames.append(
                        Frame(_header(headers, ":event-type"), message.payload.decode("utf-8"))
                    )
                elif kind == "exception":
                    frames.append(
                        Frame(
                            "exception:" + _header(headers, ":exception-type"),
                            message.payload.decode("utf-8", "replace"),
                        )
                    )
                elif kind == "error":
                    frames.append(
                        Frame(
                            "error:" + _header(headers, ":error-code"),
                            _header(headers, ":error-message"),
                        )
                    )
        except UnicodeDecodeError as exc:
            raise MalformedStreamError(
                f"an event-stream payload is not UTF-8: {exc}", provider=self.provider
            ) from exc
        except (self._errors, struct.error, IndexError, ValueError) as exc:
            # botocore's reader meets a prelude whose lengths lie with the struct and slice
            # errors of the bytes it then misreads
            raise MalformedStreamError(
                f"malformed AWS event stream: {type(exc).__name__}: {exc}", provider=self.provider
            ) from exc
        if self.pending > self.limit:
            raise MalformedStreamError(
                f"no complete event-stream frame within {self.limit:,} bytes (max_event_bytes)",
                provider=self.provider,
            )

    def close(self) -> list[Frame]:
        self.check()
        if self.pending:
            raise StreamTruncatedError(
                f"the event stream ended inside a frame ({self.pending} bytes left over)",
                provider=self.provider,
            )
        return []


class EventStreamBody(FramedBody):
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
) -> Iterator[tuple[str, str]]:
    """The ``(event, data)`` pairs of an AWS event-stream body (bytes, or chunks split
    anywhere), framed exactly as the transport frames a live response. For tests and decoders."""
    framer = _Framer(limit=limit, provider=provider)
    for chunk in [body] if isinstance(body, bytes) else body:
        for frame in framer.feed(chunk):
            yield frame.event, frame.data
        framer.check()
    framer.close()
