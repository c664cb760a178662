"""One request's way to a stream of events: its plans, its wire request, telemetry and the IO.

Rules:

* ``plan_request`` is the one decision per request, made before anything is sent, and gives
  the call prepared once (``providers.prepared.Prepared``, through ``adapter.prepared_of``):
  the model's ``capabilities`` are asked once (``plan_wire``), then
  provider-run tools are checked against what the provider runs (``llmbridge.hosted``), and
  ``compaction=`` against whether it compacts (``llmbridge.compaction``);
  deferred tools (``ToolSpec.defer_loading``) with no ``ToolSearch`` to load them are sent as
  ordinary tools, with a warning (no API loads a deferred tool without its search); the
  response format is asked natively or in the prompt (``llmbridge.structured.prompt``); the
  tools are sent natively, rescued or written into the prompt (``llmbridge.prompt_tools``,
  loaded only when there are tools). Its warnings follow the encoder's in ``Prepared.warnings``;
  the call's own ``headers=`` are merged into the prepared request once; the decoder factory
  makes a fresh decoder per attempt (retries start over), wrapped when the tools need it.
  ``stream=False`` on a provider whose prepared call is not framed ``whole`` is a
  ``ConfigurationError`` here (``providers.whole.require_whole``).
* ``open_events`` prepares the call once, attaches the telemetry observer when it is on
  (``llmbridge.telemetry``, loaded only then) and hands it to the one attempt loop
  (``stream.transport.run_attempts``); a background request (``ChatRequest.background``) with a
  ``stream.resume.Resume`` strategy, whose resume and cancel requests
  (``providers.base.Resumable``) get the call's headers too. ``background`` on a provider that
  is not ``Resumable`` is a
  ``ConfigurationError`` before sending (``option_names.unsupported_option``);
  ``cancel_on_close`` without it a ``UsageError``.
* ``open_resumed`` is ``Client.resume``: the provider's resume request for a response another
  process started, read by the same loop with the provider's ``resume_decoder``.
* Everything about how the call is sent comes in one ``stream.call.CallConfig``; what the
  stream tells its ``EventStream`` goes to its ``stream.call.StreamState``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import UsageError
from ..events import StreamEvent
from ..providers.adapter import prepared_of
from ..providers.base import (
    AnyDecoder,
    HttpRequest,
    Provider,
    ReadsRateLimits,
    Resumable,
    ResumePoint,
)
from ..providers.option_names import unsupported_option
from ..providers.prepared import Prepared
from ..request import ChatRequest
from ..stream.call import CallConfig, StreamState
from ..stream.start_stamp import StartNote
from ..stream.transport import run_attempts
from ..structured.prompt import plan_format
from ..telemetry import Telemetry

if TYPE_CHECKING:
    from ..stream.resume import Resume

__all__ = ["Planned", "open_events", "open_resumed", "plan_request", "plan_wire", "with_headers"]


class Planned(NamedTuple):
    """``plan_wire``'s answer: the request to prepare, what planning warned of, and the
    wrapper of its decoders (``prompt_tools.Plan.wrap``)."""

    request: ChatRequest
    warnings: tuple[str, ...]
    wrap: Callable[[AnyDecoder], AnyDecoder] | None


def plan_wire(provider: Provider, request: ChatRequest, *, rescue: bool | None) -> Planned:
    """The request to send for ``request`` (see module rules; ``capabilities`` asked once)."""
    if request.background and not isinstance(provider, Resumable):
        raise unsupported_option("background", provider=provider.name, model=request.model)
    needs_caps = (
        request.hosted_tools
        or request.compaction is not None
        or request.response_format is not None
        or request.tools
    )
    if not needs_caps:
        return Planned(request, (), None)
    caps = provider.capabilities(request.model)
    if request.hosted_tools:  # provider-run tools: refused here, before anything is sent
        from ..hosted import check_runs_on

        check_runs_on(
            request.hosted_tools,
            provider=provider.name,
            model=request.model,
            kinds=caps.hosted_tools,
        )
    if request.compaction is not None and not caps.compaction:
        from ..compaction import unsupported_compaction

        raise unsupported_compaction(provider=provider.name, model=request.model)
    warnings: list[str] = []
    if request.tools and any(t.defer_loading for t in request.tools):
        request, undeferred = _undefer(request)
        warnings.extend(undeferred)
    if request.response_format is not None:
        request, warning = plan_format(request, caps)
        if warning is not None:
            warnings.append(warning)
    wrap = None
    if request.tools:
        from ..prompt_tools import plan

        request, wrap = plan(request, caps, rescue=rescue)
    return Planned(request, tuple(warnings), wrap)


def plan_request(
    provider: Provider,
    request: ChatRequest,
    *,
    rescue: bool | None,
    headers: Mapping[str, str] | None = None,
) -> Prepared:
    """``request`` planned and prepared once (see module rules): the call's ``headers`` on the
    prepared request, the planning's warnings after the encoder's, the decoders wrapped."""
    planned = plan_wire(provider, request, rescue=rescue)
    prepared = prepared_of(provider, planned.request)
    if request.stream is False:  # a whole answer: a provider without one refuses it here
        from ..providers.whole import require_whole

        if request.background:
            raise UsageError(
                "background=True streams a response the server keeps (and resumes it); "
                "stream=False asks for one whole answer: use one or the other"
            )
        require_whole(prepared, provider=provider.name, model=request.model)
    http = with_headers(prepared.http, headers)
    wrap = planned.wrap
    if wrap is None and not planned.warnings and http is prepared.http:
        return prepared  # nothing to add: the provider's own value
    new_decoder = prepared.new_decoder
    return replace(
        prepared,
        http=http,
        new_decoder=new_decoder if wrap is None else lambda: wrap(new_decoder()),
        warnings=(*prepared.warnings, *planned.warnings),
    )


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
    provider: Provider,
    request: ChatRequest,
    rescue: bool | None,
    config: CallConfig,
    state: StreamState | None = None,
    note: StartNote | None = None,
) -> AsyncIterator[StreamEvent]:
    """The normalized events of ``request`` sent through ``provider`` (see module rules;
    ``state``: told the record and where a background stream stands; ``note``: a fallback
    chain's word for the ``StreamStart``)."""
    if config.cancel_on_close and not request.background:
        raise UsageError(
            "cancel_on_close=True stops a background response (background=True, or "
            "Client.resume) when the stream is left early; this stream is not one"
        )
    prepared = plan_request(provider, request, rescue=rescue, headers=config.headers)
    observer = _observer(config.telemetry, provider, request, prepared.http)
    resume = _resume(provider, config) if request.background else None
    return run_attempts(
        prepared,
        provider=provider,
        config=config,
        observer=observer,
        state=state,
        resume=resume,
        note=note,
    )


def open_resumed(
    *,
    provider: Provider,
    model: str,
    response_id: str,
    after: int | None,
    config: CallConfig,
    state: StreamState | None = None,
) -> AsyncIterator[StreamEvent]:
    """The events of ``response_id`` after event ``after``, a response started elsewhere."""
    if not isinstance(provider, Resumable):
        raise unsupported_option(
            "background", provider=provider.name, model=model, label="resuming a response"
        )
    if after is not None and (isinstance(after, bool) or not isinstance(after, int) or after < 0):
        raise UsageError(
            f"after= takes the number of an event (an int >= 0) or None, not {after!r}"
        )
    if not isinstance(response_id, str) or not response_id:
        raise UsageError(f"response_id= takes the response's id (a str), not {response_id!r}")
    first = with_headers(provider.resume_request(response_id, after=after), config.headers)
    prepared = Prepared(
        http=first,
        new_decoder=lambda: provider.resume_decoder(response_id=response_id, after=after),
        read_rate_limit=provider.read_rate_limit if isinstance(provider, ReadsRateLimits) else None,
    )
    request = ChatRequest(model=model, messages=[], background=True)  # for telemetry
    return run_attempts(
        prepared,
        provider=provider,
        config=config,
        observer=_observer(config.telemetry, provider, request, first),
        state=state,
        resume=_resume(provider, config, resuming=ResumePoint(response_id, after)),
    )


def _resume(
    provider: Provider, config: CallConfig, *, resuming: ResumePoint | None = None
) -> Resume:
    """The ``Resume`` strategy with the provider's resume and cancel requests (the call's
    ``headers`` on top)."""
    from ..stream.resume import Resume

    assert isinstance(provider, Resumable)  # plan_request / open_resumed checked it
    headers = config.headers

    def resume(point: ResumePoint) -> HttpRequest:
        return with_headers(provider.resume_request(point.response_id, after=point.after), headers)

    def cancel(response_id: str) -> HttpRequest:
        return with_headers(provider.cancel_request(response_id), headers)

    return Resume(
        resume=resume,
        cancel=cancel if config.cancel_on_close else None,
        resuming=resuming,
        retry=config.retry,
        deadline=config.deadline,
    )


def _observer(
    telemetry: Telemetry | None, provider: Provider, request: ChatRequest, sent: HttpRequest
) -> Any:
    """The telemetry observer of one stream (``None`` when telemetry is off)."""
    if telemetry is None:
        return None
    from ..secrets import request_secrets
    from ..telemetry.otel import ChatObserver, instruments

    return ChatObserver(
        instruments(telemetry),
        provider=provider.name,
        request=request,
        url=sent.url,
        secrets=request_secrets(sent.headers, sent.url, sent.json)
        if telemetry.record_content
        else (),
    )


def with_headers(request: HttpRequest, headers: Mapping[str, str] | None) -> HttpRequest:
    """``request`` with the call's own ``headers=`` on top (llmbridge.call_settings)."""
    if headers:
        return replace(request, headers=_merged(request.headers, headers))
    return request


def _merged(base: Mapping[str, str], extra: Mapping[str, str]) -> dict[str, str]:
    """``base`` with ``extra`` on top, a header given in another case replaced, not doubled."""
    lowered = {k.lower() for k in extra}
    return {**{k: v for k, v in base.items() if k.lower() not in lowered}, **extra}
