"""HTTP error responses of the Messages API → the typed error tree.

Follows https://platform.claude.com/docs/en/api/errors: the body is
``{"type": "error", "error": {"type": "...", "message": "..."}, "request_id": "..."}``;
529 is ``overloaded_error``. The class comes from the status, refined by the error type
(shared tables in ``llmbridge.stream.http_errors``); the request id comes from the
``request-id`` header, else the body.
"""

from __future__ import annotations

from collections.abc import Mapping

import orjson

from ...errors import APIError
from ...stream.http_errors import error_from_body

__all__ = ["map_error"]


def map_error(*, provider: str, status: int, headers: Mapping[str, str], body: bytes) -> APIError:
    error = error_from_body(provider=provider, status=status, headers=headers, body=body)
    if error.request_id is None:
        try:
            parsed = orjson.loads(body) if body else None
        except orjson.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict) and isinstance(parsed.get("request_id"), str):
            error.request_id = parsed["request_id"]
    return error
