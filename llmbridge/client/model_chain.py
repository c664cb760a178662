"""Fallback models: ``client.stream(["anthropic:…", "openai:…"], messages)`` tries each in turn.

Rules (issue 23; ``docs/across-providers.md``, "Fallback models"):

* A chain is a list (or tuple) of model references, each a ``"provider:model"`` string, a
  provider object, ``(provider, model)`` or a ``ModelOption`` carrying options for that model
  alone (they override the call's options, e.g. a smaller ``max_tokens``). Every model's
  request is built before anything is sent, so a bad option fails at once; so is the wire
  request of every model asked for provider-run tools (``llmbridge.hosted``), so a spec a
  fallback model cannot run is a ``ConfigurationError`` now, not once the models before it
  failed.
* A model *fails over* to the next when its error is retryable (429, 5xx, overloaded, network;
  after that model's own retries), a ``StreamError`` (its stream broke), or matches the
  caller's ``fallback_on`` (an exception class, a list or tuple of them, or a predicate; checked
  when the call is made, not when a model fails). Any other error (a 400, a bad
  key) is raised at once, as it is: the next model would not make it right (unless it was the
  last model: then every model was tried, see below).
* Before a model's first event the move is silent (a ``StreamStart`` is held back until
  something else comes, so a stream that fails right after starting still counts as "before").
  The answering model's ``StreamStart`` then names it (``provider``) and says in ``warnings``
  which models failed and why: the chain hands that to the stream as data
  (``stream.start_stamp.StartNote``), stamped where the response head is read.
* After events were yielded, the error is raised with its ``partial`` (as without a chain),
  unless ``restart=True``: then a ``ModelSwitch`` (``from_model``, ``to_model``, ``error``) is
  yielded right before the next model's first event, so the app can discard what it showed;
  ``complete()`` and ``run()`` fold only the last model's events (``Accumulator`` starts afresh
  on a ``ModelSwitch``).
* When the last model fails too (before its first event, or after it with ``restart=True``),
  ``AllModelsFailedError`` carries every model's error, in order.
* The ``EventStream.provider`` is the provider answering at the moment: every model's stream
  shares the chain's ``stream.call.StreamState`` (so its record, read by ``complete()``, is
  the answering model's).
* The chain never imports the client: the client hands itself down as a ``ChainHost``
  (resolve a model, build a request, stream it) with its option check and the call's one
  ``CallConfig``. What a model reference
  is (``ModelRef``, ``ModelOption``, ``is_chain``) is ``llmbridge.model_refs``'s, a floor down
  (re-exported here), so MCP sampling reads it without importing the client.
* The call's ``timeout=`` is one budget for the whole chain: once it has passed, its
  ``TimeoutError`` is raised as it is (no next model, no ``AllModelsFailedError``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any, Protocol, TypeAlias

from ..errors import AllModelsFailedError, LLMBridgeError, StreamError, UsageError
from ..events import ModelSwitch, StreamEvent, StreamStart
from ..messages import ChatMessage
from ..model_refs import ModelOption as ModelOption
from ..model_refs import ModelRef as ModelRef
from ..model_refs import first_model as first_model
from ..model_refs import is_chain as is_chain
from ..providers.base import Provider
from ..request import ChatRequest
from ..stream.call import CallConfig, StreamState
from ..stream.deadline import Deadline
from ..stream.start_stamp import StartNote
from .event_stream import EventStream

__all__ = [
    "CHAIN_OPTIONS",
    "ChainHost",
    "FallbackOn",
    "open_chain",
]

FallbackOn: TypeAlias = (
    type[BaseException]
    | tuple[type[BaseException], ...]
    | list[type[BaseException]]
    | Callable[[LLMBridgeError], bool]
    | None
)
_On: TypeAlias = (
    type[BaseException] | tuple[type[BaseException], ...] | Callable[[LLMBridgeError], bool] | None
)
"""``FallbackOn`` as checked (a list made a tuple)."""
CHAIN_OPTIONS = frozenset({"restart", "fallback_on", "model_timeout", "output_retries"})
"""Options of a chain itself, and of the call around it (never sent to a model;
``output_retries``: ``llmbridge.client.structured_retry``)."""


class ChainHost(Protocol):
    """What the chain asks of the ``Client`` that opens it."""

    def resolve(self, model: ModelRef) -> tuple[Provider, str]: ...
    @property
    def build_request(self) -> Callable[..., ChatRequest]:
        """``build_request(model_name, messages, **options)``."""
        ...

    def open_request(
        self,
        provider: Provider,
        request: ChatRequest,
        *,
        rescue: bool | None,
        config: CallConfig,
        state: StreamState | None = None,
        note: StartNote | None = None,
    ) -> EventStream: ...


@dataclasses.dataclass(slots=True)
class _Link:
    label: str
    provider: Provider
    request: ChatRequest


def _links(
    client: ChainHost,
    models: ModelRef | ModelOption | Sequence[ModelRef | ModelOption],
    messages: Sequence[ChatMessage],
    options: Mapping[str, Any],
    *,
    rescue: bool | None,
    check: Callable[[Mapping[str, Any]], None],
) -> list[_Link]:
    from .pipeline import plan_request

    items = [models] if isinstance(models, ModelOption) else list(models)  # type: ignore[arg-type]
    if not items:
        raise UsageError("a fallback chain needs at least one model")
    links = []
    for item in items:
        own = item.options if isinstance(item, ModelOption) else {}
        model = item.model if isinstance(item, ModelOption) else item
        if is_chain(model):
            raise UsageError(f"a fallback chain holds models, not chains: {model!r}")
        if own.keys() & CHAIN_OPTIONS:
            raise UsageError(
                "restart=, fallback_on=, model_timeout= and output_retries= belong to the call, "
                "not to one model"
            )
        merged = {**options, **own}
        check(merged)
        provider, name = client.resolve(model)
        request = client.build_request(name, messages, **merged)
        if request.hosted_tools:  # refused (or not) by the provider's check and encoder
            plan_request(provider, request, rescue=rescue)
        links.append(_Link(f"{provider.name}:{name}", provider, request))
    return links


def _checked(fallback_on: Any) -> _On:
    """``fallback_on`` as ``_moves_on`` reads it (a list made a tuple), or a ``UsageError``."""
    if fallback_on is None:
        return None
    classes = fallback_on if isinstance(fallback_on, tuple | list) else (fallback_on,)
    if all(isinstance(c, type) and issubclass(c, BaseException) for c in classes):
        return tuple(classes) if isinstance(fallback_on, tuple | list) else fallback_on
    if callable(fallback_on) and not isinstance(fallback_on, type):
        return fallback_on  # type: ignore[no-any-return]
    raise UsageError(
        f"fallback_on takes an exception class, a list or tuple of them, or a predicate "
        f"(error -> bool), not {fallback_on!r}"
    )


def later_models(
    models: Any, answered: int, error: LLMBridgeError, fallback_on: Any
) -> list[Any] | None:
    """The models of a chain after the one that ``answered``, when its ``error`` (found once
    its answer was whole: its structured output did not validate) is one the chain's
    ``fallback_on`` moves on for; ``None``: raise it (not a chain, no model left, not asked)."""
    if not is_chain(models):
        return None
    rest = list(models)[answered + 1 :]
    on = _checked(fallback_on)
    if not rest or on is None or not _matches(error, on):
        return None
    return rest


def _matches(error: LLMBridgeError, fallback_on: _On) -> bool:
    if fallback_on is None:
        return False
    if isinstance(fallback_on, type | tuple):
        return isinstance(error, fallback_on)
    return bool(fallback_on(error))


def _model_config(config: CallConfig, per_model: float | None, label: str) -> CallConfig:
    """The call's configuration for one model: its ``model_timeout`` from now, within the
    call's own deadline (none: the call's as it is)."""
    if per_model is None:
        return config
    budget = f"{label}'s model_timeout"
    if config.deadline is None:
        return dataclasses.replace(config, deadline=Deadline(per_model, label=budget))
    return dataclasses.replace(config, deadline=config.deadline.part(per_model, label=budget))


def _moves_on(error: LLMBridgeError, fallback_on: _On) -> bool:
    return error.retryable or isinstance(error, StreamError) or _matches(error, fallback_on)


def open_chain(
    client: ChainHost,
    models: ModelRef | ModelOption | Sequence[ModelRef | ModelOption],
    messages: Sequence[ChatMessage],
    *,
    rescue: bool | None,
    options: Mapping[str, Any],
    check: Callable[[Mapping[str, Any]], None],
    config: CallConfig,
) -> EventStream:
    """The ``EventStream`` of a fallback chain (see module docstring); ``check`` refuses
    options the client does not take; ``config``: the call's, its deadline one budget shared
    by every model."""
    opts = dict(options)
    restart = bool(opts.pop("restart", False))
    fallback_on = _checked(opts.pop("fallback_on", None))
    per_model = opts.pop("model_timeout", None)
    if per_model is not None:
        Deadline(per_model)  # a UsageError unless seconds > 0
    links = _links(client, models, messages, opts, rescue=rescue, check=check)
    state = StreamState(links[0].provider)
    events = _chain(
        client, links, state, rescue=rescue, restart=restart, on=fallback_on, config=config,
        per_model=per_model,
    )  # fmt: skip
    return EventStream(events, state)


async def _chain(
    client: ChainHost,
    links: list[_Link],
    state: StreamState,
    *,
    rescue: bool | None,
    restart: bool,
    on: _On,
    config: CallConfig,
    per_model: float | None = None,
) -> AsyncIterator[StreamEvent]:
    errors: list[tuple[str, LLMBridgeError]] = []
    switch: ModelSwitch | None = None  # owed to the app before the next model's first event
    deadline = config.deadline
    for n, link in enumerate(links):
        state.provider, state.link = link.provider, n
        held: list[StreamEvent] = []
        shown = False
        try:
            opened = client.open_request(
                link.provider,
                link.request,
                rescue=rescue,
                config=_model_config(config, per_model, link.label),
                state=state,
                note=_note(link, errors),
            )
            async with opened as events:
                async for event in events:
                    if not shown:
                        if type(event) is StreamStart:
                            held.append(event)
                            continue
                        shown = True
                        for first in _opening(switch, held, link):
                            yield first
                        switch = None
                    yield event
                if not shown:  # a stream with nothing but its start
                    for first in _opening(switch, held, link):
                        yield first
            return
        except LLMBridgeError as error:
            errors.append((link.label, error))
            last = n == len(links) - 1
            if deadline is not None and deadline.passed():
                error.message = f"{error.message} ({link.label} was answering)"  # who used it
                error.args = (error.message, *error.args[1:])
                raise  # the call's time is up: no model gets another try
            moves_on = _moves_on(error, on)
            if shown and not (restart and moves_on):
                raise  # as without a chain: the error with its partial
            if last:
                raise AllModelsFailedError(errors) from error
            if not moves_on:
                raise  # the next model would not make it right
            if shown:
                switch = ModelSwitch(from_model=link.label, to_model="", error=error)


def _note(link: _Link, errors: list[tuple[str, LLMBridgeError]]) -> StartNote | None:
    """What the ``StreamStart`` of ``link`` says once models failed before it: the answering
    provider and, in ``warnings``, which models failed and why (``None``: the first answers)."""
    if not errors:
        return None
    notes = tuple(
        f"fallback: {label} failed ({type(e).__name__}: {e}); {link.label} answers"
        for label, e in errors
    )
    return StartNote(provider=link.provider.name, warnings=notes)


def _opening(switch: ModelSwitch | None, held: list[StreamEvent], link: _Link) -> list[StreamEvent]:
    """What comes before a model's first event: the ``ModelSwitch`` owed to the app, if any,
    then the held ``StreamStart`` (stamped by the stream: ``_note``)."""
    if switch is None:
        return held
    return [dataclasses.replace(switch, to_model=link.label), *held]
