"""One credential shared by every request: fetched once, reused while fresh, refreshed once.

Rules:

* ``SharedRefresh.get()`` returns the cached value while ``fresh(value)`` holds; otherwise it
  fetches a new one. Concurrent callers on one event loop share the fetch in flight: a hundred
  requests arriving with an expired token cause one refresh, not a hundred.
* ``get(reject=value)``: the server refused ``value`` (a 401). If someone already replaced it,
  the newer value is returned; else one new fetch is made. The caller retries once, never more.
* A fetch that fails raises in every caller that waited for it (one error, not one fetch per
  waiter); a cancelled fetch makes the next waiter fetch again.
* Blocking work (google-auth, botocore, a sync token provider) runs in a worker thread
  (``anyio.to_thread``), never on the event loop: see ``in_thread``.
* Fetched secrets are remembered (``secrets()``, the last ``KEEP_SECRETS``) so error and
  recording scrubbers can remove them; nothing here shows a value in a repr.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Generic, TypeVar

import anyio
import anyio.to_thread

__all__ = ["KEEP_SECRETS", "SharedRefresh", "in_thread"]

T = TypeVar("T")

KEEP_SECRETS = 16
"""How many past secret values a ``SharedRefresh`` remembers for the scrubbers."""


async def in_thread(fn: Callable[[], T], *, abandon_on_cancel: bool = False) -> T:
    """Run the blocking ``fn`` in a worker thread (the loop keeps running meanwhile).
    ``abandon_on_cancel``: a cancelled wait (a timeout) returns at once, leaving ``fn`` to
    finish in its thread, its result unused."""
    return await anyio.to_thread.run_sync(fn, abandon_on_cancel=abandon_on_cancel)


def _current_loop() -> object:
    """The running event loop (asyncio's, or trio's token): a fetch is shared within one loop
    only (its ``Event`` belongs to it)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:  # not asyncio: trio (anyio's other backend)
        import trio

        return trio.lowlevel.current_trio_token()


class _Flight(Generic[T]):
    __slots__ = ("done", "error", "loop", "value")

    def __init__(self, loop: object) -> None:
        self.loop = loop
        self.done = anyio.Event()
        self.value: T | None = None
        self.error: BaseException | None = None


class SharedRefresh(Generic[T]):
    """A value (token, credentials) from ``fetch``, cached while ``fresh``, one fetch at a time.

    ``secrets(value)`` names the credential strings in a value (for the scrubbers)."""

    def __init__(
        self,
        fetch: Callable[[], Awaitable[T]],
        *,
        fresh: Callable[[T], bool],
        secrets: Callable[[T], Iterable[str]] = lambda _: (),
    ) -> None:
        self._fetch = fetch
        self._fresh = fresh
        self._secrets_of = secrets
        self._value: T | None = None
        self._flight: _Flight[T] | None = None
        self._seen: deque[str] = deque(maxlen=KEEP_SECRETS)
        self.fetches = 0
        """How many fetches were started (tests and debugging read it)."""

    def __repr__(self) -> str:
        return f"SharedRefresh(fetches={self.fetches})"

    def secrets(self) -> set[str]:
        """The secret strings of the values fetched so far (the last ``KEEP_SECRETS``)."""
        return set(self._seen)

    async def get(self, *, reject: T | None = None) -> T:
        """The current value; ``reject``: a value the server refused (it is never returned
        again from the cache: a newer one is, or one new fetch's)."""
        while True:
            value = self._value
            if value is not None and value is not reject and self._fresh(value):
                return value
            loop = _current_loop()
            flight = self._flight
            if flight is not None and flight.loop is loop:
                await flight.done.wait()
                if flight.error is None and flight.value is not None:
                    return flight.value
                if isinstance(flight.error, anyio.get_cancelled_exc_class()):
                    continue  # the fetching task was cancelled: fetch again
                assert flight.error is not None
                raise flight.error
            return await self._lead(loop)

    async def _lead(self, loop: Any) -> T:
        flight: _Flight[T] = _Flight(loop)
        self._flight = flight
        self.fetches += 1
        try:
            value = await self._fetch()
        except BaseException as exc:
            flight.error = exc
            raise
        else:
            self._value = flight.value = value
            for secret in self._secrets_of(value):
                if secret and secret not in self._seen:
                    self._seen.append(secret)
            return value
        finally:
            if self._flight is flight:
                self._flight = None
            flight.done.set()
