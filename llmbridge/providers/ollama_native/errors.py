"""Ollama's error vocabulary: HTTP error responses and ``error`` lines → typed errors.

Ollama answers an error as ``{"error": "<text>"}`` with the HTTP status saying what kind
(https://github.com/ollama/ollama/blob/main/docs/api.md#errors): 400 a bad request (a model
that does not support tools or thinking), 404 an unknown model (``model "x" not found, try
pulling it first``), 500 a runner that failed, 503 the server busy (``OLLAMA_MAX_QUEUE``).
Inside a stream the same object arrives as one NDJSON line: the error is raised after the events
before it, with the partial kept by the transport. The class comes from the status alone
(``http_errors.STATUS_ERRORS``; an in-stream error or a 5xx is a ``ServerError``): Ollama's
errors carry no type or code, and message text is never searched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import APIError
from ..http_errors import Vocabulary, api_error, error_from_body

__all__ = ["ERRORS", "map_http_error", "stream_error"]

ERRORS: Vocabulary = {}
"""Ollama names no error types: the status decides."""


def map_http_error(
    *, provider: str, status: int, headers: Mapping[str, str], body: bytes
) -> APIError:
    return error_from_body(
        provider=provider, status=status, headers=headers, body=body, errors=ERRORS
    )


def stream_error(*, provider: str, line: dict[str, Any]) -> APIError:
    """The error of an ``{"error": ...}`` line in a 200 stream."""
    return api_error(provider=provider, status=None, error=line, errors=ERRORS)
