"""HTTP status and error bodies → the typed error tree, given a provider's error vocabulary.

This module is the shared mechanism and knows no provider's words: each provider's
``errors.py`` declares its vocabulary (``ERRORS``: its error types / codes / statuses → class,
and the codes that mean the context window overflowed) and passes it in.

Rules:

* The class comes from the status (``STATUS_ERRORS``); a 400-family status, a status outside
  the table and an in-stream error (no status) are refined by the vocabulary; a 5xx whose body
  names a client error is that client error (it fails the same way every time). A
  context-length code wins over the status. Never by searching message text.
* An error object is read in the usual dialects: ``{"error": {"message", "type" | "code" |
  "status"}}``, the flat ``{"message", "type", "code"}``, ``{"error": "text"}``, a JSON array
  of them (the first).
* ``Retry-After`` is read in seconds or as an HTTP date (``retry-after-ms`` first); the request
  id from the usual headers. Both are generic HTTP, read by ``llmbridge.http_headers`` (IO
  reads the request id there too, importing nothing from the provider floor), re-exported here.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
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
from ..http_headers import parse_retry_after, request_id_from

__all__ = [
    "STATUS_ERRORS",
    "Vocabulary",
    "api_error",
    "error_from_body",
    "parse_retry_after",
    "request_id_from",
]

Vocabulary = Mapping[str, type[APIError]]
"""A provider's error types / codes / statuses → the class they mean."""

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


def _describe(error: Any, errors: Vocabulary) -> tuple[str | None, str | None]:
    """(message, type-or-code) of an error object; a word of ``errors`` is preferred."""
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
        if isinstance(value, str) and value in errors:
            kind = value
            break
    if kind is None:
        for key in ("type", "code", "status"):
            if isinstance(inner.get(key), str):
                kind = inner[key]
                break
    return (str(message) if message is not None else None), kind


def _error_class(
    status: int | None, kind: str | None, errors: Vocabulary, context_length: Set[str]
) -> type[APIError]:
    named = errors.get(kind) if kind is not None else None
    if kind is not None and kind in context_length:
        return ContextLengthError
    if status is not None and status in STATUS_ERRORS:
        cls = STATUS_ERRORS[status]
        return named if cls is InvalidRequestError and named is not None else cls
    if named is not None:  # an in-stream error, another 4xx, or a 5xx naming a client error
        return named
    return ServerError if status is None or status >= 500 else InvalidRequestError


def api_error(
    *,
    provider: str,
    status: int | None,
    error: Any,
    errors: Vocabulary,
    context_length: Set[str] = frozenset(),
    headers: Mapping[str, str] | None = None,
    fallback_message: str | None = None,
) -> APIError:
    """The ``APIError`` subclass for a status and/or a parsed error object, in a vocabulary."""
    headers = headers or {}
    message, kind = _describe(error, errors)
    cls = _error_class(status, kind, errors, context_length)
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
    *,
    provider: str,
    status: int,
    headers: Mapping[str, str],
    body: bytes,
    errors: Vocabulary,
    context_length: Set[str] = frozenset(),
) -> APIError:
    """An HTTP error response whose body is (usually) a JSON error object."""
    try:
        parsed: Any = orjson.loads(body) if body else None
    except orjson.JSONDecodeError:
        parsed = None
    if isinstance(parsed, list) and parsed:  # an array of error objects: the first
        parsed = parsed[0]
    snippet = body[:300].decode("utf-8", "replace").strip() if parsed is None else None
    fallback = f"HTTP {status}: {snippet}" if snippet else f"HTTP {status}"
    return api_error(
        provider=provider,
        status=status,
        error=parsed,
        errors=errors,
        context_length=context_length,
        headers=headers,
        fallback_message=fallback,
    )
