"""The response body of a whole (non-streaming) answer: read whole, bounded, parsed once, and
handed to its decoder as one frame (framing ``whole``, ``ChatRequest.stream=False``).

Rules:

* The body comes in pieces (``framed.FramedBody`` over ``pieces.Pieces``: gzip inflated a piece
  at a time, ``max_response_bytes`` counted); they are kept until the end of the body, at most
  ``opening.MAX_JSON_BODY`` bytes (more is a ``MalformedStreamError`` at once).
* At the end of the body the bytes are parsed once (``frames.parse_whole``); the parsed value is the one frame
  the decoder's ``feed_frame`` is given. A body that is not JSON, or is cut inside its JSON,
  is a ``MalformedStreamError`` quoting its start. A body cut by the connection is the
  transport's ``StreamTruncatedError``, as for every framing.
* No content type is checked: gateways label JSON answers loosely; the parse decides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import MalformedStreamError
from ..frames import parse_whole
from .bounded import DEFAULT_MAX_RESPONSE_BYTES
from .framed import FramedBody, SplitFramer

if TYPE_CHECKING:
    from .record import Record

__all__ = ["CONTENT_TYPE", "MAX_WHOLE_BODY", "WholeBody"]

CONTENT_TYPE = "application/json"

MAX_WHOLE_BODY = 16 * 1024 * 1024
"""Bytes of one whole answer read at most (``opening.MAX_JSON_BODY``, the same bound)."""


class _WholeFramer(SplitFramer[Any]):
    """Bytes in, nothing out until the end of the body: then the parsed answer."""

    __slots__ = ("_parts", "_size")

    def __init__(self, *, limit: int, provider: str | None) -> None:
        super().__init__(limit=limit, provider=provider)
        self._parts: list[bytes] = []
        self._size = 0

    def _take(self, data: bytes, frames: list[Any]) -> None:
        self._size += len(data)
        if self._size > self.limit:
            raise MalformedStreamError(
                f"a whole answer larger than {self.limit:,} bytes", provider=self.provider
            )
        self._parts.append(data)

    def close(self) -> list[Any]:
        self.check()
        body = b"".join(self._parts)
        self._parts = []
        return [parse_whole(body, provider=self.provider)]


class WholeBody(FramedBody[Any]):
    """A whole answer as the transport reads it: one frame, the parsed body (module rules).
    ``limit`` (the per-event bound of the streaming framings) is not this body's: a whole
    answer is bounded by ``MAX_WHOLE_BODY``."""

    __slots__ = ()

    def __init__(
        self,
        response: Any,
        *,
        limit: int = MAX_WHOLE_BODY,
        max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        provider: str | None = None,
        record: Record | None = None,
    ) -> None:
        framer = _WholeFramer(limit=MAX_WHOLE_BODY, provider=provider)
        super().__init__(response, framer, max_bytes=max_bytes, record=record)
