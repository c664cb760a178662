"""A failed attempt of the one attempt loop (``transport.run_attempts``): what comes next.

Rules: before any event was yielded, the retry policy decides (``RetryPolicy.delay``,
``Retry-After`` honoured, ``max_attempts``); after events, the loop's ``BreakStrategy`` (a
resumable stream's ``resume.Resume``) decides whether the break is mended, else the error is
raised. A wait that would end past the call's deadline is not waited for: ``TimeoutError`` at
once. Whatever is raised carries its provider and the partial response (``attach``: with what
the decoder still held back). Each retry is logged on the ``llmbridge`` logger (the CLI's retry
notes read those records).
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

import anyio

from ..errors import LLMBridgeError
from ..providers.base import AnyDecoder, HttpRequest, Provider, ResumePoint, held_of
from .call import CallConfig
from .record import Record
from .retry import RetryPolicy

__all__ = ["BreakStrategy", "after_error", "attach"]

log = logging.getLogger("llmbridge")


class BreakStrategy(Protocol):
    """What the loop asks a strategy that mends breaks after events (``resume.Resume``)."""

    @property
    def resuming(self) -> ResumePoint | None:
        """Where the request being sent resumes (``None``: the first request)."""
        ...

    def point(self, decoder: AnyDecoder | None) -> ResumePoint | None: ...

    def check_end(self, decoder: AnyDecoder) -> None:
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
        self, decoder: AnyDecoder | None, *, http: Any, provider: Provider, config: CallConfig
    ) -> None:
        """The app left before the end (cancel the response, if asked)."""
        ...


def attach(
    error: LLMBridgeError, provider: str, record: Record, decoder: AnyDecoder | None = None
) -> LLMBridgeError:
    """``error`` with its provider and the partial response (with what ``decoder`` still held
    back: ``providers.base.held_of``)."""
    if error.provider is None:
        error.provider = provider
    if error.partial is None and record:
        record.recent.extend(held_of(decoder))
        error.partial = record.response()
    return error


def after_error(
    exc: LLMBridgeError,
    attempt: int,
    record: Record,
    decoder: AnyDecoder | None,
    sending: HttpRequest,
    config: CallConfig,
    name: str,
    resume: BreakStrategy | None,
    reading: bool,
) -> tuple[AnyDecoder | None, HttpRequest, float]:
    """After a failed attempt: the decoder to go on with (none: start over), the request to send
    next (a resume's after a break) and the wait before it; or ``exc`` raised (``_wait``)."""
    point = resume.point(decoder) if resume is not None and record else None
    delay = _wait(exc, attempt, record, decoder, config, name, resume, point, reading)
    if point is None:  # nothing yielded yet: tried again as any request is, from the start
        return None, sending, delay
    assert resume is not None
    return decoder, resume.request_after(point), delay


def _wait(
    exc: LLMBridgeError,
    attempt: int,
    record: Record,
    broken: AnyDecoder | None,
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
