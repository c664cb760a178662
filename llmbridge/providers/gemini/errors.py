"""Gemini / Vertex error vocabulary: HTTP error bodies and in-stream errors → typed errors.

Follows https://ai.google.dev/gemini-api/docs/troubleshooting and Google's ``google.rpc.Status``
shape: ``{"error": {"code", "message", "status", "details": [{"@type": "...ErrorInfo",
"reason": ...}]}}``. Rules: the HTTP status (then ``error.status``, through ``ERRORS``) picks
the class; the documented ``ErrorInfo.reason`` codes refine it (a bad key is answered with
400 ``INVALID_ARGUMENT`` + ``API_KEY_INVALID``), never the message text.
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

__all__ = ["ERRORS", "REASON_ERRORS", "map_http_error", "stream_error"]

ERRORS: dict[str, type[APIError]] = {
    "INVALID_ARGUMENT": InvalidRequestError,
    "FAILED_PRECONDITION": InvalidRequestError,
    "PERMISSION_DENIED": PermissionDeniedError,
    "UNAUTHENTICATED": AuthenticationError,
    "NOT_FOUND": NotFoundError,
    "RESOURCE_EXHAUSTED": RateLimitError,
    "INTERNAL": ServerError,
    "UNAVAILABLE": OverloadedError,
    "DEADLINE_EXCEEDED": ServerError,
}

REASON_ERRORS: dict[str, type[APIError]] = {
    "API_KEY_INVALID": AuthenticationError,
    "API_KEY_EXPIRED": AuthenticationError,
    "ACCESS_TOKEN_EXPIRED": AuthenticationError,
    "API_KEY_SERVICE_BLOCKED": PermissionDeniedError,
    "SERVICE_DISABLED": PermissionDeniedError,
}


def _reasons(body: bytes) -> list[str]:
    try:
        parsed: Any = orjson.loads(body)
    except orjson.JSONDecodeError:
        return []
    if isinstance(parsed, list) and parsed:
        parsed = parsed[0]
    error = parsed.get("error") if isinstance(parsed, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    if not isinstance(details, list):
        return []
    return [
        d["reason"] for d in details if isinstance(d, dict) and isinstance(d.get("reason"), str)
    ]


def map_http_error(
    *, provider: str, status: int, headers: Mapping[str, str], body: bytes
) -> APIError:
    err = error_from_body(
        provider=provider, status=status, headers=headers, body=body, errors=ERRORS
    )
    for reason in _reasons(body) if body else []:
        cls = REASON_ERRORS.get(reason)
        if cls is not None and not isinstance(err, cls):
            refined = cls(
                err.message,
                provider=err.provider,
                status=err.status,
                request_id=err.request_id,
                provider_message=err.provider_message,
                error_type=reason,
                body=err.body,
            )
            return refined
    return err


def stream_error(*, provider: str, error: Any, fallback: str | None = None) -> APIError:
    """The error raised for an error object inside the stream (it has no HTTP status)."""
    return api_error(
        provider=provider, status=None, error=error, errors=ERRORS, fallback_message=fallback
    )
