"""Generic HTTP response headers: the request id and ``Retry-After``.

Rules: no provider's words and nothing of llmbridge imported (a leaf on the ground floor, below
both IO and the providers, which never import each other's modules but the provider protocol):
the transport (``llmbridge.stream``) reads the request id of every response here, and
``llmbridge.providers.http_errors`` the request id and the wait of an error response. The request id comes from the first of the usual headers that
is set; ``Retry-After`` is read in seconds or as an HTTP date, ``retry-after-ms`` first, never
negative, never infinite.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Mapping

__all__ = ["parse_retry_after", "request_id_from"]

_REQUEST_ID_HEADERS = (
    "x-request-id",
    "request-id",
    "apim-request-id",
    "x-amzn-requestid",
    "cf-ray",
)


def request_id_from(headers: Mapping[str, str]) -> str | None:
    for name in _REQUEST_ID_HEADERS:
        value = headers.get(name)
        if value:
            return value
    return None


def _finite(value: str) -> float | None:
    """``float(value)`` when it is a finite number (``inf`` / ``nan`` are not waits)."""
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``Retry-After`` (seconds or HTTP date)."""
    value = headers.get("retry-after-ms")
    if value:
        millis = _finite(value)
        if millis is not None:
            return max(millis / 1000.0, 0.0)
    value = headers.get("retry-after")
    if not value:
        return None
    seconds = _finite(value)
    if seconds is not None:
        return max(seconds, 0.0)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)
