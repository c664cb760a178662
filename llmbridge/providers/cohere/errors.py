"""Cohere's error vocabulary: HTTP error responses → typed errors.

Follows the errors of ``v2/chat`` in the ``cohere`` SDK (``BadRequestError`` 400,
``UnauthorizedError`` 401, ``ForbiddenError`` 403, ``NotFoundError`` 404,
``UnprocessableEntityError`` 422, ``TooManyRequestsError`` 429, ``InvalidTokenError`` 498,
``ClientClosedRequestError`` 499, ``InternalServerError`` 500, ``NotImplementedError`` 501,
``ServiceUnavailableError`` 503, ``GatewayTimeoutError`` 504). The body is ``{"id", "message"}``.
The class comes from the status: the shared table, then Cohere's own statuses (``STATUSES``);
message text is never searched. A stream that ends in ``finish_reason: ERROR`` is not an HTTP
error: the decoder finishes it with reason ``error`` and keeps ``error`` / ``error_type``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import (
    APIError,
    AuthenticationError,
    InvalidRequestError,
    OverloadedError,
    ServerError,
)
from ..http_errors import Vocabulary, error_from_body

__all__ = ["ERRORS", "STATUSES", "map_http_error"]

ERRORS: Vocabulary = {}
"""Cohere names no error types in its bodies."""

STATUSES: dict[int, type[APIError]] = {
    498: AuthenticationError,  # InvalidTokenError
    499: InvalidRequestError,  # ClientClosedRequestError
    501: InvalidRequestError,  # NotImplementedError: the model does not do this
    503: OverloadedError,  # ServiceUnavailableError
}


def map_http_error(
    *, provider: str, status: int, headers: Mapping[str, str], body: bytes
) -> APIError:
    error = error_from_body(
        provider=provider, status=status, headers=headers, body=body, errors=ERRORS
    )
    cls = STATUSES.get(status)
    if cls is None or type(error) is cls:
        return error
    kwargs: dict[str, Any] = {
        "provider": error.provider,
        "status": error.status,
        "request_id": error.request_id,
        "provider_message": error.provider_message,
        "error_type": error.error_type,
        "body": error.body,
    }
    if issubclass(cls, ServerError):
        kwargs["retry_after"] = getattr(error, "retry_after", None)
    return cls(error.message, **kwargs)
