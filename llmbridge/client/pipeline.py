"""One request's way to a stream of events: its plans, its wire request, telemetry and the IO.

Rules:

* ``plan_request`` is the one decision per request, made before anything is sent:
  provider-run tools are checked against what the provider runs (``llmbridge.hosted``);
  deferred tools (``ToolSpec.defer_loading``) with no ``ToolSearch`` to load them are sent as
  ordinary tools, with a warning (no API loads a deferred tool without its search); the
  response format is asked natively or in the prompt (``llmbridge.structured.prompt``); the
  tools are sent natively, rescued or written into the prompt (``llmbridge.fallback``, loaded
  only when there are tools). It gives the wire request and a decoder factory (a fresh
  decoder per attempt: retries start over).
* ``open_events`` builds the HTTP request once, attaches the telemetry observer when it is on
  (``llmbridge.telemetry``, loaded only then) and hands everything to ``stream_events``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from ..events import StreamEvent
from ..providers.base import Decoder, Provider
from ..request import ChatRequest
from ..stream import RetryPolicy, stream_events
from ..stream.bounded import DEFAULT_MAX_RESPONSE_BYTES
from ..stream.deadline import Deadline
from ..stream.record import DEFAULT_MAX_EVENTS
from ..structured.prompt import WarningDecoder, plan_format
from ..telemetry import Telemetry

__all__ = ["open_events", "plan_request"]


def plan_request(
    provider: Provider, request: ChatRequest, *, rescue: bool | None
) -> tuple[ChatRequest, Callable[[], Decoder]]:
    """The wire request and the decoder factory for ``request`` (see module rules)."""
    if request.hosted_tools:  # provider-run tools: refused here, before anything is sent
        from ..hosted import check_runs_on

        kinds = provider.capabilities(request.model).hosted_tools
        check_runs_on(
            request.hosted_tools, provider=provider.name, model=request.model, kinds=kinds
        )
    warnings: list[str] = []
    if request.tools and any(t.defer_loading for t in request.tools):
        request, undeferred = _undefer(request)
        warnings.extend(undeferred)
    if request.response_format is not None:
        request, warning = plan_format(request, provider.capabilities(request.model))
        if warning is not None:
            warnings.append(warning)
    if request.tools:
        from ..fallback import plan

        wire, new_decoder = plan(request, provider, rescue=rescue)
    else:  # nothing for the tool fallback to do: leave it unloaded
        wire, new_decoder = request, lambda: provider.new_decoder(request)
    if warnings:
        new_decoder = WarningDecoder.factory(new_decoder, warnings)
    return wire, new_decoder


def _undefer(request: ChatRequest) -> tuple[ChatRequest, list[str]]:
    """``request`` with its deferred tools made ordinary when no ``ToolSearch`` loads them."""
    from ..hosted import ToolSearch

    if any(isinstance(t, ToolSearch) for t in request.hosted_tools):
        return request, []
    names = [t.name for t in request.tools if t.defer_loading]
    tools = [t.deferred(False) if t.defer_loading else t for t in request.tools]
    warning = (
        f"tools {names} have defer_loading=True but no ToolSearch is among the tools to load "
        "them: sent as ordinary tools"
    )
    return request.model_copy(update={"tools": tools}), [warning]


def open_events(
    *,
    http: Any,
    provider: Provider,
    request: ChatRequest,
    rescue: bool | None,
    retry: RetryPolicy,
    timeout: Any,
    deadline: Deadline | None = None,
    max_event_bytes: int,
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    max_events: int = DEFAULT_MAX_EVENTS,
    telemetry: Telemetry | None,
    headers: Mapping[str, str] | None = None,
) -> AsyncIterator[StreamEvent]:
    """The normalized events of ``request`` sent through ``provider`` (see module rules)."""
    wire, new_decoder = plan_request(provider, request, rescue=rescue)
    http_request = provider.build_request(wire)
    if headers:  # the call's own headers= win (llmbridge.call_settings)
        http_request.headers = _merged(http_request.headers, headers)
    observer = None
    if telemetry is not None:
        from ..secrets import request_secrets
        from ..telemetry.otel import ChatObserver, instruments

        observer = ChatObserver(
            instruments(telemetry),
            provider=provider.name,
            request=request,
            url=http_request.url,
            secrets=request_secrets(http_request.headers, http_request.url, http_request.json)
            if telemetry.record_content
            else (),
        )
    return stream_events(
        http=http,
        provider=provider,
        request=http_request,
        new_decoder=new_decoder,
        retry=retry,
        timeout=timeout,
        deadline=deadline,
        max_event_bytes=max_event_bytes,
        max_response_bytes=max_response_bytes,
        max_events=max_events,
        observer=observer,
    )


def _merged(base: Mapping[str, str], extra: Mapping[str, str]) -> dict[str, str]:
    """``base`` with ``extra`` on top, a header given in another case replaced, not doubled."""
    lowered = {k.lower() for k in extra}
    return {**{k: v for k, v in base.items() if k.lower() not in lowered}, **extra}
