"""The one place a stream's ``StreamStart`` is stamped: what the call knows before the first
event (the prepared call's warnings, a fallback chain's word) and what the response head says
(request id, rate limits).

Rules:

* ``stamp_of`` is made once per response, when its head is read (``transport.run_attempts``);
  ``None`` when there is nothing to say (then nothing runs per batch).
* ``stamp_batch`` stamps the ``StreamStart`` of a decoder's batch: ``warnings`` are the chain's
  notes first, then ``Prepared.warnings``, then those the decoder put there; ``provider`` is the
  chain's answering provider; ``request_id`` and ``rate_limit`` those of the head.
* A batch without a ``StreamStart``: when there are warnings or a chain's word to say, a
  ``StreamStart`` of its own goes in front of the first events (or alone, at the end of a
  stream that had none); with only the head's request id and limits, the later batches are
  searched (a decoder may send its start late) and nothing is made.
* Never per event: the loop stops asking once the stamp is given.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..events import RateLimit, StreamEvent, StreamStart
from ..http_headers import request_id_from
from ..providers.prepared import Prepared

__all__ = ["Stamp", "StartNote", "stamp_batch", "stamp_of"]


@dataclass(frozen=True, slots=True)
class StartNote:
    """What a fallback chain says on its answering model's ``StreamStart``
    (``llmbridge.client.model_chain``): the provider answering, and which models failed."""

    provider: str
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Stamp:
    """What one response's ``StreamStart`` is given (see the module rules)."""

    warnings: tuple[str, ...]
    provider: str | None
    request_id: str | None
    rate_limit: RateLimit | None

    @property
    def makes(self) -> bool:
        """Whether a ``StreamStart`` is made when the stream sends none."""
        return bool(self.warnings) or self.provider is not None


def stamp_of(
    prepared: Prepared, note: StartNote | None, headers: Mapping[str, str]
) -> Stamp | None:
    """The stamp of a response whose head is ``headers`` (``None``: nothing to stamp)."""
    read = prepared.read_rate_limit
    limit = read(headers) if read is not None else None
    request_id = request_id_from(headers)
    warnings = prepared.warnings if note is None else (*note.warnings, *prepared.warnings)
    provider = None if note is None else note.provider
    if not warnings and provider is None and request_id is None and limit is None:
        return None
    return Stamp(warnings, provider, request_id, limit)


def stamp_batch(
    batch: list[StreamEvent], stamp: Stamp, *, last: bool = False
) -> tuple[list[StreamEvent], bool]:
    """``batch`` with its ``StreamStart`` stamped (or one made, module rules), and whether the
    stamp was given. ``last``: the stream's final batch (``close()``)."""
    for event in batch:
        if event.__class__ is StreamStart:
            _give(event, stamp)
            return batch, True
    if stamp.makes and (batch or last):
        start = StreamStart()
        _give(start, stamp)
        return [start, *batch], True
    return batch, False


def _give(start: StreamStart, stamp: Stamp) -> None:
    if stamp.warnings:
        start.warnings = [*stamp.warnings, *start.warnings]
    if stamp.provider is not None:
        start.provider = stamp.provider
    if stamp.request_id is not None or stamp.rate_limit is not None:
        start.request_id, start.rate_limit = stamp.request_id, stamp.rate_limit
