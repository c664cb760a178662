"""Per-call settings of ``stream`` / ``complete`` / ``run`` that shape the HTTP call, not the
request body: ``headers=`` and the retry settings (``retry=`` a ``RetryPolicy``, or
``max_attempts=`` for just that number).

Rules: these never reach the ``ChatRequest`` (an encoder never sees them, and they are not part
of a recorded fixture's request). ``headers`` are added to the provider's request last, so they
win over the provider's own, for this call only (auth headers included: a per-call key); they
are scrubbed from errors like the provider's credentials. ``max_attempts`` overrides the
client's (or ``retry=``'s) attempts; ``1`` means no retry. The per-call ``timeout`` lives with
the transport's deadline, not here. ``cancel_on_close=True`` stops a background response on
the server when its stream is left early (``llmbridge.stream.resume``). ``CallSettings.applied``
puts them into the call's one ``stream.call.CallConfig`` (made once per call by the client).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import UsageError
from .stream import RetryPolicy
from .stream.call import CallConfig

__all__ = ["CALL_OPTIONS", "CallSettings", "pop_call_settings"]

CALL_OPTIONS = frozenset({"headers", "retry", "max_attempts", "cancel_on_close"})
"""The options of a call that are HTTP settings (never sent in the body)."""


@dataclass(frozen=True, slots=True)
class CallSettings:
    headers: Mapping[str, str] = field(default_factory=dict)
    retry: RetryPolicy | None = None
    max_attempts: int | None = None
    cancel_on_close: bool = False

    def policy(self, default: RetryPolicy) -> RetryPolicy:
        """The retry policy of this call, given the client's."""
        policy = self.retry or default
        if self.max_attempts is not None:
            policy = dataclasses.replace(policy, max_attempts=self.max_attempts)
        return policy

    def applied(self, config: CallConfig) -> CallConfig:
        """``config`` (the client's, with the call's deadline) with this call's settings."""
        return dataclasses.replace(
            config,
            retry=self.policy(config.retry),
            headers=self.headers,
            cancel_on_close=self.cancel_on_close,
        )


def pop_call_settings(options: dict[str, Any]) -> CallSettings | None:
    """Take the HTTP settings out of ``options`` (``None`` when there are none)."""
    if not options.keys() & CALL_OPTIONS:
        return None
    headers = options.pop("headers", None) or {}
    retry = options.pop("retry", None)
    attempts = options.pop("max_attempts", None)
    cancel = options.pop("cancel_on_close", False)
    if not isinstance(headers, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
    ):
        raise UsageError(f"headers= takes a dict of str to str, not {headers!r}")
    if retry is not None and not isinstance(retry, RetryPolicy):
        raise UsageError(f"retry= takes an lb.RetryPolicy, not {retry!r}")
    if attempts is not None and (
        isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1
    ):
        raise UsageError(f"max_attempts= takes an int of at least 1, not {attempts!r}")
    if not isinstance(cancel, bool):
        raise UsageError(f"cancel_on_close= takes True or False, not {cancel!r}")
    return CallSettings(
        headers=dict(headers), retry=retry, max_attempts=attempts, cancel_on_close=cancel
    )
