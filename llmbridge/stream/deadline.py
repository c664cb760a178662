"""The total time budget of one call: ``timeout=`` on ``stream``, ``complete`` and ``run``.

Rules:

* A ``Deadline`` starts on first use (the first request is about to go out, not when the
  stream object was made) and is shared by everything the call does: its retries and their
  waits, a fallback chain's models, a tool loop's turns. It ends the call with
  ``TimeoutError`` (llmbridge's, also the builtin one), with the partial response when events
  had arrived; it is never retried.
* It is kept with anyio cancel scopes (``CancelScope(deadline=...)``), so it holds on every
  loop (asyncio, uvloop, trio) and through any await: connecting, waiting for the status,
  reading an error body, each read of the body. A scope never spans a ``yield``:
  ``Until`` wraps the body's event iterator step by step (only when a deadline is set: the
  hot loop costs nothing more without one).
* A retry whose wait would end after the deadline is not waited for: the call ends at once
  with ``TimeoutError`` from the error that would have been retried.
* The idle timeout (httpx's ``read``) still bounds the silence between two chunks; the
  deadline bounds the whole, so a server trickling a byte every 100 ms cannot hold a stream
  open forever.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Awaitable
from typing import Any, TypeVar

import anyio

from ..errors import TimeoutError, UsageError

__all__ = ["Deadline", "Until", "within"]

T = TypeVar("T")


class Deadline:
    """``seconds`` for the whole call, from its first request (see the module rules)."""

    __slots__ = ("at", "label", "seconds")

    def __init__(self, seconds: float, *, label: str = "its timeout") -> None:
        if (
            isinstance(seconds, bool)
            or not isinstance(seconds, int | float)
            or not math.isfinite(seconds)
            or seconds <= 0
        ):
            raise UsageError(
                f"timeout is the call's total time in seconds (a number > 0) or None, "
                f"not {seconds!r}"
            )
        self.seconds = float(seconds)
        self.at: float | None = None
        self.label = label
        """What the error calls this budget ("its timeout"; a chain's ``model_timeout``)."""

    def part(self, seconds: float, *, label: str) -> Deadline:
        """A budget of ``seconds`` from now within this one (it ends by this one's end)."""
        part = Deadline(seconds, label=label)
        part.at = min(anyio.current_time() + part.seconds, self.start())
        return part

    @classmethod
    def of(cls, timeout: Any) -> Deadline | None:
        """The deadline ``timeout=`` asks for: ``None`` (none), seconds, or one already made
        (shared: a tool loop hands its own to every turn)."""
        if timeout is None or isinstance(timeout, Deadline):
            return timeout
        return cls(timeout)

    def start(self) -> float:
        """The loop time the call must end by (fixed at the first call)."""
        if self.at is None:
            self.at = anyio.current_time() + self.seconds
        return self.at

    def passed(self) -> bool:
        return self.at is not None and anyio.current_time() >= self.at

    def error(self, *, provider: str, during: str) -> TimeoutError:
        return TimeoutError(
            f"the call did not finish within {self.label} of {self.seconds:g} s ({during})",
            provider=provider,
        )

    def __repr__(self) -> str:
        return f"Deadline({self.seconds:g})"


async def within(deadline: Deadline, work: Awaitable[T], *, provider: str, during: str) -> T:
    """``await work`` inside the deadline; ``TimeoutError`` once it passes."""
    with anyio.CancelScope(deadline=deadline.start()):
        return await work
    raise deadline.error(provider=provider, during=during)


class Until:
    """``events`` (an async iterator) read step by step within ``deadline``."""

    __slots__ = ("_deadline", "_events", "_provider")

    def __init__(self, events: AsyncIterator[Any], deadline: Deadline, provider: str) -> None:
        self._events = events
        self._deadline = deadline
        self._provider = provider

    def __aiter__(self) -> Until:
        return self

    async def __anext__(self) -> Any:
        deadline = self._deadline
        if deadline.passed():  # events already buffered would come without a checkpoint
            raise deadline.error(provider=self._provider, during="reading the stream")
        with anyio.CancelScope(deadline=deadline.start()):
            return await self._events.__anext__()
        raise deadline.error(provider=self._provider, during="reading the stream")

    async def aclose(self) -> None:
        await self._events.aclose()  # type: ignore[attr-defined]
