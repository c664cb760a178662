"""Resumable streams: a response the server keeps (``providers.base.Resumable``) goes on after
its connection breaks, and the app sees every event once.

Rules (docs/long-running.md, "Background mode and resuming"):

* This loop streams a background request (``ChatRequest.background``) and ``Client.resume``;
  every other stream goes through ``transport.stream_events``, untouched: nothing here runs
  for it, per event or otherwise.
* The IO is the transport's: ``transport._open`` sends each request (auth, the call's headers,
  the status checked before reading, the framing's reader with its bounds, secrets scrubbed
  from errors). One decoder reads every segment of the response, so the app gets one
  ``StreamStart`` and one ``Finish``; one ``Record`` keeps the events, so ``err.partial``
  spans every segment.
* A *break* is, after events were yielded: a connection that drops (``StreamTruncatedError``
  or ``ConnectionError`` from the transport), a read waiting past the idle (read) timeout
  (``TimeoutError``, but never the call's own ``timeout=``), or a body that ends before the
  provider's terminal event. The stream then resumes with ``provider.resume_request(id,
  after=n)``, ``n`` the number of the last event decoded (the decoder's ``resume_point``); the
  decoder drops an event the server sends again. Without a resume point (no response id yet)
  a break is raised as ``stream_events`` raises it.
* Errors that are no break (the provider's error event, a malformed stream, a bound) are
  raised as they are: the server would send them again. Before any event was yielded, errors
  are retried as ``stream_events`` retries them (the first request again, a fresh decoder).
* Attempts: every request of the call counts (the first, a retry before any event, each
  resume), and never more than the policy's ``max_attempts`` overall, not per break. A resume
  waits the policy's backoff first; a resume request answered 429 / 5xx is retried like any
  (``Retry-After`` honoured), one answered 404 / 401 is not. The call's deadline bounds it all.
* When a resume fails (its request refused, or ``max_attempts`` spent), its typed error says in
  its message that it was a resume, of which response after which event, and carries the
  partial response of every segment.
* ``cancel``: when the app leaves the stream before its end (``break`` and close,
  ``aclose()``, cancellation), ``provider.cancel_request(id)`` is sent once, shielded, within
  ``CANCEL_TIMEOUT`` seconds; its failure is logged on the ``llmbridge`` logger, never raised.
  A stream that ended in an error, or after its terminal event, is not cancelled (an errored
  one can still be resumed with ``Client.resume``).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio

from ..errors import CertificateError, LLMBridgeError, StreamTruncatedError, TransportError
from ..events import StreamEvent
from ..providers.base import Decoder, HttpRequest, Provider, ResumePoint, resume_point_of
from ..providers.prepared import Prepared
from .bounded import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_RESPONSE_BYTES
from .clients import HttpPool
from .deadline import Deadline, Until, within
from .fetch import fetch_json
from .record import DEFAULT_MAX_EVENTS, Record
from .retry import RetryPolicy
from .sending import (
    Sleep,
    auth_for,
    request_scrubber,
    scrub_error,
    sent_scrubber,
    translate,
)
from .transport import (
    Stamp,
    StreamObserver,
    _attach,
    _framing,
    _open,
    _prepared,
    _stamp,
    _stamp_start,
)

__all__ = ["CANCEL_TIMEOUT", "ResumeTracker", "is_break", "resumable_events"]

log = logging.getLogger("llmbridge")

CANCEL_TIMEOUT = 10.0
"""Seconds the cancel request of ``cancel_on_close`` may take (then it is given up, logged)."""


class ResumeTracker:
    """Where a resumable stream stands, for its ``EventStream.resume_point``: it holds the
    stream's decoder (set once per decoder, never per event) and asks it when asked."""

    __slots__ = ("decoder",)

    def __init__(self) -> None:
        self.decoder: Decoder | None = None

    def point(self) -> ResumePoint | None:
        return resume_point_of(self.decoder) if self.decoder is not None else None


def is_break(error: LLMBridgeError, deadline: Deadline | None) -> bool:
    """Whether ``error``, raised while a body was read, is a break a resume can mend."""
    if deadline is not None and deadline.passed():
        return False  # the call's own timeout: never resumed
    if isinstance(error, CertificateError):
        return False
    return isinstance(error, StreamTruncatedError | TransportError)


def _note(error: LLMBridgeError, what: str) -> None:
    error.message = f"{error.message} ({what})"
    error.args = (error.message, *error.args[1:])


def _where(point: ResumePoint) -> str:
    after = "its start" if point.after is None else f"event {point.after}"
    return f"response {point.response_id} after {after}"


async def resumable_events(
    *,
    http: Any,
    provider: Provider,
    request: HttpRequest,
    new_decoder: Callable[[], Decoder],
    resume: Callable[[ResumePoint], HttpRequest],
    cancel: Callable[[str], HttpRequest] | None = None,
    resuming: ResumePoint | None = None,
    retry: RetryPolicy,
    timeout: Any = None,
    deadline: Deadline | None = None,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    max_events: int = DEFAULT_MAX_EVENTS,
    sleep: Sleep = anyio.sleep,
    observer: StreamObserver | None = None,
    tracker: ResumeTracker | None = None,
    prepared: Prepared | None = None,
) -> AsyncIterator[StreamEvent]:
    """Yield the events of one resumable response (see the module rules).

    ``request`` is sent first (the background request, or ``Client.resume``'s own resume
    request, then ``resuming`` says where it starts); ``resume(point)`` builds the request that
    continues after a break; ``cancel(response_id)``, when given, the one ``cancel_on_close``
    sends; ``tracker`` is told each decoder made."""
    prepared = _prepared(prepared, provider, request, new_decoder)
    request, new_decoder = prepared.http, prepared.new_decoder
    name = provider.name
    attempt = 0
    record = Record(provider=name, max_events=max_events)
    scrub = request_scrubber(request)
    auth = auth_for(provider, request).get("auth")
    pool = http if isinstance(http, HttpPool) else HttpPool(http)
    content_type, reader = _framing(prepared, provider)
    decoder: Decoder | None = None
    stamp: Stamp | None = None
    sending = request
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
                opening = _open(shards.clients[shard], provider, sending, timeout, content_type)
                if deadline is not None:
                    during = "sending" if resuming is None else "resuming"
                    opening = within(deadline, opening, provider=name, during=during)
                response = await opening
                scrub = sent_scrubber(response, scrub, auth=auth)
                if decoder is None:  # the first answer (or one before any event)
                    decoder = new_decoder()
                    stamp = _stamp(prepared, response.headers)
                    if tracker is not None:
                        tracker.decoder = decoder
                reading = True
                body = reader(
                    response,
                    limit=max_event_bytes,
                    max_bytes=max_response_bytes,
                    provider=name,
                    record=record,
                )
                events = body.events()
                if deadline is not None:
                    events = Until(events, deadline, name)
                feed, keep = decoder.feed, record.recent.append
                with translate(name, sending.url, midway=True):
                    async for sse in events:
                        kind = sse.event
                        batch = feed("" if kind == "message" else kind, sse.data)
                        if batch:
                            if stamp is not None and _stamp_start(batch, stamp):
                                stamp = None
                            if first is not None:
                                first.first_event()
                                first = None
                            for event in batch:
                                keep(event)
                                yield event
                point = resume_point_of(decoder)
                if point is not None and not point.complete:
                    raise StreamTruncatedError(
                        f"the stream of {_where(point)} ended before its terminal event",
                        provider=name,
                    )
                tail = decoder.close()
                if stamp is not None and _stamp_start(tail, stamp, end=not record):
                    stamp = None
                for event in tail:
                    keep(event)
                    yield event
                return
            except LLMBridgeError as exc:
                scrub_error(exc, scrub)
                broken = decoder  # what it holds back goes into the partial response
                point = resume_point_of(decoder) if record else None
                if point is None:  # nothing yielded yet: retried as any stream is
                    delay = None if record else retry.delay(attempt=attempt, error=exc)
                    decoder = None
                    if delay is None and resuming is not None:
                        _note(exc, f"while resuming {_where(resuming)}")
                elif reading and not is_break(exc, deadline):
                    delay = None  # the provider's error, a bad stream: not a break
                elif attempt >= retry.max_attempts:
                    delay = None
                    spent = f"all {retry.max_attempts} attempts (max_attempts) spent"
                    if reading:
                        _note(exc, f"{_where(point)} not resumed: {spent}")
                    else:
                        _note(exc, f"while resuming {_where(point)}; {spent}")
                elif reading:
                    delay = retry.backoff(attempt=attempt)  # a break: resume after a wait
                else:  # the resume request itself failed (404, 5xx, a connect error...)
                    delay = retry.delay(attempt=attempt, error=exc)
                    if delay is None:
                        _note(exc, f"while resuming {_where(point)}")
                if delay is not None and deadline is not None:
                    if deadline.passed():
                        delay = None
                    elif anyio.current_time() + delay >= deadline.start():
                        what = "a retry" if point is None else "a resume"
                        late = deadline.error(
                            provider=name, during=f"no time left for {what} after {exc!r}"
                        )
                        raise _attach(late, name, record, broken) from exc
                if delay is None:
                    _attach(exc, name, record, broken)
                    raise
                if point is not None:
                    resuming = point
                    sending = resume(point)
                log.debug(
                    "llmbridge: %s failed (%s); %s %d in %.2fs",
                    name,
                    type(exc).__name__,
                    "retry" if point is None else f"resume of {_where(point)}, attempt",
                    attempt,
                    delay,
                    extra={"retry_error": exc, "retry_delay": delay},
                )
            finally:
                with anyio.CancelScope(shield=True):
                    try:
                        if events is not None:
                            await events.aclose()
                        if body is not None:
                            await body.aclose()
                        if response is not None:
                            await response.aclose()
                    finally:
                        shards.release(shard)
            await sleep(delay)
    except BaseException as exc:  # failed, closed early or cancelled
        ended = exc
        raise
    finally:
        try:
            if cancel is not None and ended is not None and not isinstance(ended, Exception):
                point = resume_point_of(decoder)
                if point is not None and not point.complete:  # the app left before the end
                    await _cancel(http, provider, cancel(point.response_id), timeout)
        finally:
            if observer is not None:
                observer.end(record, ended)


async def _cancel(http: Any, provider: Provider, request: HttpRequest, timeout: Any) -> None:
    """Send ``request`` (a cancel) once, shielded and bounded; log a failure, never raise."""
    with anyio.move_on_after(CANCEL_TIMEOUT, shield=True) as scope:
        try:
            await fetch_json(
                http=http,
                provider=provider,
                request=request,
                retry=RetryPolicy(max_attempts=1),
                timeout=timeout,
            )
        except LLMBridgeError as exc:
            log.warning("llmbridge: cancelling the response failed: %s", exc)
            return
    if scope.cancelled_caught:
        log.warning("llmbridge: cancelling the response took over %gs; given up", CANCEL_TIMEOUT)
