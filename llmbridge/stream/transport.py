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
  decoder for AWS event streams, lines for NDJSON; bounds on bytes per event and per response);
  the decoder is fed ``feed(event, data)``, ``event == ""`` for an unnamed SSE event.
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
from ..providers.base import Decoder, HttpRequest, Provider, ResumePoint, held_of
from ..providers.prepared import Prepared
from .call import CallConfig, StreamState
from .clients import HttpPool
from .deadline import Until, within
from .opening import framing_of, open_response, read_json
from .record import Record
from .retry import RetryPolicy
from .sending import Sleep, auth_for, request_scrubber, scrub_error, sent_scrubber, translate
from .start_stamp import Stamp, StartNote, stamp_batch, stamp_of

__all__ = ["BreakStrategy", "StreamObserver", "run_attempts", "stream_events"]

log = logging.getLogger("llmbridge")


class StreamObserver(Protocol):
    """What telemetry hears of a stream (``llmbridge.telemetry``): never per event."""

    def start(self) -> None: ...

    def first_event(self) -> None: ...

    def end(self, record: Record, error: BaseException | None) -> None: ...


class BreakStrategy(Protocol):
    """What the loop asks a strategy that mends breaks after events (``resume.Resume``)."""

    @property
    def resuming(self) -> ResumePoint | None:
        """Where the request being sent resumes (``None``: the first request)."""
        ...

    def point(self, decoder: Decoder | None) -> ResumePoint | None: ...

    def check_end(self, decoder: Decoder) -> None:
        """Raise when a body that ended cleanly is still a break."""
        ...

    def failed_start(self, error: LLMBridgeError) -> None:
        """``error`` ends the call before any event (note it)."""
        ...

    def after_break(
        self, error: LLMBridgeError, *, attempt: int, point: ResumePoint, reading: bool
    ) -> float | None:
        """The wait before resuming after ``point`` (``None``: raise ``error``)."""
        ...

    def request_after(self, point: ResumePoint) -> HttpRequest: ...

    async def left_early(
        self, decoder: Decoder | None, *, http: Any, provider: Provider, config: CallConfig
    ) -> None:
        """The app left before the end (cancel the response, if asked)."""
        ...


def attach(
    error: LLMBridgeError, provider: str, record: Record, decoder: Decoder | None = None
) -> LLMBridgeError:
    """``error`` with its provider and the partial response (with what ``decoder`` still held
    back: ``providers.base.held_of``)."""
    if error.provider is None:
        error.provider = provider
    if error.partial is None and record:
        record.recent.extend(held_of(decoder))
        error.partial = record.response()
    return error


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
    name, deadline = provider.name, config.deadline
    framing = framing_of(prepared.framing, name)
    record = Record(provider=name, max_events=config.max_events)
    if state is not None:
        state.record = record
    sending = prepared.http
    scrub = request_scrubber(sending)
    auth = auth_for(provider, sending)  # its tokens and signatures are secrets too
    pool = config.http if isinstance(config.http, HttpPool) else HttpPool(config.http)
    decoder: Decoder | None = None
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
                doing = during if resume is None or resume.resuming is None else "resuming"
                opening = _send(shards.clients[shard], provider, sending, config, framing, auth)
                if deadline is not None:
                    opening = within(deadline, opening, provider=name, during=doing)
                if framing is None:  # a plain request: its answer, read whole, is the one item
                    yield await opening
                    return
                response = await opening
                scrub = sent_scrubber(response, scrub, auth=auth.get("auth"))
                if decoder is None:  # the first answer (or one before any event)
                    decoder = prepared.new_decoder()
                    stamp = stamp_of(prepared, note, response.headers)
                    if state is not None:
                        state.decoder = decoder
                reading = True
                body = framing[1](
                    response,
                    limit=config.max_event_bytes,
                    max_bytes=config.max_response_bytes,
                    provider=name,
                    record=record,
                )
                events = body.events()
                if deadline is not None:
                    events = Until(events, deadline, name)
                # The feed: httpx-sse names unnamed events "message"; decoders are given "".
                feed, keep = decoder.feed, record.recent.append
                with translate(name, sending.url, midway=True):
                    # Up to the first events: clock the first, stamp the StreamStart (in the
                    # first batch, nearly always; a decoder may send it later).
                    async for sse in events:
                        kind = sse.event
                        batch = feed("" if kind == "message" else kind, sse.data)
                        if batch:
                            if stamp is not None:
                                batch, done = stamp_batch(batch, stamp)
                                stamp = None if done else stamp
                            if first is not None:
                                first.first_event()
                                first = None
                            for event in batch:
                                keep(event)
                                yield event
                            if stamp is None:
                                break
                    async for sse in events:  # the hot loop: nothing per event but these
                        kind = sse.event
                        for event in feed("" if kind == "message" else kind, sse.data):
                            keep(event)
                            yield event
                for event in _last(decoder, stamp, resume):
                    keep(event)
                    yield event
                return
            except LLMBridgeError as exc:
                scrub_error(exc, scrub)
                broken = decoder  # what it holds back goes into the partial response
                point = resume.point(decoder) if resume is not None and record else None
                if point is None:  # nothing yielded yet: tried again as any request is
                    decoder = None
                delay = _wait(exc, attempt, record, broken, config, name, resume, point, reading)
                if point is not None and resume is not None:
                    sending = resume.request_after(point)
            finally:
                with anyio.CancelScope(shield=True):
                    try:
                        for part in (events, body, response):
                            if part is not None:
                                await part.aclose()
                    finally:
                        shards.release(shard)
            await config.sleep(delay)
    except BaseException as exc:  # failed, closed early or cancelled: the observer says which
        ended = exc
        raise
    finally:
        await _ended(record, decoder, ended, observer, resume, provider, config)


def _send(
    client: Any,
    provider: Provider,
    request: HttpRequest,
    config: CallConfig,
    framing: tuple[str, Callable[..., Any]] | None,
    auth: dict[str, Any],
) -> Awaitable[Any]:
    """One attempt's send: the response, its status checked (for framing ``json``: its
    parsed answer)."""
    opening = open_response(
        client,
        provider,
        request,
        timeout=config.timeout,
        content_type=None if framing is None else framing[0],
        auth=auth,
    )
    if framing is None:
        return _answer(opening, provider.name, request.url, auth.get("auth"))
    return opening


def _wait(
    exc: LLMBridgeError,
    attempt: int,
    record: Record,
    broken: Decoder | None,
    config: CallConfig,
    name: str,
    resume: BreakStrategy | None,
    point: ResumePoint | None,
    reading: bool,
) -> float:
    """Seconds to wait before the next attempt after ``exc``, else ``exc`` raised with its
    partial response (a ``TimeoutError`` when the wait would end past the deadline)."""
    delay = _delay(exc, attempt, record, config.retry, resume, point, reading)
    deadline = config.deadline
    if delay is not None and deadline is not None:
        if deadline.passed():
            delay = None  # out of time: raised as it is
        elif anyio.current_time() + delay >= deadline.start():
            what = "a retry" if point is None else "a resume"
            late = deadline.error(provider=name, during=f"no time left for {what} after {exc!r}")
            raise attach(late, name, record, broken) from exc
    if delay is None:
        raise attach(exc, name, record, broken)
    _log_retry(name, exc, attempt, delay, point)
    return delay


async def _ended(
    record: Record,
    decoder: Decoder | None,
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


def _last(decoder: Decoder, stamp: Stamp | None, resume: BreakStrategy | None) -> list[StreamEvent]:
    """The events of a body that ended: the decoder's last (its ``close()``), stamped when no
    batch took the stamp; a break when the strategy says the body ended too soon."""
    if resume is not None:
        resume.check_end(decoder)
    batch = decoder.close()
    if stamp is not None:
        batch, _ = stamp_batch(batch, stamp, last=True)
    return batch


async def _answer(opening: Any, name: str, url: str, auth: Any) -> Any:
    """The parsed JSON answer of a plain request (the response closed, whatever happens)."""
    response = await opening
    try:
        return await read_json(response, provider=name, url=url)
    except LLMBridgeError as exc:
        scrub_error(exc, sent_scrubber(response, auth=auth))
        raise
    finally:
        with anyio.CancelScope(shield=True):
            await response.aclose()


def _delay(
    exc: LLMBridgeError,
    attempt: int,
    record: Record,
    retry: RetryPolicy,
    resume: BreakStrategy | None,
    point: ResumePoint | None,
    reading: bool,
) -> float | None:
    """Seconds to wait before the next attempt, or ``None`` to raise ``exc``: before any event,
    the policy's (``Retry-After`` honoured); after events, the strategy's (none: raised)."""
    if point is not None and resume is not None:
        return resume.after_break(exc, attempt=attempt, point=point, reading=reading)
    delay = None if record else retry.delay(attempt=attempt, error=exc)
    if delay is None and resume is not None:
        resume.failed_start(exc)
    return delay


def _log_retry(name: str, exc: LLMBridgeError, attempt: int, delay: float, point: Any) -> None:
    log.debug(
        "llmbridge: %s failed (%s); %s %d in %.2fs",
        name,
        type(exc).__name__,
        "retry" if point is None else "resume, attempt",
        attempt,
        delay,
        extra={"retry_error": exc, "retry_delay": delay},  # the CLI's retry notes
    )


def stream_events(
    *,
    http: Any,
    provider: Provider,
    request: HttpRequest,
    new_decoder: Callable[[], Decoder],
    retry: RetryPolicy,
    timeout: Any = None,
    sleep: Sleep = anyio.sleep,
    observer: StreamObserver | None = None,
    **bounds: Any,
) -> AsyncIterator[StreamEvent]:
    """The events of one streamed ``request`` through ``run_attempts`` (for callers holding an
    ``HttpRequest`` and a decoder factory rather than a ``Prepared``; ``bounds``: ``deadline``,
    ``max_event_bytes``, ``max_response_bytes``, ``max_events`` of ``CallConfig``)."""
    prepared = Prepared(
        http=request,
        new_decoder=new_decoder,
        framing=getattr(provider, "framing", "sse"),
        read_rate_limit=getattr(provider, "read_rate_limit", None),
    )
    config = CallConfig(http=http, retry=retry, timeout=timeout, sleep=sleep, **bounds)
    return run_attempts(prepared, provider=provider, config=config, observer=observer)
