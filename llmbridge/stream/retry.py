"""When and how long to wait before trying a request again.

Rules: only errors whose ``retryable`` is true are retried (429, 5xx, 529/overloaded,
connect failures and timeouts), and only before the first event reached the caller — the
client enforces that part. The provider's ``Retry-After`` wins over the computed backoff; a
``Retry-After`` longer than ``max_retry_after`` is not waited out (the error is raised).
Backoff is exponential with full jitter, bounded by ``max_delay``. A resumable stream
(``resume``) resumes after a break on the same backoff, each resume one of ``max_attempts``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..errors import LLMBridgeError

__all__ = ["RetryPolicy"]


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_attempts: int = 3
    """Total attempts, the first included (1 disables retries)."""
    initial_delay: float = 0.5
    max_delay: float = 8.0
    multiplier: float = 2.0
    jitter: float = 0.5
    """Fraction of the computed delay that is randomised (0 = none, 1 = full jitter)."""
    max_retry_after: float = 60.0

    def delay(
        self, *, attempt: int, error: LLMBridgeError, rng: random.Random | None = None
    ) -> float | None:
        """Seconds to wait before attempt ``attempt + 1``, or ``None`` to give up."""
        if not error.retryable or attempt >= self.max_attempts:
            return None
        retry_after = getattr(error, "retry_after", None)
        if isinstance(retry_after, (int, float)):
            return float(retry_after) if retry_after <= self.max_retry_after else None
        return self.backoff(attempt=attempt, rng=rng)

    def backoff(self, *, attempt: int, rng: random.Random | None = None) -> float:
        """The computed wait after attempt ``attempt`` (no ``Retry-After``, no limit on
        attempts: the caller checks ``max_attempts``)."""
        base = min(self.initial_delay * self.multiplier ** (attempt - 1), self.max_delay)
        spread = base * self.jitter
        return base - spread + (rng or random).random() * spread
