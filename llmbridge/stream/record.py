"""What one response's stream keeps of its events: for ``err.partial`` and telemetry, bounded.

Rules (issue 34, item 3):

* The stream loop appends each event it yields to ``recent`` (a plain list: its ``append`` is
  all the hot loop pays). The reader (``bounded.BoundedBody``) asks ``due()`` once per piece of
  body and calls ``fold()`` once ``FOLD_EVERY`` events wait: they are folded into an
  ``Accumulator`` (text and reasoning joined into strings, tool calls and items kept, as the
  response holds them) and dropped. So memory follows the content, not the number of events
  (8.1 million one-character deltas were 1,079 MB as event objects), and a response of fewer
  than ``FOLD_EVERY`` events never folds before it ends.
* ``max_events`` (``DEFAULT_MAX_EVENTS``) bounds the events of one response: past it ``fold()``
  raises ``MalformedStreamError`` (checked when the record folds: within ``FOLD_EVERY`` events
  plus one piece's).
* ``response()`` folds what waits and gives the response so far (never raising for the bound);
  a decoder that broke an event invariant leaves the response as it was before that event, as
  the partial response always did. ``start`` (the first ``StreamStart``) and ``last`` (the last
  event) are kept for telemetry.
* ``result()`` is the response of a stream that ended: what ``complete()`` and a ``run()`` turn
  return (``client.event_stream.EventStream.response``), the one fold of its events; an
  invariant a decoder broke is raised there (``EventOrderError``), as folding it again would.
"""

from __future__ import annotations

from ..errors import LLMBridgeError, MalformedStreamError
from ..events import StreamEvent, StreamStart
from ..messages import ChatResponse
from ..response import Accumulator

__all__ = ["DEFAULT_MAX_EVENTS", "FOLD_EVERY", "Record"]

DEFAULT_MAX_EVENTS = 1_000_000
FOLD_EVERY = 4096


class Record:
    """The events of one response so far, folded as they come (see module rules)."""

    __slots__ = ("_acc", "_broken", "count", "last", "max_events", "provider", "recent", "start")

    _broken: LLMBridgeError | None

    def __init__(self, *, provider: str, max_events: int = DEFAULT_MAX_EVENTS) -> None:
        self.provider = provider
        self.max_events = max_events
        self.recent: list[StreamEvent] = []
        """Events kept since the last fold (the stream loop appends to it)."""
        self.count = 0
        """Events folded so far."""
        self.start: StreamStart | None = None
        self.last: StreamEvent | None = None
        self._acc = Accumulator(provider=provider)
        self._broken = None

    def __bool__(self) -> bool:
        """Whether any event was kept (after one, nothing is retried)."""
        return self.count > 0 or bool(self.recent)

    def __len__(self) -> int:
        return self.count + len(self.recent)

    def ends(self) -> tuple[StreamStart | None, StreamEvent | None]:
        """The first ``StreamStart`` and the last event, without folding."""
        recent = self.recent
        start = self.start
        if start is None:
            start = next((e for e in recent if isinstance(e, StreamStart)), None)
        return start, recent[-1] if recent else self.last

    def due(self) -> bool:
        return len(self.recent) >= FOLD_EVERY

    def fold(self) -> None:
        """Fold the waiting events; ``MalformedStreamError`` past ``max_events``."""
        self._fold()
        if self.count > self.max_events:
            raise MalformedStreamError(
                f"more than {self.max_events:,} events in one response (max_events)",
                provider=self.provider,
            )

    def _fold(self) -> None:
        recent = self.recent
        if not recent:
            return
        self.count += len(recent)
        self.last = recent[-1]
        if self.start is None:
            self.start = next((e for e in recent if isinstance(e, StreamStart)), None)
        if self._broken is None:
            add = self._acc.add
            try:
                for event in recent:
                    add(event)
            except LLMBridgeError as exc:  # a decoder broke an invariant: keep what came before
                self._broken = exc
            self._acc.compact()
        recent.clear()

    def response(self) -> ChatResponse:
        """The response so far."""
        self._fold()
        return self._acc.response()

    def result(self) -> ChatResponse:
        """The response of the stream that ended (module rules)."""
        self._fold()
        if self._broken is not None:
            raise self._broken
        return self._acc.response()
