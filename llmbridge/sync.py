"""``SyncClient``: the blocking twin of ``Client`` for scripts, a thin shell over it.

Rules: one event loop runs in a private thread (an anyio blocking portal); every method
hands the work to the async ``Client`` and blocks on it, so behaviour (retries, errors,
partial responses, closing on ``break``) is exactly the async client's.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Any

from anyio.from_thread import BlockingPortal, start_blocking_portal

from .client import Client, ModelRef
from .events import StreamEvent
from .response import ChatResponse
from .types import ChatMessage

if TYPE_CHECKING:
    from .tools.loop import LoopEvent, ToolLoop

__all__ = ["SyncClient", "SyncToolLoop"]


class SyncToolLoop:
    """Blocking view of a ``ToolLoop``: iterate for events; ``messages``, ``stop_reason``… after."""

    def __init__(self, portal: BlockingPortal, loop: ToolLoop) -> None:
        self._portal = portal
        self.loop = loop

    def __iter__(self) -> Iterator[LoopEvent]:
        while True:
            try:
                yield self._portal.call(self.loop.__anext__)
            except StopAsyncIteration:
                return

    def __getattr__(self, name: str) -> Any:
        return getattr(self.loop, name)


class SyncClient:
    """``SyncClient(**client_options)``: ``stream()`` yields events, ``complete()`` returns."""

    def __init__(self, **client_options: Any) -> None:
        self._portal_cm: AbstractContextManager[BlockingPortal] = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._client = Client(**client_options)

    def __repr__(self) -> str:
        return f"Sync{self._client!r}"

    def stream(
        self, model: ModelRef, messages: Sequence[ChatMessage], **options: Any
    ) -> Iterator[StreamEvent]:
        events = self._client.stream(model, messages, **options)
        try:
            while True:
                try:
                    event = self._portal.call(events.__anext__)
                except StopAsyncIteration:
                    return
                yield event
        finally:
            self._portal.call(events.aclose)

    def run(self, model: ModelRef, messages: Sequence[ChatMessage], **options: Any) -> SyncToolLoop:
        """The tool loop (see ``Client.run``): iterate it for events and tool results."""
        return SyncToolLoop(self._portal, self._client.run(model, messages, **options))

    def complete(
        self, model: ModelRef, messages: Sequence[ChatMessage], **options: Any
    ) -> ChatResponse:
        return self._portal.call(partial(self._client.complete, model, messages, **options))

    def close(self) -> None:
        try:
            self._portal.call(self._client.aclose)
        finally:
            self._portal_cm.__exit__(None, None, None)

    def __enter__(self) -> SyncClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
