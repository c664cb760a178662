"""HTTP error responses of Chat Completions servers → typed errors.

OpenAI-style bodies ``{"error": {"message", "type", "code", "param"}}`` (and the flat
``{"object": "error", "message", "type", "code"}`` of vLLM / Mistral) go through the shared
table in ``llmbridge/stream/http_errors.py``; documented codes refine the class
(``context_length_exceeded`` / ``string_above_max_length`` → ``ContextLengthError``,
``insufficient_quota`` → ``RateLimitError``). Messages are never searched.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...errors import APIError
from ...stream.http_errors import error_from_body

__all__ = ["map_http_error"]


def map_http_error(
    *, provider: str, status: int, headers: Mapping[str, str], body: bytes
) -> APIError:
    return error_from_body(provider=provider, status=status, headers=headers, body=body)
