"""``Client.run`` and ``Client.answer_tool_searches``: the tool loop's entry points.

A base class of ``Client`` (``llmbridge.client.async_client``), split from it by
responsibility; it uses only what the client declares below.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, TypeVar, overload

from ..errors import StructuredOutputError, UsageError
from ..events import StreamEvent
from ..hosted import ToolSearch
from ..messages import ChatMessage, ChatResponse
from ..model_refs import ModelRef, Models, first_model, is_chain
from ..providers.base import Provider
from ..structured import response_format_of
from ..usage_errors import as_messages
from .call_options import UNSET, FormatArg, Messages, RunOptions, Tools
from .structured_retry import OutputTries, pop_output_retries
from .tool_options import as_specs, hosted_tools, loop_tools

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..stream.deadline import Deadline
    from ..telemetry import Telemetry
    from ..tools.approval import Approver
    from ..tools.loop import ToolLoop
    from .call_options import CallOptions
    from .event_stream import EventStream

__all__ = ["ToolLoopMethods", "tool_bounds"]

T = TypeVar("T")


def tool_bounds(**given: Any) -> dict[str, int | None]:
    """The tool-loop bounds given (``UNSET`` left out), checked: ``llmbridge.tools.batch``."""
    from ..tools.batch import check_bound

    return {name: check_bound(v, name) for name, v in given.items() if v is not UNSET}


class ToolLoopMethods:
    """``run`` and ``answer_tool_searches`` of ``Client``."""

    if TYPE_CHECKING:
        telemetry: Telemetry | None
        _tool_bounds: dict[str, int | None]

        def provider(self, name: str) -> Provider: ...
        def resolve(self, model: ModelRef) -> tuple[Provider, str]: ...
        def _deadline(self, timeout: Any) -> Deadline | None: ...
        def stream(
            self,
            model: Models,
            messages: Messages,
            *,
            response_format: FormatArg | type[Any] | None = None,
            rescue_tool_calls: bool | None = None,
            partial_tool_arguments: bool = False,
            **options: Unpack[CallOptions],
        ) -> EventStream: ...

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
    ) -> ToolLoop[T]: ...
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
    ) -> ToolLoop[Any]: ...
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
    ) -> ToolLoop[None]: ...
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
    ) -> ToolLoop[Any]:
        """The tool loop: stream, run the tools the model called, feed results back, repeat.

        Iterate the returned ``ToolLoop`` for every stream event plus ``ToolResult`` events;
        afterwards ``loop.messages`` holds the whole conversation and ``loop.stop_reason`` says
        whether the model answered (``final``) or ``max_steps`` was reached. ``approve``: the
        app's callback for calls that need approval (``@tool(approval=...)``, MCP servers).
        ``timeout``: the total time of the whole loop (every turn's requests; tools run on its
        clock but are not cut short by it): the turn that runs past it ends with
        ``TimeoutError``.
        ``max_parallel_tools``: tool bodies running at once (default: the ``Client``'s, else the
        registry's, 16); ``max_tool_calls``: calls run per turn (default likewise, 256), later
        ones get an error result the model reads; ``None``: no bound.
        The tools are read from the registry every turn (MCP servers' lists may change).
        ``tools`` may also be a list of one ``ToolRegistry`` (an MCP servers' registry) and
        provider-run specs: ``[servers.registry, lb.ToolSearch()]``. A final structured answer
        that does not validate is asked again (``output_retries``) or of the chain's next
        model (``fallback_on``): ``llmbridge.client.structured_retry``.
        """
        from ..tools.loop import run_tool_loop

        conversation = as_messages(messages)
        bounds = {  # run's, else the client's, else the registry's
            **self._tool_bounds,
            **tool_bounds(max_parallel_tools=max_parallel_tools, max_tool_calls=max_tool_calls),
        }
        given: dict[str, Any] = dict(options)
        if rescue_tool_calls is not None:
            given["rescue_tool_calls"] = rescue_tool_calls

        registry, hosted = loop_tools(tools)  # hosted: provider-run, sent every turn
        chain = is_chain(model)
        provider, model_name = self.resolve(first_model(model) if chain else model)  # type: ignore[arg-type]
        target: Models = model if chain else (provider, model_name)
        fmt = None if response_format is None else response_format_of(response_format)
        if fmt is not None:
            given["response_format"] = fmt
        # one budget for the whole loop: every turn shares it (tools run on its clock too)
        given["timeout"] = self._deadline(given.get("timeout", UNSET))

        retries = pop_output_retries(given, structured=fmt is not None)
        tries = OutputTries(target, retries, given.get("fallback_on"))  # the final answer's
        last: list[EventStream] = []

        def turn(turns: list[ChatMessage]) -> AsyncIterator[StreamEvent]:
            offered: Any = [*registry.specs(), *hosted] if hosted else registry
            last[:] = [self.stream(tries.target, turns, tools=offered, **given)]
            return last[0]

        def on_invalid(response: ChatResponse[Any], error: StructuredOutputError) -> Any:
            return tries.after(last[0].state.link, response, error)

        searcher = None
        asked = [t for t in hosted if isinstance(t, ToolSearch) and t.execution == "client"]
        if asked:  # a client-executed ToolSearch: the loop answers it from the registry
            from ..tools.client_search import ClientSearch

            searcher = ClientSearch(asked[0], provider_of=self._provider_of(provider))

        return run_tool_loop(
            turn,
            conversation,
            registry=registry,
            max_steps=max_steps,
            context=context,
            provider=provider.name,
            approve=approve,
            response_format=fmt,
            telemetry=self.telemetry,
            client_search=searcher,
            on_invalid=on_invalid,
            **bounds,
        )

    def _provider_of(self, default: Provider) -> Any:
        def provider_of(name: str | None) -> Any:
            return default if name in (None, default.name) else self.provider(str(name))

        return provider_of

    async def answer_tool_searches(
        self, response: ChatResponse, tools: Tools, *, search: ToolSearch | None = None
    ) -> list[ChatMessage]:
        """The answers to the client tool searches ``response`` waits for, to append after
        ``response.message`` (``run`` does this itself; this is for ``stream`` /
        ``complete``). ``tools``: what was offered (specs, ``@tool`` functions, a
        ``ToolRegistry``; the ``ToolSearch`` among them, else ``search``). A search call of
        the search's own tool (Anthropic) is answered too; other tool calls are left to
        the app. Empty when nothing waits."""
        from ..tools.client_search import ClientSearch

        spec = search or next(
            (t for t in hosted_tools(tools) if isinstance(t, ToolSearch)), ToolSearch()
        )
        specs = as_specs(tools)
        if response.provider is None:
            raise UsageError("answer_tool_searches: the response names no provider")
        target = self.provider(response.provider)
        searcher = ClientSearch(
            spec.model_copy(update={"execution": "client"}),
            provider_of=self._provider_of(target),
        )
        searches, _ = searcher.split(response, specs)
        answers = [await searcher.answer(s, specs, provider=target.name) for s in searches]
        return [a.message for a in answers]
