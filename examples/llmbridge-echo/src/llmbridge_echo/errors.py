"""The Echo API's error vocabulary: HTTP error bodies and ``error`` events → llmbridge errors.

Rules: both carry ``{"error": {"type", "message"}}``. The HTTP status picks the class and the
``type`` refines it (``ERRORS``); an ``error`` event has no status, so its ``type`` alone
decides. The mechanism (status table, ``Retry-After``, request id) is llmbridge's
``llmbridge.providers.http_errors``; this file only declares the words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from llmbridge.errors import (
    APIError,
    AuthenticationError,
    InvalidRequestError,
    OverloadedError,
    RateLimitError,
    ServerError,
)
from llmbridge.providers.http_errors import api_error, error_from_body

__all__ = ["ERRORS", "map_http_error", "stream_error"]

ERRORS: dict[str, type[APIError]] = {
    "invalid_request_error": InvalidRequestError,
    "authentication_error": AuthenticationError,
    "rate_limit_error": RateLimitError,
    "server_error": ServerError,
    "overloaded_error": OverloadedError,
}


def map_http_error(
    *, provider: str, status: int, headers: Mapping[str, str], body: bytes
) -> APIError:
    return error_from_body(
        provider=provider, status=status, headers=headers, body=body, errors=ERRORS
    )


def stream_error(*, provider: str, error: Any) -> APIError:
    """The error raised for an ``error`` event."""
    return api_error(provider=provider, status=None, error=error, errors=ERRORS)
