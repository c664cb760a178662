"""One call's configuration, built once, and what its stream tells the ``EventStream`` reading it.

Rules:

* ``CallConfig`` is frozen and made once per call (``Client`` keeps one with its defaults and
  replaces the call's own settings in it: ``llmbridge.call_settings.CallSettings.config``):
  the HTTP pool, the retry policy, httpx's per-request ``timeout``, the call's ``deadline``,
  its ``headers``, the three bounds, telemetry and ``cancel_on_close``. The defaults live here
  and nowhere else; the attempt loop (``transport.run_attempts``) reads everything from it.
* ``StreamState`` is the one mutable thing a stream shares with its ``EventStream``: the
  provider answering (a fallback chain moves it on), the ``Record`` of what the stream yielded
  (``complete()`` and a ``run()`` turn read their response from it: the one fold) and, for a
  resumable stream, the decoder that knows where it stands (``resume_point``). The loop sets
  them once per attempt, never per event.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import anyio

from .bounded import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_RESPONSE_BYTES
from .deadline import Deadline
from .record import DEFAULT_MAX_EVENTS, Record
from .retry import RetryPolicy
from .sending import Sleep

if TYPE_CHECKING:
    from ..providers.base import AnyDecoder, Provider, ResumePoint

__all__ = ["CallConfig", "StreamState"]

_NO_HEADERS: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class CallConfig:
    """How every request of one call is sent (see the module rules)."""

    http: Any = None
    """An ``HttpPool`` or any ``httpx.AsyncClient``-like client."""
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    timeout: Any = None
    """httpx's timeouts for each request (``None``: the HTTP client's own)."""
    deadline: Deadline | None = None
    """The call's total budget (``timeout=``), shared by its retries, models and turns."""
    headers: Mapping[str, str] = field(default_factory=lambda: _NO_HEADERS)
    """The call's own ``headers=``, put on top of the provider's."""
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    max_events: int = DEFAULT_MAX_EVENTS
    telemetry: Any = None
    """The client's ``llmbridge.telemetry.Telemetry`` (``None``: off); typed loosely, as IO
    sits below telemetry."""
    cancel_on_close: bool = False
    sleep: Sleep = anyio.sleep
    """How a retry waits (tests record it)."""


class StreamState:
    """What a stream tells the ``EventStream`` that reads it (see the module rules)."""

    __slots__ = ("decoder", "link", "provider", "record", "resumable")

    def __init__(self, provider: Provider, *, resumable: bool = False) -> None:
        self.provider = provider
        self.link = 0
        """Which model of a fallback chain answers (its index in the chain's list)."""
        self.record: Record | None = None
        self.decoder: AnyDecoder | None = None
        self.resumable = resumable

    def resume_point(self) -> ResumePoint | None:
        from ..providers.base import resume_point_of

        if not self.resumable or self.decoder is None:
            return None
        return resume_point_of(self.decoder)
