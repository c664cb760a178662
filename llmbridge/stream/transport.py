"""The one attempt loop: send a prepared call, retry before its first event, read its body.

Rules:

* ``run_attempts`` is the only loop that sends: streams, resumable streams (a ``resume.Resume``
  strategy) and plain JSON requests (``fetch.fetch_json``: framing ``json``, the parsed answer
  is its one item) all go through it. It owns: the send (``opening.open_response``: auth per
  attempt, the status checked before the body), the call's deadline (``timeout=``, bounding
  sends, reads and waits), retries before the first event (``RetryPolicy.delay``, honouring
  ``Retry-After``), ``max_attempts`` (each send is one attempt, nothing resent behind the
  policy's back), closing the response on every exit (end, error, ``break``, cancellation,
  shielded), scrubbing the request's secrets from every error (those of the request as
  actually sent too: the app's client's ``params`` and headers, its ``httpx.Auth``), and the
  partial response on errors (``err.partial``, with what the decoder held back).
* After an event was yielded nothing is retried: the error is raised with the partial
  response, unless the strategy mends the break (``Resume``: the stream goes on with the
  provider's resume request, one decoder over every segment).
* A retry whose wait would end past the deadline is not waited for: ``TimeoutError`` at once,
  from the error that would have been retried (a stream and a plain request alike).
* ``StreamStart`` is stamped here, where the response head is read (``start_stamp``): the
  prepared call's warnings, a fallback chain's word (``StartNote``), the request id and rate
  limit. Only the first batches are looked at; then the hot loop feeds and yields, nothing
  more per event (the deadline's ``Until`` wraps the events only when a deadline is set).
* The body is read by its framing's reader (``opening.FRAMINGS``: httpx-sse for SSE, botocore's
  framer for AWS event streams, lines for NDJSON; bounds on bytes per event and per response).
  An SSE decoder is fed ``feed(event, data)``, ``event == ""`` for an unnamed event; the typed
  framings hand their decoder typed frames (``feed_frame``, ``llmbridge.frames``); which of the
  two is chosen once per attempt (``framed.feeds``).
* What the stream yields is kept in a ``record.Record`` (the partial response, telemetry, and
  the response ``complete()`` returns): the loop appends to a list, the reader folds it every
  few thousand events; past ``max_events`` it is a ``MalformedStreamError``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Protocol

import anyio

from ..errors import LLMBridgeError
from ..events import StreamEvent
from ..providers.adapter import legacy_prepared
from ..providers.base import AnyDecoder, HttpRequest, Provider
from ..providers.prepared import Prepared
from .answer import read_answer
from .call import CallConfig, StreamState
from .clients import HttpPool
from .deadline import Until, within
from .failed_attempt import BreakStrategy, after_error
from .framed import feeds
from .opening import framing_of, open_response, read_json
from .record import Record
from .retry import RetryPolicy
from .sending import Sleep, auth_for, request_scrubber, scrub_error, sent_scrubber, translate
from .start_stamp import Stamp, StartNote, stamp_batch, stamp_of

__all__ = ["StreamObserver", "run_attempts", "stream_events"]

log = logging.getLogger("llmbridge")


class StreamObserver(Protocol):
    """What telemetry hears of a stream (``llmbridge.telemetry``): never per event."""

    def start(self) -> None: ...

    def first_event(self) -> None: ...

    def end(self, record: Record, error: BaseException | None) -> None: ...


async def run_attempts(
    prepared: Prepared,
    *,
    provider: Provider,
    config: CallConfig,
    observer: StreamObserver | None = None,
    state: StreamState | None = None,
    resume: BreakStrategy | None = None,
    note: StartNote | None = None,
    during: str = "sending",
) -> AsyncIterator[Any]:
    """Yield the events of one prepared call (for framing ``json``: its parsed answer), trying
    again before the first (see the module rules). ``observer`` (telemetry) hears when it
    starts, its first event and once how it ended; ``state`` is told the record and each
    decoder; ``resume`` mends breaks after events; ``note`` is a fallback chain's word;
    ``during``: what a ``TimeoutError`` while sending says the call was doing."""
    name = provider.name
    framing = framing_of(prepared.framing, name)
    record = Record(provider=name, max_events=config.max_events)
    if state is not None:
        state.record = record
    sending = prepared.http
    scrub = request_scrubber(sending)
    auth = auth_for(provider, sending)  # its tokens and signatures are secrets too
    pool = config.http if isinstance(config.http, HttpPool) else HttpPool(config.http)
    decoder: AnyDecoder | None = None
    stamp = None
    attempt = 0
    if observer is not None:
        observer.start()
    first, ended = observer, None
    try:
        while True:
            attempt += 1
            response = body = events = None
            reading = False
            shards = pool.for_loop()
            shard = shards.acquire()
            try:
                opening = _open_attempt(
                    shards.clients[shard],
                    provider,
                    sending,
                    config,
                    framing,
                    auth,
                    resume,
                    during,
                    head=prepared.framing == "json-answer",
                )
                if framing is None:  # a plain request: its answer, read whole, is the one item
                    yield await opening
                    return
                response = await opening
                scrub = sent_scrubber(response, scrub, auth=auth.get("auth"))
                if decoder is None:  # the first answer (or one before any event)
                    decoder, stamp = _decoder(prepared, note, response, state)
                reading = True
                body, events = _body(framing[1], response, config, name, record)
                # The feed, chosen once: typed frames (event stream, NDJSON) go to the
                # decoder's ``feed_frame``; httpx-sse names unnamed events "message", decoders
                # are given "".
                (typed, feed), keep = feeds(body, decoder), record.recent.append
                with translate(name, sending.url, midway=True):
                    # Up to the first events: clock the first, stamp the StreamStart (in the
                    # first batch, nearly always; a decoder may send it later).
                    async for item in events:
                        if typed is not None:
                            batch = typed(item)
                        else:
                            kind = item.event
                            batch = feed("" if kind == "message" else kind, item.data)
                        if batch:
                            batch, stamp = stamped(batch, stamp)
                            if first is not None:
                                first.first_event()
                                first = None
                            for event in batch:
                                keep(event)
                                yield event
                            if stamp is None:
                                break
                    async for item in events:  # the hot loop: nothing per event but these
                        if typed is not None:
                            batch = typed(item)
                        else:
                            kind = item.event
                            batch = feed("" if kind == "message" else kind, item.data)
                        for event in batch:
                            keep(event)
                            yield event
                for event in _last(decoder, stamp, resume):
                    keep(event)
                    yield event
                return
            except LLMBridgeError as exc:
                scrub_error(exc, scrub)
                decoder, sending, delay = after_error(
                    exc, attempt, record, decoder, sending, config, name, resume, reading
                )
            finally:
                await _close(events, body, response, shards, shard)
            await config.sleep(delay)
    except BaseException as exc:  # failed, closed early or cancelled: the observer says which
        ended = exc
        raise
    finally:
        await _ended(record, decoder, ended, observer, resume, provider, config)


def stamped(
    batch: list[StreamEvent], stamp: Stamp | None
) -> tuple[list[StreamEvent], Stamp | None]:
    """``batch`` with the ``StreamStart`` stamped, and the stamp still owed (``None``: given)."""
    if stamp is None:
        return batch, None
    batch, done = stamp_batch(batch, stamp)
    return batch, None if done else stamp


def _open_attempt(
    client: Any,
    provider: Provider,
    sending: HttpRequest,
    config: CallConfig,
    framing: tuple[str, Callable[..., Any]] | None,
    auth: dict[str, Any],
    resume: BreakStrategy | None,
    during: str,
    *,
    head: bool = False,
) -> Awaitable[Any]:
    """One attempt's send: the response, its status checked (for framing ``json``: its parsed
    answer; ``json-answer``, ``head``: its ``answer.Answer``), bounded by the call's deadline
    (``during``: what its timeout says the call was doing; "resuming" for a resume request)."""
    opening = open_response(
        client,
        provider,
        sending,
        timeout=config.timeout,
        content_type=None if framing is None else framing[0],
        auth=auth,
    )
    if framing is None:
        opening = _answer(opening, provider.name, sending.url, auth.get("auth"), head=head)
    if config.deadline is None:
        return opening
    doing = "resuming" if resume is not None and resume.resuming is not None else during
    return within(config.deadline, opening, provider=provider.name, during=doing)


def _decoder(
    prepared: Prepared, note: StartNote | None, response: Any, state: StreamState | None
) -> tuple[AnyDecoder, Stamp | None]:
    """The decoder of the call (made at its first answer) and what its ``StreamStart`` owes."""
    decoder = prepared.new_decoder()
    if state is not None:
        state.decoder = decoder
    return decoder, stamp_of(prepared, note, response.headers)


def _body(
    reader: Callable[..., Any], response: Any, config: CallConfig, name: str, record: Record
) -> tuple[Any, Any]:
    """The framing's reader of ``response`` and the frames it yields (bounded by the deadline)."""
    body = reader(
        response,
        limit=config.max_event_bytes,
        max_bytes=config.max_response_bytes,
        provider=name,
        record=record,
    )
    events = body.events()
    if config.deadline is not None:
        events = Until(events, config.deadline, name)
    return body, events


async def _close(events: Any, body: Any, response: Any, shards: Any, shard: int) -> None:
    """Close what one attempt opened (shielded: on cancellation too) and free its client."""
    with anyio.CancelScope(shield=True):
        try:
            for part in (events, body, response):
                if part is not None:
                    await part.aclose()
        finally:
            shards.release(shard)


async def _ended(
    record: Record,
    decoder: AnyDecoder | None,
    ended: BaseException | None,
    observer: StreamObserver | None,
    resume: BreakStrategy | None,
    provider: Provider,
    config: CallConfig,
) -> None:
    """The stream ended (``ended``: how, ``None`` at its end): cancel a response the app left
    early (``resume``), then tell the observer."""
    try:
        if resume is not None and ended is not None and not isinstance(ended, Exception):
            await resume.left_early(decoder, http=config.http, provider=provider, config=config)
    finally:
        if observer is not None:
            observer.end(record, ended)


def _last(
    decoder: AnyDecoder, stamp: Stamp | None, resume: BreakStrategy | None
) -> list[StreamEvent]:
    """The events of a body that ended: the decoder's last (its ``close()``), stamped when no
    batch took the stamp; a break when the strategy says the body ended too soon."""
    if resume is not None:
        resume.check_end(decoder)
    batch = decoder.close()
    if stamp is not None:
        batch, _ = stamp_batch(batch, stamp, last=True)
    return batch


async def _answer(opening: Any, name: str, url: str, auth: Any, *, head: bool) -> Any:
    """The parsed JSON answer of a plain request, or (``head``) its ``Answer`` (the response
    closed, whatever happens)."""
    response = await opening
    try:
        if head:
            return await read_answer(response, provider=name, url=url)
        return await read_json(response, provider=name, url=url)
    except LLMBridgeError as exc:
        scrub_error(exc, sent_scrubber(response, auth=auth))
        raise
    finally:
        with anyio.CancelScope(shield=True):
            await response.aclose()


def stream_events(
    *,
    http: Any,
    provider: Provider,
    request: HttpRequest,
    new_decoder: Callable[[], AnyDecoder],
    retry: RetryPolicy,
    timeout: Any = None,
    sleep: Sleep = anyio.sleep,
    observer: StreamObserver | None = None,
    **bounds: Any,
) -> AsyncIterator[StreamEvent]:
    """The events of one streamed ``request`` through ``run_attempts`` (for callers holding an
    ``HttpRequest`` and a decoder factory rather than a ``Prepared``; ``bounds``: ``deadline``,
    ``max_event_bytes``, ``max_response_bytes``, ``max_events`` of ``CallConfig``)."""
    prepared = legacy_prepared(provider, request, new_decoder)  # the provider's old attributes
    config = CallConfig(http=http, retry=retry, timeout=timeout, sleep=sleep, **bounds)
    return run_attempts(prepared, provider=provider, config=config, observer=observer)
