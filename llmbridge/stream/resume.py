"""Resumable streams: a response the server keeps (``providers.base.Resumable``) goes on after
its connection breaks, and the app sees every event once.

Rules (docs/long-running.md, "Background mode and resuming"):

* ``Resume`` is a strategy of the one attempt loop (``transport.run_attempts``): what to do on
  a break after events. A background request (``ChatRequest.background``) and
  ``Client.resume`` are read by that loop with one; every other stream without: nothing here
  runs for it, per event or otherwise.
* The IO is the loop's (auth, the call's headers, the status checked before reading, the
  framing's reader with its bounds, secrets scrubbed from errors, the deadline, the partial
  response). One decoder reads every segment of the response, so the app gets one
  ``StreamStart`` and one ``Finish``; one ``Record`` keeps the events, so ``err.partial``
  spans every segment.
* A *break* is, after events were yielded: a connection that drops (``StreamTruncatedError``
  or ``ConnectionError`` from the transport), a read waiting past the idle (read) timeout
  (``TimeoutError``, but never the call's own ``timeout=``), or a body that ends before the
  provider's terminal event. The stream then resumes with ``provider.resume_request(id,
  after=n)``, ``n`` the number of the last event decoded (the decoder's ``resume_point``); the
  decoder drops an event the server sends again. Without a resume point (no response id yet)
  a break is raised as any stream raises it.
* Errors that are no break (the provider's error event, a malformed stream, a bound) are
  raised as they are: the server would send them again. Before any event was yielded, errors
  are retried as any stream's are (the first request again, a fresh decoder).
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
from collections.abc import Callable
from typing import Any

import anyio

from ..errors import CertificateError, LLMBridgeError, StreamTruncatedError, TransportError
from ..providers.base import AnyDecoder, HttpRequest, Provider, ResumePoint, resume_point_of
from .call import CallConfig
from .deadline import Deadline
from .retry import RetryPolicy

__all__ = ["CANCEL_TIMEOUT", "Resume", "is_break"]

log = logging.getLogger("llmbridge")

CANCEL_TIMEOUT = 10.0
"""Seconds the cancel request of ``cancel_on_close`` may take (then it is given up, logged)."""


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


class Resume:
    """How the attempt loop mends a break of a resumable stream (see the module rules).

    ``resume(point)`` builds the request that continues after a break; ``cancel(response_id)``,
    when given, the one ``cancel_on_close`` sends; ``resuming``: where the first request
    starts (``Client.resume``), then where the last resume did."""

    __slots__ = ("cancel", "deadline", "resume", "resuming", "retry")

    def __init__(
        self,
        *,
        resume: Callable[[ResumePoint], HttpRequest],
        retry: RetryPolicy,
        deadline: Deadline | None,
        cancel: Callable[[str], HttpRequest] | None = None,
        resuming: ResumePoint | None = None,
    ) -> None:
        self.resume = resume
        self.cancel = cancel
        self.resuming = resuming
        self.retry = retry
        self.deadline = deadline

    def point(self, decoder: AnyDecoder | None) -> ResumePoint | None:
        return resume_point_of(decoder) if decoder is not None else None

    def check_end(self, decoder: AnyDecoder) -> None:
        """A body that ended before the terminal event is a break."""
        point = resume_point_of(decoder)
        if point is not None and not point.complete:
            raise StreamTruncatedError(
                f"the stream of {_where(point)} ended before its terminal event"
            )

    def failed_start(self, error: LLMBridgeError) -> None:
        """``error`` ended the call before any event: say so when it was a resume request."""
        if self.resuming is not None:
            _note(error, f"while resuming {_where(self.resuming)}")

    def after_break(
        self, error: LLMBridgeError, *, attempt: int, point: ResumePoint, reading: bool
    ) -> float | None:
        """Seconds to wait before resuming after ``point``, or ``None`` to raise ``error``
        (noted with what was tried)."""
        retry = self.retry
        if reading and not is_break(error, self.deadline):
            return None  # the provider's error, a bad stream: not a break
        if attempt >= retry.max_attempts:
            spent = f"all {retry.max_attempts} attempts (max_attempts) spent"
            if reading:
                _note(error, f"{_where(point)} not resumed: {spent}")
            else:
                _note(error, f"while resuming {_where(point)}; {spent}")
            return None
        if reading:
            return retry.backoff(attempt=attempt)  # a break: resume after a wait
        delay = retry.delay(attempt=attempt, error=error)  # the resume request itself failed
        if delay is None:
            _note(error, f"while resuming {_where(point)}")
        return delay

    def request_after(self, point: ResumePoint) -> HttpRequest:
        """The request that resumes after ``point`` (``resuming`` becomes it)."""
        self.resuming = point
        return self.resume(point)

    async def left_early(
        self, decoder: AnyDecoder | None, *, http: Any, provider: Provider, config: CallConfig
    ) -> None:
        """The app left the stream before its end: cancel the response (``cancel_on_close``)."""
        if self.cancel is None:
            return
        point = self.point(decoder)
        if point is not None and not point.complete:
            await _cancel(http, provider, self.cancel(point.response_id), config.timeout)


async def _cancel(http: Any, provider: Provider, request: HttpRequest, timeout: Any) -> None:
    """Send ``request`` (a cancel) once, shielded and bounded; log a failure, never raise."""
    from .fetch import fetch_json

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
