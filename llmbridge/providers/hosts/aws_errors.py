"""The AWS host's error vocabulary (Bedrock's): HTTP error responses and exception frames → typed errors.

One table for every provider Bedrock serves (``bedrock``'s Converse, ``anthropic-bedrock``'s
InvokeModel frames; ``providers.bedrock.errors`` is ``bedrock``'s name for it).

Follows the ``errors`` of ``ConverseStream`` in botocore's ``bedrock-runtime`` model and
https://docs.aws.amazon.com/bedrock/latest/userguide/troubleshooting-api-error-codes.html.
An HTTP error names its type in the ``x-amzn-ErrorType`` header (``ThrottlingException:http://…``;
the part before ``:``), else in the body's ``__type`` / ``code``; the body is
``{"message": "…"}`` (``Message`` from some front ends). An exception frame in the stream is
``exception:<type>`` with the same body. Rules:

* The class comes from the type (``ERRORS``, case-insensitive, ``Exception`` suffix optional),
  else from the status (``http_errors.STATUS_ERRORS``; 5xx → ``ServerError``).
* Bedrock says a prompt is too long only in a ``ValidationException``'s message: its documented
  phrases (``CONTEXT_PHRASES``) make that a ``ContextLengthError``. This table is the one place
  llmbridge reads Bedrock's message text.
* ``Retry-After`` is honoured on retryable errors; the request id is ``x-amzn-RequestId``.
* The message an error shows (``str()``, ``provider_message``) is the provider's with control
  characters escaped (``\\x1b``, ``\\n``: a hostile frame cannot write to a terminal or forge
  log lines) and cut to ``MAX_SHOWN`` characters (an exception frame may hold megabytes); the
  whole parsed payload stays on the error's ``body``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from ...errors import (
    APIError,
    AuthenticationError,
    ContextLengthError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
)
from ...terminal import one_line
from ..http_errors import STATUS_ERRORS, parse_retry_after, request_id_from

__all__ = [
    "CONTEXT_PHRASES",
    "ERRORS",
    "MAX_SHOWN",
    "bedrock_error",
    "map_http_error",
    "stream_error",
]

MAX_SHOWN = 16_000
"""Characters of the provider's message an error shows, at most (``str()`` stays within 16 KiB)."""


def shown(text: str) -> str:
    """``text`` as an error shows it: on one line, cut to ``MAX_SHOWN`` (``terminal.one_line``)."""
    return one_line(text, limit=MAX_SHOWN)


ERRORS: dict[str, type[APIError]] = {
    "throttling": RateLimitError,
    "servicequotaexceeded": RateLimitError,
    "toomanyrequests": RateLimitError,
    "accessdenied": PermissionDeniedError,
    "unrecognizedclient": AuthenticationError,
    "invalidsignature": AuthenticationError,
    "incompletesignature": AuthenticationError,
    "expiredtoken": AuthenticationError,
    "missingauthenticationtoken": AuthenticationError,
    "resourcenotfound": NotFoundError,
    "validation": InvalidRequestError,
    "serialization": InvalidRequestError,
    "internalserver": ServerError,
    "internalfailure": ServerError,
    "serviceunavailable": ServerError,
    "modelstreamerror": ServerError,
    "modelerror": ServerError,
    "modelnotready": ServerError,
    "modeltimeout": ServerError,
}
"""Error type, lower-cased and without ``Exception`` → class."""

CONTEXT_PHRASES = (
    "input is too long",
    "prompt is too long",
    "too many input tokens",
    "input tokens exceeds",
    "input tokens exceed",
    "exceed context limit",
    "exceeds the maximum context",
    "maximum context length",
    "context window",
)
"""Lower-case phrases of a ``ValidationException`` that mean the prompt does not fit (Claude's
"Input is too long for requested model" / "prompt is too long", Claude 3.7+'s "input length and
`max_tokens` exceed context limit", Nova's "Input Tokens Exceeded: Number of input tokens
exceeds…", Llama / Mistral's "maximum context length")."""


def _kind(raw: Any) -> str | None:
    if not isinstance(raw, str) or not raw:
        return None
    name = raw.split(":", 1)[0].rsplit("#", 1)[-1]  # "ns#ThrottlingException:http://..."
    return name or None


def _key(kind: str) -> str:
    key = kind.lower()
    return key[: -len("exception")] if key.endswith("exception") else key


def bedrock_error(
    *,
    provider: str,
    status: int | None,
    kind: str | None,
    body: Any,
    headers: Mapping[str, str] | None = None,
    fallback: str | None = None,
) -> APIError:
    headers = headers or {}
    message: Any = None
    if isinstance(body, dict):
        message = body.get("message", body.get("Message"))
    elif isinstance(body, str):
        message = body
    message = str(message) if message is not None else None
    kind = shown(kind) if kind else kind
    cls: type[APIError] | None = ERRORS.get(_key(kind)) if kind else None
    if cls is None:
        if status in STATUS_ERRORS:
            cls = STATUS_ERRORS[status]
        else:
            cls = ServerError if status is None or status >= 500 else InvalidRequestError
    if cls is InvalidRequestError and message:
        lowered = message.lower()
        if any(phrase in lowered for phrase in CONTEXT_PHRASES):
            cls = ContextLengthError
    kwargs: dict[str, Any] = {
        "provider": provider,
        "status": status,
        "request_id": request_id_from(headers),
        "provider_message": shown(message) if message else message,
        "error_type": kind,
        "body": body,
    }
    if issubclass(cls, RateLimitError | ServerError):
        kwargs["retry_after"] = parse_retry_after(headers)
    text = message or fallback or (f"HTTP {status}" if status else f"Bedrock {kind or 'error'}")
    return cls(shown(text), **kwargs)


def map_http_error(
    *, provider: str, status: int, headers: Mapping[str, str], body: bytes
) -> APIError:
    try:
        parsed: Any = orjson.loads(body) if body else None
    except orjson.JSONDecodeError:
        parsed = None
    kind = _kind(headers.get("x-amzn-errortype"))
    if kind is None and isinstance(parsed, dict):
        kind = _kind(parsed.get("__type")) or _kind(parsed.get("code"))
    snippet = body[:300].decode("utf-8", "replace").strip() if parsed is None else None
    fallback = f"HTTP {status}: {snippet}" if snippet else f"HTTP {status}"
    return bedrock_error(
        provider=provider, status=status, kind=kind, body=parsed, headers=headers, fallback=fallback
    )


def stream_error(*, provider: str, kind: str, data: str) -> APIError:
    """The error for an ``exception:<type>`` (payload JSON) or ``error:<code>`` (message) frame."""
    try:
        body: Any = orjson.loads(data) if data.startswith("{") else data
    except orjson.JSONDecodeError:
        body = data
    return bedrock_error(provider=provider, status=None, kind=kind, body=body)
