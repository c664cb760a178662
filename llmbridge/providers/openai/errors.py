"""The Chat Completions error vocabulary: HTTP error responses and in-stream errors → typed
errors, for OpenAI and every OpenAI-compatible preset.

Follows https://platform.openai.com/docs/guides/error-codes. Bodies are
``{"error": {"message", "type", "code", "param"}}`` or the flat ``{"object": "error",
"message", "type", "code"}`` of vLLM / Mistral. Rules: the HTTP status picks the class,
refined within its family by the documented type or code (``ERRORS``, through
``llmbridge.providers.http_errors``); a 4xx with a context-length code (``CONTEXT_LENGTH_CODES``,
and llama.cpp's ``exceed_context_size_error``, which ``http_errors`` reads for every provider)
is a ``ContextLengthError``. An in-stream error has no HTTP status, but OpenRouter and Groq put the upstream one in
the error object (``code: 502``, ``status_code``): it is used as the status. Messages are never
searched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import (
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
from ..http_errors import api_error, error_from_body

__all__ = ["CONTEXT_LENGTH_CODES", "ERRORS", "map_http_error", "stream_error"]

ERRORS: dict[str, type[APIError]] = {
    # OpenAI's types and codes
    "invalid_request_error": InvalidRequestError,
    "invalid_api_key": AuthenticationError,
    "invalid_prompt": InvalidRequestError,
    "context_length_exceeded": ContextLengthError,
    "rate_limit_exceeded": RateLimitError,
    "insufficient_quota": RateLimitError,
    "server_error": ServerError,
    # type names OpenAI-compatible servers reuse (llama.cpp's server, gateways)
    "authentication_error": AuthenticationError,
    "permission_error": PermissionDeniedError,
    "not_found_error": NotFoundError,
    "request_too_large": InvalidRequestError,
    "rate_limit_error": RateLimitError,
    "api_error": ServerError,
    "overloaded_error": OverloadedError,
}

CONTEXT_LENGTH_CODES = frozenset(
    {
        "context_length_exceeded",
        "string_above_max_length",
    }
)


def map_http_error(
    *, provider: str, status: int, headers: Mapping[str, str], body: bytes
) -> APIError:
    return error_from_body(
        provider=provider,
        status=status,
        headers=headers,
        body=body,
        errors=ERRORS,
        context_length=CONTEXT_LENGTH_CODES,
    )


def _embedded_status(error: Any) -> int | None:
    """An HTTP status carried inside an error object (``code: 502``, ``status_code``)."""
    inner = error.get("error", error) if isinstance(error, dict) else None
    if isinstance(inner, dict):
        for key in ("code", "status_code"):
            value = inner.get(key)
            if type(value) is int and 400 <= value <= 599:
                return value
    return None


def stream_error(*, provider: str, error: Any, fallback: str | None = None) -> APIError:
    """The error raised for an error object inside the stream (status: the embedded one)."""
    return api_error(
        provider=provider,
        status=_embedded_status(error),
        error=error,
        errors=ERRORS,
        context_length=CONTEXT_LENGTH_CODES,
        fallback_message=fallback,
    )
