"""``EventStream``: what ``Client.stream`` returns, for one model or a fallback chain.

Rules: an async iterator of ``StreamEvent`` and an async context manager that closes the
HTTP response deterministically; ``provider`` is the provider answering at the moment (a
fallback chain moves it on). It sits below the client and the chain, which both build it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from types import TracebackType

from ..events import StreamEvent
from ..providers.base import Provider

__all__ = ["EventStream"]


class EventStream:
    """Async iterator of ``StreamEvent``; also an async context manager that closes it."""

    __slots__ = ("_gen", "provider")

    def __init__(self, gen: AsyncIterator[StreamEvent], provider: Provider) -> None:
        self._gen = gen
        self.provider = provider

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        return self._gen

    async def __anext__(self) -> StreamEvent:
        return await self._gen.__anext__()

    async def aclose(self) -> None:
        aclose = getattr(self._gen, "aclose", None)
        if aclose is not None:
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
