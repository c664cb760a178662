"""OpenAI error bodies and Responses in-stream error events → typed ``APIError``.

Follows https://platform.openai.com/docs/guides/error-codes and the Responses streaming
``error`` / ``response.failed`` events. The vocabulary is OpenAI's, shared with Chat
Completions (``..openai.errors``: ``ERRORS``, ``CONTEXT_LENGTH_CODES``).

Rules: HTTP errors: the status picks the class, refined by the error code. In-stream errors
have no status: the class comes from the error ``code``; the ``error`` event itself is the
error object (``code``, ``message``, ``param``), and a failed response carries its error in
``response.error``.
"""

from __future__ import annotations

from typing import Any

from ...errors import APIError
from ..http_errors import api_error
from ..openai import CONTEXT_LENGTH_CODES as CONTEXT_LENGTH_CODES
from ..openai import ERRORS as ERRORS
from ..openai import map_http_error as map_http_error

__all__ = [
    "stream_error",
]


def stream_error(*, provider: str, error: Any, fallback: str | None = None) -> APIError:
    """The error raised for an ``error`` event or a failed response."""
    return api_error(
        provider=provider,
        status=None,
        error=error,
        errors=ERRORS,
        context_length=CONTEXT_LENGTH_CODES,
        fallback_message=fallback,
    )
