"""``SyncEventStream``: what ``SyncClient.stream`` and ``SyncClient.resume`` return.

An iterator of ``StreamEvent`` (each read in the client's portal, see ``llmbridge.sync``) and
a context manager that closes the stream; ``resume_point`` is the async ``EventStream``'s, so a
script can continue a background response elsewhere (``SyncClient.resume``).
"""

from __future__ import annotations

from collections.abc import Iterator
from types import TracebackType

from .client import EventStream
from .events import StreamEvent
from .providers.base import ResumePoint

__all__ = ["SyncEventStream"]


class SyncEventStream(Iterator[StreamEvent]):
    """Blocking events of one stream (iterate it; ``with`` closes it however the block ends)."""

    __slots__ = ("_events", "_read")

    def __init__(self, read: Iterator[StreamEvent], events: EventStream) -> None:
        self._read = read
        """The portal-side reading generator (closing it closes the stream in the portal)."""
        self._events = events

    @property
    def resume_point(self) -> ResumePoint | None:
        """``EventStream.resume_point``: a background stream's response id and last event
        number (give them to ``SyncClient.resume``); ``None`` for other streams."""
        return self._events.resume_point

    def __iter__(self) -> SyncEventStream:
        return self

    def __next__(self) -> StreamEvent:
        return next(self._read)

    def close(self) -> None:
        """Close the stream (its HTTP response) now; iterating it after is over."""
        close = getattr(self._read, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> SyncEventStream:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
