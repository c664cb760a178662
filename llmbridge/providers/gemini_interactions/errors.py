"""The Interactions API's error vocabulary: in-stream ``error`` events → typed errors.

Follows ``google.genai`` Interactions ``ErrorEvent`` / ``Error`` (``{"code", "message"}``, the
code a string such as ``too_many_requests``, as the API's 4xx / 5xx bodies carry it) and, for
servers that answer with Google's RPC statuses (``RESOURCE_EXHAUSTED``, ...), those too. Rules:
an error event has no HTTP status, so its ``code`` alone picks the class (``ERRORS``, any case);
an HTTP error body is classed by its status first, with Gemini's own mapping
(``llmbridge.providers.gemini.map_http_error``), never by the message text.
"""

from __future__ import annotations

from typing import Any

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
from ..http_errors import api_error

__all__ = ["ERRORS", "stream_error"]

_CODES: dict[str, type[APIError]] = {
    "invalid_request": InvalidRequestError,
    "bad_request": InvalidRequestError,
    "invalid_argument": InvalidRequestError,
    "failed_precondition": InvalidRequestError,
    "unauthenticated": AuthenticationError,
    "permission_denied": PermissionDeniedError,
    "not_found": NotFoundError,
    "too_many_requests": RateLimitError,
    "resource_exhausted": RateLimitError,
    "internal": ServerError,
    "internal_error": ServerError,
    "deadline_exceeded": ServerError,
    "unavailable": OverloadedError,
}
ERRORS: dict[str, type[APIError]] = {**_CODES, **{k.upper(): v for k, v in _CODES.items()}}
"""Error codes (the API's lower-case ones, Google's RPC statuses) → the typed error."""


def stream_error(*, provider: str, error: Any) -> APIError:
    """The error raised for an ``error`` event (it has no HTTP status)."""
    return api_error(provider=provider, status=None, error=error, errors=ERRORS)
