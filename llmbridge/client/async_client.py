"""``Client``: the async entry point (``stream``, ``complete``, ``run``).

Rules: providers are resolved once per name from the ``providers=`` options (keys and base
URLs fixed then); core code asks the provider object, never its name. ``tool_mode`` decides
between native tools and prompt tools (``auto`` asks the provider's capabilities). IO goes
through ``llmbridge.stream``. ``stream()`` returns an ``EventStream``: iterate it with ``async
for``, or use ``async with`` to close the HTTP response deterministically.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar, overload

import httpx

from ..call_settings import CallSettings, pop_call_settings
from ..errors import UsageError
from ..events import StreamEvent
from ..messages import ChatResponse
from ..model_refs import ModelRef as ModelRef
from ..model_refs import Models as Models
from ..model_refs import is_chain
from ..providers.base import Provider
from ..providers.config import ProviderConfig
from ..providers.registry import create_provider, split_model
from ..request import ChatRequest
from ..stream import RetryPolicy
from ..stream.bounded import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_RESPONSE_BYTES
from ..stream.call import CallConfig, StreamState
from ..stream.clients import DEFAULT_LIMITS, DEFAULT_SHARDS, HttpPool, TransportName
from ..stream.deadline import Deadline
from ..stream.record import DEFAULT_MAX_EVENTS
from ..stream.start_stamp import StartNote
from ..structured import response_format_of
from ..structured.partial_stream import with_partials
from ..telemetry import Telemetry, telemetry_from
from ..usage_errors import as_messages, provider_configs
from .batch_methods import BatchMethods
from .call_options import (
    UNSET,
    CallOptions,
    FormatArg,
    HttpOptions,
    Messages,
)
from .embed_methods import EmbedMethods
from .event_stream import EventStream as EventStream
from .loop_methods import ToolLoopMethods, tool_bounds
from .model_chain import open_chain
from .pipeline import open_events, open_resumed
from .query_methods import QueryMethods
from .request_options import build_request as _build_request
from .request_options import check_request_options
from .structured_retry import complete_turns

if TYPE_CHECKING:
    from typing_extensions import Unpack


__all__ = ["Client"]

T = TypeVar("T")
_DEFAULT = UNSET


class Client(ToolLoopMethods, QueryMethods, EmbedMethods, BatchMethods):
    """One streaming API over every registered provider (``run`` and
    ``answer_tool_searches``: ``llmbridge.client.loop_methods``; ``count_tokens`` and
    ``list_models``: ``llmbridge.client.query_methods``; ``batch``: ``batch_methods``)."""

    def __init__(
        self,
        *,
        http_client: Any = None,
        providers: Mapping[str, Mapping[str, Any] | ProviderConfig] | None = None,
        retry: RetryPolicy | None = None,
        timeout: httpx.Timeout | float | None = None,
        transport: TransportName = "httpx",
        limits: httpx.Limits = DEFAULT_LIMITS,
        shards: int = DEFAULT_SHARDS,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        max_events: int = DEFAULT_MAX_EVENTS,
        telemetry: bool | Telemetry = False,
        max_parallel_tools: int | None = UNSET,
        max_tool_calls: int | None = UNSET,
    ) -> None:
        """``timeout``: the default total time of a call in seconds (its retries included;
        ``stream``, ``complete`` and ``run`` take their own ``timeout=``; ``None``: no total
        limit), or an ``httpx.Timeout`` for the HTTP phases of each request (``read`` is the
        idle timeout between two chunks). ``http_client``: any ``httpx.AsyncClient`` (replay,
        proxies, tests), used as given.
        Otherwise the client makes its own per event loop: ``transport="httpx"`` (httpcore, any
        loop) or ``"aiohttp"`` (the aiohttp extra, asyncio/uvloop; best for thousands of
        concurrent streams), with ``limits`` as totals. ``max_event_bytes`` bounds one SSE event,
        ``max_response_bytes`` a response's decompressed bytes, ``max_events`` its events
        (each a ``MalformedStreamError`` with the partial response; docs/streaming.md).
        ``telemetry``: OpenTelemetry GenAI spans and metrics (``True``, or an ``lb.Telemetry``;
        the ``otel`` extra). ``max_parallel_tools`` / ``max_tool_calls``: the bounds of ``run``'s
        tool calls per turn (not given: the registry's, 16 at once and 256 per turn; ``None``:
        no bound; ``llmbridge.tools.batch``)."""
        self._tool_bounds = tool_bounds(
            max_parallel_tools=max_parallel_tools, max_tool_calls=max_tool_calls
        )
        self._http = HttpPool(http_client, transport=transport, limits=limits, shards=shards)
        self.telemetry = telemetry_from(telemetry)
        self._closed = False
        self._configs = provider_configs(providers)
        self._providers: dict[str, Provider] = {}
        self.retry = retry or RetryPolicy()
        self._defaults = CallConfig(
            http=self._http,
            timeout=timeout if isinstance(timeout, httpx.Timeout) else None,
            max_event_bytes=max_event_bytes,
            max_response_bytes=max_response_bytes,
            max_events=max_events,
            telemetry=self.telemetry,
        )
        total = Deadline.of(None if isinstance(timeout, httpx.Timeout) else timeout)
        self.timeout: float | None = None if total is None else total.seconds
        """The default total time of a call, in seconds (``None``: no total limit)."""

    def __repr__(self) -> str:
        return f"Client(providers={sorted(self._configs)!r}, retry={self.retry!r})"

    # -- providers ----------------------------------------------------------------------
    def provider(self, name: str) -> Provider:
        """The provider registered as ``name``, built once from this client's options."""
        provider = self._providers.get(name)
        if provider is None:
            provider = self._providers[name] = create_provider(name, self._configs.get(name))
        return provider

    def resolve(self, model: ModelRef) -> tuple[Provider, str]:
        if is_chain(model):
            raise UsageError(
                f"{model!r} is a fallback chain: this takes one model (stream, complete and run "
                "take a list)"
            )
        if isinstance(model, str):
            name, model_name = split_model(model)
            return self.provider(name), model_name
        if isinstance(model, tuple):
            return model
        return model, str(getattr(model, "model", ""))

    # -- requests -----------------------------------------------------------------------
    build_request = staticmethod(_build_request)
    """The ``ChatRequest`` a call builds (``llmbridge.client.request_options``)."""

    def stream(
        self,
        model: Models,
        messages: Messages,
        *,
        response_format: FormatArg | type[Any] | None = None,
        rescue_tool_calls: bool | None = None,
        partial_tool_arguments: bool = False,
        **options: Unpack[CallOptions],
    ) -> EventStream:
        """Stream normalized events for one model turn (options: ``CallOptions``, see
        ``llmbridge.client.call_options``; the request's own: ``build_request``).

        ``rescue_tool_calls``: also turn tool calls a server leaked as text into tool calls
        (``None``: the provider's default, on for llama.cpp, Ollama, vLLM and LM Studio).
        With a ``response_format``, ``PartialObject`` events carry the value so far;
        ``partial_tool_arguments=True`` fills ``ToolCallChunk.partial_arguments``.
        ``timeout``: the call's total time in seconds, from its first request to its last
        event, retries and their waits included (``None``: no limit; default: the client's);
        past it the stream ends with ``TimeoutError`` holding the partial response.
        A list of models is a fallback chain (``restart=``, ``fallback_on=``: see
        ``llmbridge.client.model_chain``).
        """
        given: dict[str, Any] = dict(options)
        if response_format is not None:
            given["response_format"] = response_format
        stream = self._open(model, messages, rescue_tool_calls, given)
        request_format = response_format is not None
        if request_format or partial_tool_arguments:
            return stream.pipe(
                lambda events: with_partials(
                    events, objects=request_format, tool_arguments=partial_tool_arguments
                )
            )
        return stream

    def _open(
        self,
        model: Models,
        messages: Messages,
        rescue: bool | None,
        options: Mapping[str, Any],
    ) -> EventStream:
        self._check_open()
        options = dict(options)
        call = pop_call_settings(options)  # headers=, retry=, max_attempts=: not the body's
        config = self._config(call, self._deadline(options.pop("timeout", _DEFAULT)))
        if is_chain(model):
            return open_chain(
                self,
                model,
                as_messages(messages),
                rescue=rescue,
                options=options,
                check=check_request_options,
                config=config,
            )
        check_request_options(options)
        provider, model_name = self.resolve(model)  # type: ignore[arg-type]
        request = self.build_request(model_name, messages, **options)
        return self.open_request(provider, request, rescue=rescue, config=config)

    def stream_request(
        self,
        provider: Provider,
        request: ChatRequest,
        *,
        rescue: bool | None = None,
        call: CallSettings | None = None,
        timeout: Any = _DEFAULT,
    ) -> EventStream:
        """Stream an already built ``ChatRequest`` through ``provider`` (``call``: per-call
        headers and retry settings, ``llmbridge.call_settings``; ``timeout``: as for
        ``stream``)."""
        self._check_open()
        config = self._config(call, self._deadline(timeout))
        return self.open_request(provider, request, rescue=rescue, config=config)

    def open_request(
        self,
        provider: Provider,
        request: ChatRequest,
        *,
        rescue: bool | None,
        config: CallConfig,
        state: StreamState | None = None,
        note: StartNote | None = None,
    ) -> EventStream:
        """The ``EventStream`` of ``request`` sent with the call's ``config`` (``state``: one
        a fallback chain shares; ``note``: its word for the ``StreamStart``)."""
        self._check_open()
        if state is None:
            state = StreamState(provider, resumable=bool(request.background))
        events = self._stream(
            provider, request, rescue=rescue, config=config, state=state, note=note
        )
        return EventStream(events, state)

    def _stream(
        self,
        provider: Provider,
        request: ChatRequest,
        *,
        rescue: bool | None,
        config: CallConfig,
        state: StreamState | None = None,
        note: StartNote | None = None,
    ) -> AsyncIterator[StreamEvent]:
        """The events of one model's request (the seam ``llmbridge.testing`` records at)."""
        return open_events(
            provider=provider, request=request, rescue=rescue, config=config, state=state, note=note
        )

    def _deadline(self, timeout: Any) -> Deadline | None:
        """The call's deadline: its own ``timeout=`` (seconds, ``None`` or a shared
        ``Deadline``), else the client's default."""
        return Deadline.of(self.timeout if timeout is _DEFAULT else timeout)

    def _config(self, call: CallSettings | None, deadline: Deadline | None) -> CallConfig:
        """The call's one configuration: the client's defaults, its retry policy and the call's
        deadline, with the call's own settings on top (``CallSettings.applied``)."""
        config = dataclasses.replace(self._defaults, retry=self.retry, deadline=deadline)
        return config if call is None else call.applied(config)

    def resume(
        self,
        model: ModelRef,
        response_id: str,
        *,
        after: int | str | None = None,
        **options: Unpack[HttpOptions],
    ) -> EventStream:
        """Continue the stream of ``response_id``, a background response (``background=True``)
        started elsewhere (another process, a stream that failed), after its event ``after``
        (``StreamStart.response_id`` and the number of the last event seen; ``None``: from
        its first event). The events are those ``stream`` yields, without the ones up to
        ``after``; fold them with ``lb.Accumulator`` for a ``ChatResponse``. A break resumes
        again; ``cancel_on_close=True`` stops the response when the stream is left early
        (docs/long-running.md). ``model`` names the provider (``"openai-responses:gpt-5"``).
        A provider without background mode is a ``ConfigurationError``."""
        self._check_open()
        given: dict[str, Any] = dict(options)
        call = pop_call_settings(given)
        config = self._config(call, self._deadline(given.pop("timeout", _DEFAULT)))
        if given:
            raise UsageError(
                f"unknown option(s) {', '.join(sorted(given))}: resume() takes headers, retry, "
                "max_attempts, timeout and cancel_on_close"
            )
        provider, model_name = self.resolve(model)
        state = StreamState(provider, resumable=True)
        events = open_resumed(
            provider=provider,
            model=model_name,
            response_id=response_id,
            after=after,
            config=config,
            state=state,
        )
        return EventStream(events, state)

    @overload
    async def complete(
        self,
        model: Models,
        messages: Messages,
        *,
        response_format: type[T],
        rescue_tool_calls: bool | None = ...,
        **options: Unpack[CallOptions],
    ) -> ChatResponse[T]: ...
    @overload
    async def complete(
        self,
        model: Models,
        messages: Messages,
        *,
        response_format: FormatArg,
        rescue_tool_calls: bool | None = ...,
        **options: Unpack[CallOptions],
    ) -> ChatResponse[Any]: ...
    @overload
    async def complete(
        self,
        model: Models,
        messages: Messages,
        *,
        response_format: None = ...,
        rescue_tool_calls: bool | None = ...,
        **options: Unpack[CallOptions],
    ) -> ChatResponse[None]: ...
    async def complete(
        self,
        model: Models,
        messages: Messages,
        *,
        response_format: FormatArg | type[Any] | None = None,
        rescue_tool_calls: bool | None = None,
        **options: Unpack[CallOptions],
    ) -> ChatResponse[Any]:
        """Stream one turn and fold it into a ``ChatResponse``; with ``response_format`` its
        ``parsed`` holds the validated value (else ``StructuredOutputError``: the next model
        answers in a chain whose ``fallback_on`` names it; ``output_retries=N``: the same model
        is first asked again with the validation error, ``client.structured_retry``), typed
        ``ChatResponse[Recipe]``. ``timeout``: as for ``stream``; ``stream=False``: a whole
        answer (docs/whole-responses.md)."""
        fmt = None if response_format is None else response_format_of(response_format)
        given: dict[str, Any] = dict(options)
        return await complete_turns(
            self, model, as_messages(messages), fmt, rescue_tool_calls, given
        )

    # -- lifecycle ----------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise UsageError(
                "this Client is closed (aclose() or its 'async with' ended): make a new one"
            )

    async def aclose(self) -> None:
        """Close the HTTP clients this client made on the running loop (never the app's)."""
        self._closed = True
        await self._http.aclose()

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
