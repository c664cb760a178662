"""Running the async client's work from a blocking thread, through an anyio portal.

Rules: ``call_in_portal`` runs ``await work()`` in the portal's loop with this thread blocked;
an exception in this thread while it waits (``KeyboardInterrupt``) cancels that work first and
waits for it to end. ``next_in_portal`` is one ``__anext__``; ``iter_in_portal`` an async
iterator as a plain one, closed in the portal when left early.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import anyio
from anyio.from_thread import BlockingPortal

__all__ = ["call_in_portal", "iter_in_portal", "next_in_portal"]


async def _step(work: Callable[[], Awaitable[Any]], scopes: list[anyio.CancelScope]) -> Any:
    """``await work()`` inside a cancel scope the calling thread can cancel (Ctrl-C)."""
    with anyio.CancelScope() as scope:
        scopes.append(scope)
        return await work()
    return None  # cancelled: the calling thread is already raising its own exception


def _cancel(scopes: list[anyio.CancelScope]) -> None:
    for scope in scopes:
        scope.cancel()


def call_in_portal(portal: BlockingPortal, work: Callable[[], Awaitable[Any]]) -> Any:
    """``await work()`` run in the portal, this thread blocked on it. An exception in this
    thread while it waits (``KeyboardInterrupt``) cancels that work first and waits for it to
    end, so nothing (a ``Retry-After`` wait, a backoff sleep, a read) outlives the call and
    ``close()`` does not wait for it."""
    scopes: list[anyio.CancelScope] = []
    future = portal.start_task_soon(_step, work, scopes)
    try:
        return future.result()
    except BaseException:
        if not future.done():
            try:
                portal.call(_cancel, scopes)
                concurrent.futures.wait([future], timeout=30)
            except RuntimeError:  # the portal itself is gone: nothing left to cancel
                pass
        raise


def next_in_portal(portal: BlockingPortal, events: AsyncIterator[Any]) -> Any:
    """``events.__anext__()`` run in the portal, cancelled first if this thread is interrupted
    (so the stream can be closed after it)."""
    return call_in_portal(portal, events.__anext__)


def iter_in_portal(portal: BlockingPortal, items: AsyncIterator[Any]) -> Iterator[Any]:
    """``items`` as a plain iterator; leaving it early closes ``items`` in the portal."""
    try:
        while True:
            try:
                yield next_in_portal(portal, items)
            except StopAsyncIteration:
                return
    finally:
        close = getattr(items, "aclose", None)
        if close is not None:
            portal.call(close)
