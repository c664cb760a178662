"""OpenAI error bodies and in-stream error events → typed ``APIError``.

Follows https://platform.openai.com/docs/guides/error-codes and the Responses streaming
``error`` / ``response.failed`` events.

Rules: HTTP errors go through the shared table (``error_from_body``). In-stream errors have
no status: the class comes from the error ``code`` (``api_error`` with ``status=None``); the
``error`` event itself is the error object (``code``, ``message``, ``param``), and a failed
response carries its error in ``response.error``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import APIError
from ...stream.http_errors import api_error, error_from_body
from .messages import PROVIDER_NAME

__all__ = ["http_error", "stream_error"]


def http_error(*, status: int, headers: Mapping[str, str], body: bytes) -> APIError:
    return error_from_body(provider=PROVIDER_NAME, status=status, headers=headers, body=body)


def stream_error(error: Any, *, fallback: str) -> APIError:
    """The error raised for an ``error`` event or a failed response."""
    return api_error(provider=PROVIDER_NAME, status=None, error=error, fallback_message=fallback)
