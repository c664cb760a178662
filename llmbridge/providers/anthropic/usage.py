"""Anthropic usage reports → one ``Usage`` under the project convention.

Follows the ``usage`` objects of ``message_start`` and ``message_delta``
(https://platform.claude.com/docs/en/build-with-claude/streaming). Rules:

* Every report is a cumulative snapshot: a field present (and not null) replaces the earlier
  value, a field absent keeps it (``message_delta`` may repeat input / cache counts, or not).
* ``input_tokens`` = ``input_tokens`` + ``cache_read_input_tokens`` +
  ``cache_creation_input_tokens``; ``cached_input_tokens`` = cache reads;
  ``cache_write_tokens`` = cache writes; ``output_tokens`` from the last report;
  ``reasoning_tokens`` = ``output_tokens_details.thinking_tokens`` when given.
* Server-side compaction (``compaction.py``): the ``compaction`` entries of
  ``usage.iterations`` (separate model calls the top-level counts leave out) are added to the
  last snapshot, from the last report that lists them.
* Separate messages in one body (a proxy concatenating streams) are separate bills: their
  final snapshots are added.
* ``read_rate_limit`` reads the ``anthropic-ratelimit-*`` response headers.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ...events import RateLimit, Usage
from .compaction import compaction_usage

__all__ = ["UsageSnapshot", "read_rate_limit"]

_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


class UsageSnapshot:
    """The merged raw counts of one message."""

    __slots__ = ("compaction", "counts", "seen", "thinking_tokens")

    def __init__(self) -> None:
        self.counts = dict.fromkeys(_FIELDS, 0)
        self.thinking_tokens = 0
        self.seen = False
        self.compaction = (0, 0, 0, 0)  # compaction iterations: in, out, cache reads, writes

    def merge(self, report: Any) -> None:
        if not isinstance(report, dict):
            return
        counts = self.counts
        for name in _FIELDS:
            value = report.get(name)
            if isinstance(value, int):
                counts[name] = value
                self.seen = True
        iterations = report.get("iterations")
        if isinstance(iterations, list):  # the whole list again: replaces, never adds
            self.compaction = compaction_usage(iterations)
        details = report.get("output_tokens_details")
        if isinstance(details, dict) and isinstance(details.get("thinking_tokens"), int):
            self.thinking_tokens = details["thinking_tokens"]

    def usage(self) -> Usage:
        c = self.counts
        read, write = c["cache_read_input_tokens"], c["cache_creation_input_tokens"]
        more_in, more_out, more_read, more_write = self.compaction
        return Usage(
            input_tokens=c["input_tokens"] + read + write + more_in,
            output_tokens=c["output_tokens"] + more_out,
            cached_input_tokens=read + more_read,
            cache_write_tokens=write + more_write,
            reasoning_tokens=self.thinking_tokens,
        )


_PREFIX = "anthropic-ratelimit-"


def _count(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _until(value: str | None, now: float) -> float | None:
    """An RFC 3339 reset time → seconds from ``now`` (never negative)."""
    if not value:
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return max(when.timestamp() - now, 0.0)


def read_rate_limit(headers: Mapping[str, str], *, now: float | None = None) -> RateLimit | None:
    """The ``anthropic-ratelimit-*`` response headers (resets are RFC 3339 times)."""
    raw = {k.lower(): v for k, v in headers.items() if k.lower().startswith(_PREFIX)}
    if not raw:
        return None
    now = time.time() if now is None else now
    return RateLimit(
        requests_remaining=_count(raw.get(f"{_PREFIX}requests-remaining")),
        tokens_remaining=_count(raw.get(f"{_PREFIX}tokens-remaining")),
        requests_reset=_until(raw.get(f"{_PREFIX}requests-reset"), now),
        tokens_reset=_until(raw.get(f"{_PREFIX}tokens-reset"), now),
        raw=raw,
    )
