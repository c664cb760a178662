"""Typed frames: what a framing that is not SSE hands its decoder, and the decoder's protocol.

Rules:

* SSE events stay httpx-sse's ``ServerSentEvent``; their decoders keep ``feed(event, data)``
  (``providers.base.Decoder``). The other framings of ``llmbridge.stream`` make these frames:
* ``EventMessage``: one AWS event-stream message (``stream.aws_eventstream``):
  ``message_type`` (``"event"``, ``"exception"``, ``"error"``), ``event_type`` (an event's
  ``:event-type``), ``error_type`` (an exception's ``:exception-type``, an error's
  ``:error-code``; ``None`` for an event), ``headers`` (every header, as botocore parsed it)
  and ``payload`` (the bytes as sent: orjson parses bytes, so nothing is decoded twice).
  ``error_text`` is what an exception or error says: an exception's payload (JSON, as text),
  an error's ``:error-message`` header.
* ``Line``: one non-blank NDJSON line (``stream.ndjson``): ``data`` (its bytes, the line end
  and a ``\\r`` before it dropped) and ``terminated`` (``False`` for a last line the body ended
  without a line end after: whole or cut, the decoder tells).
* A decoder of such a framing is a ``FrameDecoder[F]``: ``feed_frame(frame) -> events`` per
  frame, ``close()`` at the end of the body; exceptions arrive as a typed field, never as a
  prefix in a string.
* ``pair()`` gives a frame as a decoder written against ``feed(event, data)`` for these
  framings was given it (a plug-in from before typed frames: ``stream.framed.frame_feed``
  adapts it); nothing built in reads that form.
* A whole answer (framing ``whole``, ``ChatRequest.stream=False``) is one frame: the parsed
  JSON body itself (``parse_whole``: a body that is not JSON, or is cut, is a
  ``MalformedStreamError`` quoting its start), given once to its decoder's ``feed_frame``.
* This module imports nothing of IO and nothing of the providers: both floors import it.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar, runtime_checkable

import orjson

from .errors import MalformedStreamError
from .events import StreamEvent

__all__ = ["EventMessage", "FrameDecoder", "Line", "parse_whole"]

_F = TypeVar("_F", contravariant=True)


class EventMessage:
    """One AWS event-stream message (see module rules)."""

    __slots__ = ("error_type", "event_type", "headers", "message_type", "payload")

    def __init__(
        self,
        message_type: str,
        payload: bytes = b"",
        *,
        event_type: str = "",
        error_type: str | None = None,
        headers: dict[str, Any] | None = None,
    ) -> None:
        self.message_type = message_type
        self.event_type = event_type
        self.error_type = error_type
        self.headers: dict[str, Any] = {} if headers is None else headers
        self.payload = payload

    @property
    def error_text(self) -> str:
        """What an exception says (its payload, as text) or an error (its ``:error-message``)."""
        if self.message_type == "exception":
            return self.payload.decode("utf-8", "replace")
        value = self.headers.get(":error-message", "")
        return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)

    def pair(self) -> tuple[str, str]:
        """``(event, data)`` as a decoder written before typed frames was given them."""
        if self.message_type == "event":
            return self.event_type, self.payload.decode("utf-8")
        return f"{self.message_type}:{self.error_type}", self.error_text

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EventMessage):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        kind = self.error_type if self.error_type is not None else self.event_type
        return f"EventMessage({self.message_type!r}, {kind!r}, {self.payload[:80]!r})"


class Line:
    """One non-blank NDJSON line (see module rules)."""

    __slots__ = ("data", "terminated")

    def __init__(self, data: bytes, terminated: bool = True) -> None:
        self.data = data
        self.terminated = terminated

    def pair(self) -> tuple[str, str]:
        """``(event, data)`` as a decoder written before typed frames was given them."""
        return "" if self.terminated else "unterminated", self.data.decode("utf-8")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Line):
            return NotImplemented
        return self.data == other.data and self.terminated == other.terminated

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        cut = "" if self.terminated else ", terminated=False"
        return f"Line({self.data[:80]!r}{cut})"


@runtime_checkable
class FrameDecoder(Protocol[_F]):
    """Sans-IO, for a typed framing: ``feed_frame(frame)`` per frame, ``close()`` at the end."""

    def feed_frame(self, frame: _F) -> list[StreamEvent]: ...

    def close(self) -> list[StreamEvent]: ...

    def held(self) -> list[StreamEvent]:
        """Events decoded but kept back (``providers.base.BaseDecoder`` gives the default)."""
        ...

    def resume_point(self) -> Any:
        """Where a resumable stream stands (``None`` for these framings)."""
        ...


def parse_whole(body: bytes, *, provider: str | None) -> Any:
    """``body`` parsed as one JSON answer; ``MalformedStreamError`` when it is not JSON or cut."""
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        what = "empty" if not body.strip() else "not JSON, or cut inside its JSON"
        raise MalformedStreamError(
            f"expected a whole JSON answer, the body is {what} ({exc}): "
            f"{body[:200].decode('utf-8', 'replace')!r}",
            provider=provider,
        ) from None
