"""HTTP status and error bodies → the typed error tree, given a provider's error vocabulary.

This module is the shared mechanism and knows no provider's words: each provider's
``errors.py`` declares its vocabulary (``ERRORS``: its error types / codes / statuses → class,
and the codes that mean the context window overflowed) and passes it in.

Rules:

* The HTTP status decides the class's family and whether the error is retried: a 4xx is a
  client error, never retried except 408, 409 (``RETRIED_CLIENT_STATUSES``) and 429; a 5xx is
  a ``ServerError``, retried. The body's type (the provider's vocabulary) only refines the
  class *within* that family: a 400 naming ``api_error`` stays an ``InvalidRequestError`` (as
  claude-code-router answers a context overflow), a 500 naming ``invalid_request_error`` stays
  a ``ServerError``. A context-length code (the provider's, or a server's that speaks several
  formats: ``SERVER_CONTEXT_LENGTH_CODES``, llama.cpp's) makes a 4xx a
  ``ContextLengthError``. An in-stream error (no status) is classed by its type alone. Never
  by searching message text.
* An error object is read in the usual dialects: ``{"error": {"message", "type" | "code" |
  "status"}}``, the flat ``{"message", "type", "code"}``, ``{"error": "text"}``, FastAPI's
  ``{"detail": "text" | [{"loc", "msg"}, ...] | {error object}}`` (llama-cpp-python, LiteLLM),
  a JSON array of them (the first).
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
    "RETRIED_CLIENT_STATUSES",
    "SERVER_CONTEXT_LENGTH_CODES",
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

RETRIED_CLIENT_STATUSES = frozenset({408, 409})
"""4xx answers worth trying again (request timeout, conflict), as the official SDKs do; 429 is
a ``RateLimitError``, retried by its class."""

SERVER_CONTEXT_LENGTH_CODES = frozenset({"exceed_context_size_error"})
"""Context-overflow codes of servers that speak several providers' formats: llama.cpp's
``llama-server`` sends this one on ``/v1/chat/completions``, ``/v1/responses`` and
``/v1/messages`` alike, so every provider reads it the same way (one rule, here)."""

_CLIENT_FAMILY = (InvalidRequestError, AuthenticationError, PermissionDeniedError, NotFoundError)
"""The 4xx classes a body's type may refine a 4xx into (never a retried class)."""


def _describe(error: Any, errors: Vocabulary) -> tuple[str | None, str | None]:
    """(message, type-or-code) of an error object; a word of ``errors`` is preferred."""
    if isinstance(error, str):
        return error, None
    if not isinstance(error, dict):
        return None, None
    if "error" not in error and "message" not in error and "detail" in error:
        detail = error["detail"]
        if isinstance(detail, dict):  # HTTPException(detail={...}): an error object inside
            return _describe(detail, errors)
        return _fastapi_detail(detail), None
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


def _fastapi_detail(detail: Any) -> str | None:
    """FastAPI's ``detail``: a string, or a list of ``{"loc": [...], "msg": "..."}`` items."""
    if isinstance(detail, str):
        return detail
    if not isinstance(detail, list):
        return None
    parts = []
    for item in detail[:20]:
        if isinstance(item, dict) and isinstance(item.get("msg"), str):
            loc = item.get("loc")
            where = ".".join(str(p) for p in loc) if isinstance(loc, list) and loc else ""
            parts.append(f"{where}: {item['msg']}" if where else item["msg"])
        elif isinstance(item, str):
            parts.append(item)
    return "; ".join(parts) or None


def _error_class(
    status: int | None, kind: str | None, errors: Vocabulary, context_length: Set[str]
) -> type[APIError]:
    named = errors.get(kind) if kind is not None else None
    overflow = kind is not None and (kind in context_length or kind in SERVER_CONTEXT_LENGTH_CODES)
    if status is None:  # an in-stream error: its type is all there is
        if overflow:
            return ContextLengthError
        return named if named is not None else ServerError
    if status >= 500:  # the server's family: a type refines it only into another server error
        cls = STATUS_ERRORS.get(status, ServerError)
        return named if named is not None and issubclass(named, cls) else cls
    if status == 429:
        return RateLimitError
    if overflow:
        return ContextLengthError
    cls = STATUS_ERRORS.get(status, InvalidRequestError)
    if cls is InvalidRequestError and named is not None and issubclass(named, _CLIENT_FAMILY):
        return named
    return cls


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
    made = cls(text, **kwargs)
    if status in RETRIED_CLIENT_STATUSES:
        made.retryable = True
    return made


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
