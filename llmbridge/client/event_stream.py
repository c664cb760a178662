"""``EventStream``: what ``Client.stream`` returns, for one model or a fallback chain.

Rules: an async iterator of ``StreamEvent`` and an async context manager that closes the
HTTP response deterministically; ``provider`` is the provider answering at the moment (a
fallback chain moves it on). It sits below the client and the chain, which both build it.
A stream left unfinished and dropped (a ``break`` without ``async with``) is closed on its
event loop as asyncio does it, quietly, under trio too (trio would warn "async generator ...
garbage collected" for it). Closing it from another task while one waits for its next event
is a ``UsageError`` (the waiting task is the one that can stop it). A background stream
(``background=True``, ``Client.resume``) tells where it stands: ``resume_point``.
What the stream shares with it (the answering provider, the record of what it yielded, where a
background stream stands) is its ``stream.call.StreamState``: ``response()`` folds the record
(the one fold ``complete()`` and a ``run()`` turn use), ``pipe`` puts a step between the
events and the app (``with_partials``) without anyone reaching into the generator.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from types import TracebackType

from ..errors import UsageError
from ..events import StreamEvent
from ..messages import ChatResponse
from ..providers.base import Provider, ResumePoint
from ..stream.call import StreamState
from ..stream.loop_end import close_dropped, trio_token

__all__ = ["EventStream"]


class EventStream:
    """Async iterator of ``StreamEvent``; also an async context manager that closes it."""

    __slots__ = ("__weakref__", "_gen", "_state", "_trio")

    def __init__(self, gen: AsyncIterator[StreamEvent], state: StreamState | Provider) -> None:
        self._gen = gen
        self._state = state if isinstance(state, StreamState) else StreamState(state)
        self._trio = trio_token()

    @property
    def provider(self) -> Provider:
        """The provider answering at the moment (a fallback chain moves it on)."""
        return self._state.provider

    @property
    def state(self) -> StreamState:
        """What the stream shares with this object (``llmbridge.stream.call``)."""
        return self._state

    @property
    def resume_point(self) -> ResumePoint | None:
        """Where a background stream stands: the response's id and the number of the last
        event decoded (``after``), and whether it ended; give them to ``Client.resume`` to
        continue it elsewhere. ``None`` for other streams, or before the response's id came."""
        return self._state.resume_point()

    def pipe(
        self, step: Callable[[AsyncIterator[StreamEvent]], AsyncIterator[StreamEvent]]
    ) -> EventStream:
        """Put ``step`` between the events and the app (before the first is read); ``self``."""
        self._gen = step(self._gen)
        return self

    def response(self) -> ChatResponse:
        """The response folded from what the answering model's stream yielded so far (its
        record: no second fold); complete once the stream ended. A decoder that broke an
        event invariant raises its ``EventOrderError`` here."""
        record = self._state.record
        if record is None:
            raise UsageError("this stream has not started: read it before asking its response")
        return record.result()

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
