"""The tool loop: stream a model turn, run the tools it called, feed results back, repeat.

Rules:

* A *step* is one model turn. Each turn is streamed through ``stream(messages)`` and every
  event is yielded as it arrives; the turn is folded once: a client stream's response is the
  record it keeps (``EventStream.response``), any other stream is folded with
  ``llmbridge.response.Accumulator``; its assistant message is appended to ``loop.messages``.
* A turn whose message holds tool calls has them executed concurrently (anyio task group, via
  ``ToolRegistry.execute_all``), at most ``max_parallel_tools`` at once and at most
  ``max_tool_calls`` of them (later ones get an error result; ``llmbridge.tools.batch``: the
  loop's bounds, else the registry's); each result is yielded as a ``ToolResult`` event, in
  the order of the calls, and appended to ``loop.messages``. Failures (bad arguments, unknown
  tool, the tool raising, limits, timeouts) are ``is_error`` results the model reads, never
  exceptions.
* Calls that need approval (``@tool(approval=...)``, an MCP server's ``approval``) pause the
  loop while ``approve`` (or the registry's own approver) is asked; a denied call is an
  ``is_error`` result the model reads.
* A client-executed ``ToolSearch`` (``client_search.py``): the turn's searches are answered
  first (each a ``ToolResult`` whose ``value`` is the tools found; those past ``max_tool_calls``
  find nothing, unsearched), then its tool calls run; a turn with searches is not final.
* A turn without tool calls is the final answer: the loop ends, ``stop_reason == "final"``.
  With a ``response_format`` its ``response.parsed`` is the validated value (else the loop
  raises ``StructuredOutputError``, as ``complete()`` does); turns that call tools are not
  parsed. ``on_invalid`` (``run()``'s ``output_retries`` / ``fallback_on``:
  ``llmbridge.client.structured_retry``) may instead give the messages that replace the
  invalid answer, and the loop asks again.
* Step limit: after ``max_steps`` turns the loop ends even if the last turn called tools.
  Those calls are still executed and their results yielded and appended, so ``loop.messages``
  is a valid conversation the app can continue with another run; ``stop_reason ==
  "max_steps"``. No exception: the app checks ``stop_reason``.
* Errors from the model stream (API errors, truncation) propagate unchanged.
* ``aclose()`` mid-turn closes that turn's stream (its HTTP response) at once; a loop
  dropped mid-turn is closed on its event loop, quietly under trio too.
* Works the same for native tool calls and prompt tools: both yield the same events.
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from typing import Any, Generic, Literal, Protocol, TypeAlias, runtime_checkable

from typing_extensions import TypeVar

from ..errors import StructuredOutputError, UsageError
from ..events import StreamEvent
from ..messages import ChatMessage, ChatResponse
from ..request import ResponseFormat
from ..response import Accumulator
from ..stream.loop_end import close_dropped, trio_token
from ..structured import parse_response
from ..telemetry import Telemetry
from .approval import Approver
from .batch import INHERIT, bound
from .client_search import ClientSearch
from .registry import ToolRegistry
from .results import ToolResult

__all__ = ["LoopEvent", "StreamTurn", "ToolLoop", "run_tool_loop"]

StreamTurn: TypeAlias = Callable[[list[ChatMessage]], AsyncIterator[StreamEvent]]
"""Streams one model turn for the given conversation."""
OnInvalid: TypeAlias = Callable[
    [ChatResponse[Any], StructuredOutputError], "list[ChatMessage] | None"
]
"""What replaces a final answer that did not validate (``None``: raise the error)."""


@runtime_checkable
class RecordsResponse(Protocol):
    """A stream that folds what it yields (``EventStream``): ``response()`` once it ended."""

    def response(self) -> ChatResponse: ...


LoopEvent: TypeAlias = StreamEvent | ToolResult
ParsedT = TypeVar("ParsedT", default=Any)
"""The final ``response.parsed``'s type (``run(..., response_format=Recipe)``: ``Recipe``)."""


class ToolLoop(Generic[ParsedT]):
    """Async iterator over the loop's events; keeps the conversation as it grows. Generic in
    the final answer's ``parsed`` for type checkers only (``ToolLoop`` is ``ToolLoop[Any]``)."""

    def __init__(
        self,
        stream: StreamTurn,
        messages: Sequence[ChatMessage],
        *,
        registry: ToolRegistry,
        max_steps: int,
        context: Any = None,
        provider: str | None = None,
        approve: Approver | None = None,
        response_format: ResponseFormat | None = None,
        telemetry: Telemetry | None = None,
        client_search: ClientSearch | None = None,
        max_parallel_tools: int | None = INHERIT,
        max_tool_calls: int | None = INHERIT,
        on_invalid: OnInvalid | None = None,
    ) -> None:
        if max_steps < 1:
            raise UsageError(f"max_steps must be at least 1, got {max_steps}")
        self.messages: list[ChatMessage] = list(messages)
        """The whole conversation: the given messages, then every turn and tool result."""
        self.registry = registry
        self.max_steps = max_steps
        self.context = context
        self.approve = approve
        """The app's approver for this loop (``None``: the registry's)."""
        self.steps = 0
        """Model turns streamed so far."""
        self.stop_reason: Literal["final", "max_steps"] | None = None
        """Why the loop ended (``None`` while running or after an error)."""
        self.response: ChatResponse[ParsedT] | None = None
        """The last model turn."""
        self._start = len(self.messages)
        self._stream = stream
        self._provider = provider
        self._format = response_format
        self._telemetry = telemetry
        self._search = client_search
        self._on_invalid = on_invalid
        self._bounds = {  # checked now: a bad bound fails before the first turn
            "max_parallel_tools": bound(max_parallel_tools, INHERIT, "max_parallel_tools"),
            "max_tool_calls": bound(max_tool_calls, INHERIT, "max_tool_calls"),
        }
        # The generators see the loop through a weak proxy: no cycle loop -> generator ->
        # loop, so a loop dropped mid-turn is collected at once and closed by ``__del__``.
        self._events = ToolLoop._run(weakref.proxy(self))
        self._trio = trio_token()

    @property
    def provider(self) -> str | None:
        """The provider format of the loop's turns (what their reasoning and items go back to)."""
        return self._provider

    @property
    def new_messages(self) -> list[ChatMessage]:
        """The messages this loop added (assistant turns and tool results)."""
        return self.messages[self._start :]

    def __aiter__(self) -> ToolLoop[ParsedT]:
        return self

    async def __anext__(self) -> LoopEvent:
        return await self._events.__anext__()

    async def aclose(self) -> None:
        await self._events.aclose()

    def __del__(self) -> None:
        close_dropped(getattr(self, "_trio", None), getattr(self, "_events", None))

    async def _turn(self) -> AsyncGenerator[StreamEvent, None]:
        events = self._stream(list(self.messages))
        # A client stream keeps the record of what it yielded: its response is that one fold.
        # Any other stream of events is folded here.
        recorded = events if isinstance(events, RecordsResponse) else None
        acc = None if recorded is not None else Accumulator(provider=self._provider)
        try:
            if acc is None:
                async for event in events:
                    yield event
            else:
                async for event in events:
                    acc.add(event)
                    yield event
        finally:
            close = getattr(events, "aclose", None)
            if close is not None:
                await close()
        self.steps += 1
        if recorded is not None:
            self.response = recorded.response()
        else:
            assert acc is not None
            self.response = acc.response()
        self.messages.append(self.response.message)

    def _parsed(self) -> bool:
        """The final answer, typed (else ``StructuredOutputError``); ``False``: ``on_invalid``
        put the messages to ask again with in place of the invalid answer."""
        assert self.response is not None and self._format is not None
        provider = self._provider or "unknown"
        try:
            self.response.parsed = parse_response(self.response, self._format, provider=provider)
            return True
        except StructuredOutputError as exc:
            instead = self._on_invalid(self.response, exc) if self._on_invalid else None
            if instead is None:
                raise
            self.messages[-1:] = instead
            self.stop_reason = None
            return False

    async def _run(self) -> AsyncGenerator[LoopEvent, None]:
        while True:
            turn = ToolLoop._turn(self)  # ``self`` is the weak proxy: keep it so
            try:
                async for event in turn:
                    yield event
            finally:  # closing the loop mid-turn closes that turn's stream now, not at GC
                await turn.aclose()
            assert self.response is not None
            calls = self.response.tool_calls
            if self._search is not None:
                specs = self.registry.specs()
                searches, calls = self._search.split(self.response, specs)
                provider = self.response.provider or self._provider
                cap = bound(self._bounds["max_tool_calls"], self.registry.max_tool_calls, "")
                for i, search in enumerate(searches):
                    within = cap is None or i < cap  # past it: answered, not run
                    answer = await self._search.answer(search, specs, provider=provider, run=within)
                    self.messages.append(answer.message)
                    yield answer
                if searches and not calls:
                    if self.steps >= self.max_steps:
                        self.stop_reason = "max_steps"
                        return
                    continue
            if not calls:
                self.stop_reason = "final"
                if self._format is not None and not self._parsed():
                    continue  # asked again (``on_invalid``): the same model, or the next
                return
            results = await self.registry.execute_all(
                calls,
                context=self.context,
                approve=self.approve,
                telemetry=self._telemetry,
                **self._bounds,
            )
            for result in results:
                self.messages.append(result.message)
                yield result
            if self.steps >= self.max_steps:
                self.stop_reason = "max_steps"
                return


def run_tool_loop(
    stream: StreamTurn,
    messages: Sequence[ChatMessage],
    *,
    registry: ToolRegistry,
    max_steps: int = 8,
    context: Any = None,
    provider: str | None = None,
    approve: Approver | None = None,
    response_format: ResponseFormat | None = None,
    telemetry: Telemetry | None = None,
    client_search: ClientSearch | None = None,
    max_parallel_tools: int | None = INHERIT,
    max_tool_calls: int | None = INHERIT,
    on_invalid: OnInvalid | None = None,
) -> ToolLoop[Any]:
    """Run the tool loop; iterate the result with ``async for`` (see module rules)."""
    return ToolLoop(
        stream,
        messages,
        registry=registry,
        max_steps=max_steps,
        context=context,
        provider=provider,
        approve=approve,
        response_format=response_format,
        telemetry=telemetry,
        client_search=client_search,
        max_parallel_tools=max_parallel_tools,
        max_tool_calls=max_tool_calls,
        on_invalid=on_invalid,
    )
