"""``EventStream``: what ``Client.stream`` returns, for one model or a fallback chain.

Rules: an async iterator of ``StreamEvent`` and an async context manager that closes the
HTTP response deterministically; ``provider`` is the provider answering at the moment (a
fallback chain moves it on). It sits below the client and the chain, which both build it.
A stream left unfinished and dropped (a ``break`` without ``async with``) is closed on its
event loop as asyncio does it, quietly, under trio too (trio would warn "async generator ...
garbage collected" for it). Closing it from another task while one waits for its next event
is a ``UsageError`` (the waiting task is the one that can stop it). A background stream
(``background=True``, ``Client.resume``) tells where it stands: ``resume_point``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from types import TracebackType
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..events import StreamEvent
from ..providers.base import Provider, ResumePoint
from ..stream.loop_end import close_dropped, trio_token

if TYPE_CHECKING:
    from ..stream.resume import ResumeTracker

__all__ = ["EventStream"]


class EventStream:
    """Async iterator of ``StreamEvent``; also an async context manager that closes it."""

    __slots__ = ("__weakref__", "_gen", "_resume", "_trio", "provider")

    def __init__(
        self,
        gen: AsyncIterator[StreamEvent],
        provider: Provider,
        *,
        resume: ResumeTracker | None = None,
    ) -> None:
        self._gen = gen
        self.provider = provider
        self._trio = trio_token()
        self._resume = resume

    @property
    def resume_point(self) -> ResumePoint | None:
        """Where a background stream stands: the response's id and the number of the last
        event decoded (``after``), and whether it ended; give them to ``Client.resume`` to
        continue it elsewhere. ``None`` for other streams, or before the response's id came."""
        return None if self._resume is None else self._resume.point()

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        # Under trio the stream must outlive its generator's users (``__del__`` closes it);
        # elsewhere the generator itself is iterated: nothing more per event.
        return self if self._trio is not None else self._gen

    def __anext__(self) -> Awaitable[StreamEvent]:
        return self._gen.__anext__()

    async def aclose(self) -> None:
        aclose = getattr(self._gen, "aclose", None)
        if aclose is None:
            return
        if getattr(self._gen, "ag_running", False):
            raise UsageError(
                "this stream is being read by another task (it waits for the next event): stop "
                "it from that task (break, or cancel the task), or close it once that read ends"
            )
        await aclose()

    async def __aenter__(self) -> EventStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __del__(self) -> None:
        close_dropped(getattr(self, "_trio", None), getattr(self, "_gen", None))
