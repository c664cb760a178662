"""HTTP status and error bodies → the typed error tree (one table, no message sniffing).

Rules: the class comes from the status (``STATUS_ERRORS``) or, for in-stream error events
that have no status, from the provider's error type (``TYPE_ERRORS``). Providers refine with
their documented error *codes* (e.g. ``context_length_exceeded``), never by searching text.
``Retry-After`` is read in seconds or as an HTTP date.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Mapping
from typing import Any

import orjson

from ..errors import (
    APIError,
    AuthenticationError,
    ContextLengthError,
    InvalidRequestError,
    NotFoundError,
    OverloadedError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
)

__all__ = [
    "CONTEXT_LENGTH_CODES",
    "STATUS_ERRORS",
    "TYPE_ERRORS",
    "api_error",
    "embedded_status",
    "error_from_body",
    "parse_retry_after",
    "request_id_from",
]

STATUS_ERRORS: dict[int, type[APIError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: InvalidRequestError,
    413: InvalidRequestError,
    422: InvalidRequestError,
    429: RateLimitError,
    529: OverloadedError,
}

TYPE_ERRORS: dict[str, type[APIError]] = {
    # Anthropic error types
    "invalid_request_error": InvalidRequestError,
    "authentication_error": AuthenticationError,
    "permission_error": PermissionDeniedError,
    "not_found_error": NotFoundError,
    "request_too_large": InvalidRequestError,
    "rate_limit_error": RateLimitError,
    "api_error": ServerError,
    "overloaded_error": OverloadedError,
    # OpenAI / Google codes and statuses
    "rate_limit_exceeded": RateLimitError,
    "insufficient_quota": RateLimitError,
    "server_error": ServerError,
    "context_length_exceeded": ContextLengthError,
    "invalid_api_key": AuthenticationError,
    "invalid_prompt": InvalidRequestError,
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

CONTEXT_LENGTH_CODES = frozenset(
    {
        "context_length_exceeded",
        "string_above_max_length",
        "exceed_context_size_error",  # llama.cpp's llama-server
    }
)

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


def _describe(error: Any) -> tuple[str | None, str | None]:
    """(message, type-or-code) of a provider error object, whatever its dialect."""
    if isinstance(error, str):
        return error, None
    if not isinstance(error, dict):
        return None, None
    inner = error.get("error", error)
    if isinstance(inner, str):
        return inner, error.get("type") if isinstance(error.get("type"), str) else None
    if not isinstance(inner, dict):
        return None, None
    message = inner.get("message")
    kind = None
    for key in ("code", "type", "status"):
        value = inner.get(key)
        if isinstance(value, str) and value in TYPE_ERRORS:
            kind = value
            break
    if kind is None:
        for key in ("type", "code", "status"):
            if isinstance(inner.get(key), str):
                kind = inner[key]
                break
    return (str(message) if message is not None else None), kind


def embedded_status(error: Any) -> int | None:
    """An HTTP status carried inside an error object (``code: 502``, ``status_code``).

    OpenRouter and Groq put the upstream HTTP status there; a decoder that wants it to classify
    an in-stream error passes it as ``api_error(status=...)``.
    """
    inner = error.get("error", error) if isinstance(error, dict) else None
    if isinstance(inner, dict):
        for key in ("code", "status_code"):
            value = inner.get(key)
            if type(value) is int and 400 <= value <= 599:
                return value
    return None


def api_error(
    *,
    provider: str,
    status: int | None,
    error: Any,
    headers: Mapping[str, str] | None = None,
    fallback_message: str | None = None,
) -> APIError:
    """Build the right ``APIError`` subclass from a status and/or a parsed error object."""
    headers = headers or {}
    message, kind = _describe(error)
    cls: type[APIError] | None = None
    if kind is not None and kind in CONTEXT_LENGTH_CODES:
        cls = ContextLengthError
    elif status is not None and status in STATUS_ERRORS:
        cls = STATUS_ERRORS[status]
        if cls is InvalidRequestError and kind in TYPE_ERRORS:
            cls = TYPE_ERRORS[kind]
    elif status is not None and status >= 500:
        cls = OverloadedError if kind in ("overloaded_error", "UNAVAILABLE") else ServerError
        client_side = TYPE_ERRORS.get(kind) if kind is not None else None
        if client_side is not None and not issubclass(client_side, ServerError):
            cls = client_side  # a 5xx whose body names a client error: the same every time
    elif kind is not None:
        cls = TYPE_ERRORS.get(kind)
    if cls is None:
        cls = ServerError if status is None or status >= 500 else InvalidRequestError
    text = message or fallback_message or (f"HTTP {status}" if status else "provider error")
    kwargs: dict[str, Any] = {
        "provider": provider,
        "status": status,
        "request_id": request_id_from(headers),
        "provider_message": message,
        "error_type": kind,
        "body": error,
    }
    if issubclass(cls, (RateLimitError, ServerError)):
        kwargs["retry_after"] = parse_retry_after(headers)
    return cls(text, **kwargs)


def error_from_body(
    *, provider: str, status: int, headers: Mapping[str, str], body: bytes
) -> APIError:
    """Map an HTTP error response whose body is (usually) a JSON error object."""
    try:
        parsed: Any = orjson.loads(body) if body else None
    except orjson.JSONDecodeError:
        parsed = None
    if isinstance(parsed, list) and parsed:  # Gemini's JSON-array stream endpoint
        parsed = parsed[0]
    snippet = body[:300].decode("utf-8", "replace").strip() if parsed is None else None
    fallback = f"HTTP {status}: {snippet}" if snippet else f"HTTP {status}"
    return api_error(
        provider=provider, status=status, error=parsed, headers=headers, fallback_message=fallback
    )
