"""Anthropic's error vocabulary: HTTP error responses and ``error`` events → typed errors.

Follows https://platform.claude.com/docs/en/api/errors: the body (and an in-stream ``error``
event) is ``{"type": "error", "error": {"type": "...", "message": "..."}, "request_id": "..."}``;
529 is ``overloaded_error``. The class comes from the status, refined by the error type
(``ERRORS``, through ``llmbridge.providers.http_errors``); the request id comes from the
``request-id`` header, else the body.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from ...errors import (
    APIError,
    AuthenticationError,
    InvalidRequestError,
    NotFoundError,
    OverloadedError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
)
from ..http_errors import api_error, error_from_body

__all__ = ["ERRORS", "map_http_error", "stream_error"]

ERRORS: dict[str, type[APIError]] = {
    "invalid_request_error": InvalidRequestError,
    "authentication_error": AuthenticationError,
    "permission_error": PermissionDeniedError,
    "not_found_error": NotFoundError,
    "request_too_large": InvalidRequestError,
    "rate_limit_error": RateLimitError,
    "api_error": ServerError,
    "overloaded_error": OverloadedError,
}


def map_http_error(
    *, provider: str, status: int, headers: Mapping[str, str], body: bytes
) -> APIError:
    error = error_from_body(
        provider=provider, status=status, headers=headers, body=body, errors=ERRORS
    )
    if error.request_id is None:
        try:
            parsed = orjson.loads(body) if body else None
        except orjson.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict) and isinstance(parsed.get("request_id"), str):
            error.request_id = parsed["request_id"]
    return error


def stream_error(*, provider: str, error: Any, fallback: str | None = None) -> APIError:
    """The error raised for an in-stream ``error`` event (it has no HTTP status)."""
    return api_error(
        provider=provider, status=None, error=error, errors=ERRORS, fallback_message=fallback
    )
