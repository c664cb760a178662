"""Timeouts that measure the server, not the person: a connect or request deadline stops while
an OAuth flow waits for the user to approve in a browser.

Rules: ``pausable(scope)`` (around ``initialize`` and each request) registers a deadline in a
context variable; ``person_waiting()`` (around the app's ``authorize`` hook) lifts every
registered deadline and, when the person is done, puts each back moved by the time waited.
The OAuth flow runs in the transport's tasks, yet sees the variable: the ``mcp`` package runs
each outgoing message in its sender's context.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from collections.abc import Iterator

import anyio

__all__ = ["pausable", "person_waiting"]


_DEADLINES: contextvars.ContextVar[tuple[anyio.CancelScope, ...]] = contextvars.ContextVar(
    "llmbridge_mcp_deadlines", default=()
)


@contextlib.contextmanager
def pausable(scope: anyio.CancelScope) -> Iterator[None]:
    """Let ``person_waiting`` stop ``scope``'s deadline (a connect or request timeout) while
    code it runs (the OAuth flow, in the transport's tasks: the SDK runs each message in its
    sender's context) waits for the user."""
    token = _DEADLINES.set((*_DEADLINES.get(), scope))
    try:
        yield
    finally:
        _DEADLINES.reset(token)


@contextlib.contextmanager
def person_waiting() -> Iterator[None]:
    scopes = _DEADLINES.get()
    saved = [(s, s.deadline) for s in scopes]
    start = anyio.current_time()
    for scope in scopes:
        scope.deadline = math.inf
    try:
        yield
    finally:
        waited = anyio.current_time() - start
        for scope, deadline in saved:
            scope.deadline = deadline + waited
