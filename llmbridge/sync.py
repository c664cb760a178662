"""``SyncClient``: the blocking twin of ``Client`` for scripts, a thin shell over it.

Rules: one event loop runs in a private thread (an anyio blocking portal); every method
hands the work to the async ``Client`` and blocks on it, so behaviour (retries, errors,
partial responses, closing on ``break``) is exactly the async client's. An exception in the
calling thread while it blocks (Ctrl-C) cancels the work in the portal before it is raised:
leaving ``with SyncClient()`` then never waits for a ``Retry-After`` or backoff sleep.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractContextManager
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from anyio.from_thread import BlockingPortal, start_blocking_portal

from .client import Client, EventStream, ModelRef, Models
from .client.call_options import (
    UNSET,
    CallOptions,
    CountOptions,
    FormatArg,
    HttpOptions,
    Messages,
    RunOptions,
    Tools,
)
from .errors import UsageError
from .events import StreamEvent
from .messages import ChatResponse
from .model_info import ModelInfo
from .providers.base import Provider
from .sync_batch import SyncBatchMethods
from .sync_embed import SyncEmbedMethods
from .sync_portal import call_in_portal, iter_in_portal, next_in_portal
from .sync_stream import SyncEventStream

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .hosted import ToolSearch
    from .mcp.hub.sync import SyncMCPServers
    from .messages import ChatMessage
    from .tools.approval import Approver
    from .tools.loop import LoopEvent, ToolLoop

__all__ = ["SyncClient", "SyncToolLoop"]

T = TypeVar("T")


class SyncToolLoop(Generic[T]):
    """Blocking view of a ``ToolLoop``: iterate for events; ``messages``, ``stop_reason``… after
    (``response`` is typed: ``run(..., response_format=Recipe)`` gives a
    ``SyncToolLoop[Recipe]`` whose ``response.parsed`` is a ``Recipe``)."""

    def __init__(self, portal: BlockingPortal, loop: ToolLoop[T]) -> None:
        self._portal = portal
        self.loop = loop

    def __iter__(self) -> Iterator[LoopEvent]:
        while True:
            try:
                yield next_in_portal(self._portal, self.loop)
            except StopAsyncIteration:
                return

    if TYPE_CHECKING:  # what ``__getattr__`` reads from the loop, typed

        @property
        def response(self) -> ChatResponse[T] | None: ...

    def __getattr__(self, name: str) -> Any:
        return getattr(self.loop, name)


class SyncClient(SyncEmbedMethods, SyncBatchMethods):
    """``SyncClient(**client_options)``: ``stream()`` yields events, ``complete()`` returns
    (``embed``, ``embed_many``, ``rerank``: ``llmbridge.sync_embed``; ``batch*``:
    ``llmbridge.sync_batch``)."""

    def __init__(self, **client_options: Any) -> None:
        self._client = Client(**client_options)  # a misuse fails before a thread is started
        self._portal_cm: AbstractContextManager[BlockingPortal] = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._closed = False

    def _check_open(self) -> None:
        if self._closed:
            raise UsageError(
                "this SyncClient is closed (close() or its 'with' ended): make a new one"
            )

    def __repr__(self) -> str:
        return f"Sync{self._client!r}"

    def _blocking_call(self, work: Callable[[], Awaitable[Any]]) -> Any:
        return call_in_portal(self._portal, work)

    def _blocking_next(self, events: AsyncIterator[Any]) -> Any:
        return next_in_portal(self._portal, events)

    def _blocking_iter(self, items: AsyncIterator[Any]) -> Iterator[Any]:
        return iter_in_portal(self._portal, items)

    def stream(
        self,
        model: Models,
        messages: Messages,
        *,
        response_format: FormatArg | type[Any] | None = None,
        rescue_tool_calls: bool | None = None,
        partial_tool_arguments: bool = False,
        **options: Unpack[CallOptions],
    ) -> SyncEventStream:
        """``Client.stream``, blocking: iterate it for events (options: ``CallOptions``);
        ``with`` closes it, ``resume_point`` says where a background stream stands."""
        self._check_open()
        events = self._client.stream(
            model,
            messages,
            response_format=response_format,
            rescue_tool_calls=rescue_tool_calls,
            partial_tool_arguments=partial_tool_arguments,
            **options,
        )
        return SyncEventStream(self._blocking(events), events)

    def resume(
        self,
        model: ModelRef,
        response_id: str,
        *,
        after: int | str | None = None,
        **options: Unpack[HttpOptions],
    ) -> SyncEventStream:
        """``Client.resume``, blocking: the rest of a background response's events."""
        self._check_open()
        events = self._client.resume(model, response_id, after=after, **options)
        return SyncEventStream(self._blocking(events), events)

    def _blocking(self, events: EventStream) -> Iterator[StreamEvent]:
        """Iterate ``events`` in the portal, closing it there however the caller leaves."""
        try:
            while True:
                try:
                    event = next_in_portal(self._portal, events)
                except StopAsyncIteration:
                    return
                yield event
        finally:
            self._portal.call(events.aclose)

    @overload
    def run(
        self,
        model: Models,
        messages: Messages,
        *,
        tools: Tools,
        response_format: type[T],
        max_steps: int = ...,
        context: Any = ...,
        approve: Approver | None = ...,
        rescue_tool_calls: bool | None = ...,
        max_parallel_tools: int | None = ...,
        max_tool_calls: int | None = ...,
        **options: Unpack[RunOptions],
    ) -> SyncToolLoop[T]: ...
    @overload
    def run(
        self,
        model: Models,
        messages: Messages,
        *,
        tools: Tools,
        response_format: FormatArg,
        max_steps: int = ...,
        context: Any = ...,
        approve: Approver | None = ...,
        rescue_tool_calls: bool | None = ...,
        max_parallel_tools: int | None = ...,
        max_tool_calls: int | None = ...,
        **options: Unpack[RunOptions],
    ) -> SyncToolLoop[Any]: ...
    @overload
    def run(
        self,
        model: Models,
        messages: Messages,
        *,
        tools: Tools,
        response_format: None = ...,
        max_steps: int = ...,
        context: Any = ...,
        approve: Approver | None = ...,
        rescue_tool_calls: bool | None = ...,
        max_parallel_tools: int | None = ...,
        max_tool_calls: int | None = ...,
        **options: Unpack[RunOptions],
    ) -> SyncToolLoop[None]: ...
    def run(
        self,
        model: Models,
        messages: Messages,
        *,
        tools: Tools,
        response_format: FormatArg | type[Any] | None = None,
        max_steps: int = 8,
        context: Any = None,
        approve: Approver | None = None,
        rescue_tool_calls: bool | None = None,
        max_parallel_tools: int | None = UNSET,
        max_tool_calls: int | None = UNSET,
        **options: Unpack[RunOptions],
    ) -> SyncToolLoop[Any]:
        """The tool loop (see ``Client.run``): iterate it for events and tool results."""
        self._check_open()
        fmt: Any = response_format  # either overload: the loop's type is the overloads' to say
        loop = self._client.run(
            model,
            messages,
            tools=tools,
            response_format=fmt,
            max_steps=max_steps,
            context=context,
            approve=approve,
            rescue_tool_calls=rescue_tool_calls,
            max_parallel_tools=max_parallel_tools,
            max_tool_calls=max_tool_calls,
            **options,
        )
        return SyncToolLoop(self._portal, loop)

    @overload
    def complete(
        self,
        model: Models,
        messages: Messages,
        *,
        response_format: type[T],
        rescue_tool_calls: bool | None = ...,
        **options: Unpack[CallOptions],
    ) -> ChatResponse[T]: ...
    @overload
    def complete(
        self,
        model: Models,
        messages: Messages,
        *,
        response_format: FormatArg,
        rescue_tool_calls: bool | None = ...,
        **options: Unpack[CallOptions],
    ) -> ChatResponse[Any]: ...
    @overload
    def complete(
        self,
        model: Models,
        messages: Messages,
        *,
        response_format: None = ...,
        rescue_tool_calls: bool | None = ...,
        **options: Unpack[CallOptions],
    ) -> ChatResponse[None]: ...
    def complete(
        self,
        model: Models,
        messages: Messages,
        *,
        response_format: FormatArg | type[Any] | None = None,
        rescue_tool_calls: bool | None = None,
        **options: Unpack[CallOptions],
    ) -> ChatResponse[Any]:
        """``Client.complete``, blocking (options: ``CallOptions``)."""
        self._check_open()
        work = partial(
            self._client.complete,
            model,
            messages,
            response_format=response_format,
            rescue_tool_calls=rescue_tool_calls,
            **options,
        )
        response: ChatResponse[Any] = call_in_portal(self._portal, work)
        return response

    def count_tokens(
        self,
        model: ModelRef,
        messages: Messages,
        *,
        tools: Tools | None = None,
        response_format: FormatArg | type[Any] | None = None,
        **options: Unpack[CountOptions],
    ) -> int:
        """``Client.count_tokens``, blocking."""
        self._check_open()
        work = partial(
            self._client.count_tokens,
            model,
            messages,
            tools=tools,
            response_format=response_format,
            **options,
        )
        count: int = call_in_portal(self._portal, work)
        return count

    def answer_tool_searches(
        self, response: ChatResponse, tools: Tools, *, search: ToolSearch | None = None
    ) -> list[ChatMessage]:
        """``Client.answer_tool_searches``, blocking."""
        self._check_open()
        work = partial(self._client.answer_tool_searches, response, tools, search=search)
        answers: list[ChatMessage] = call_in_portal(self._portal, work)
        return answers

    def list_models(self, provider: str | Provider) -> list[ModelInfo]:
        self._check_open()
        models: list[ModelInfo] = call_in_portal(
            self._portal, partial(self._client.list_models, provider)
        )
        return models

    def connect_mcp_servers(
        self, config: Any, **options: Any
    ) -> AbstractContextManager[SyncMCPServers]:
        """``lb.connect_mcp_servers`` on this client's event loop, as a ``with`` block; the
        client answers sampling requests (``sampling_model=``) unless ``client=`` says else."""
        from .mcp.hub.sync import sync_mcp_servers

        self._check_open()
        options.setdefault("client", self._client)
        return sync_mcp_servers(self._portal, config, options)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
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
