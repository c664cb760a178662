"""Every exception llmbridge raises. ``except LLMBridgeError`` catches them all.

::

    LLMBridgeError                      root; .provider .status .request_id .provider_message .partial
    ├── ConfigurationError              local misuse: unknown provider, bad model string, no key
    │   ├── UsageError                  an API given what it does not take (also TypeError/ValueError)
    │   ├── ToolSchemaError             a tool's JSON schema no provider accepts (llmbridge.specs)
    │   └── MCPConfigError              an mcpServers config that cannot be used (llmbridge.tools)
    ├── UnsupportedFeatureError         the request cannot be expressed for this provider
    ├── StructuredOutputError           the reply holds no value of the response_format; .raw_text
    ├── ToolArgumentsError              tool arguments fail the tool's schema (message fit for the model)
    ├── ToolNotFoundError               no tool by that name in the registry (also a KeyError)
    ├── ToolLimitError                  a tool's max_invocations / max_exceptions is used up
    ├── ToolTimeoutError                a tool ran longer than the registry's timeout (also TimeoutError)
    ├── ToolApprovalError               a call that needed approval was denied
    ├── MCPError                        an MCP server could not be started or reached, or broke the protocol
    ├── AllModelsFailedError            every model of a fallback chain failed; .errors has each one's
    ├── APIError                        the provider answered with an error (HTTP status or in-stream event)
    │   ├── AuthenticationError         401
    │   ├── PermissionDeniedError       403
    │   ├── NotFoundError               404
    │   ├── InvalidRequestError         400, 408, 409, 413, 422, other 4xx (408, 409 retried)
    │   │   └── ContextLengthError      the prompt does not fit the model's context window
    │   ├── RateLimitError              429; .retry_after (seconds) when the provider said
    │   └── ServerError                 5xx
    │       └── OverloadedError         529 / "overloaded" (Anthropic), 503 overloaded
    ├── TransportError                  the network failed us
    │   ├── TimeoutError                connect / read / idle timeout (also the builtin TimeoutError)
    │   └── ConnectionError             connect failed, connection reset (also the builtin one)
    │       └── CertificateError        the server's TLS certificate was rejected (not retried)
    └── StreamError                     the response stream itself is bad
        ├── MalformedStreamError        not SSE, non-JSON data, a body the decoder can't read
        ├── StreamTruncatedError        the stream ended before the provider's terminal event
        └── EventOrderError             a decoder broke the event invariants (a decoder bug)

The tool and MCP errors live beside what raises them (``llmbridge.tools``, ``llmbridge.specs``)
and are exported by ``llmbridge``; ``tests/test_error_tree.py`` checks that this tree and
``docs/errors.md`` draw every exported exception under its real parent.

Rules: an error raised after the stream started carries the ``ChatResponse`` accumulated so far
in ``.partial``. Messages never contain API keys (keys are never passed to this module).
Retryable errors are the ones whose ``retryable`` attribute is true.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .embedding_types import EmbeddingResponse
    from .messages import ChatResponse

__all__ = [
    "APIError",
    "AllModelsFailedError",
    "AuthenticationError",
    "CertificateError",
    "ConfigurationError",
    "ConnectionError",
    "ContextLengthError",
    "EventOrderError",
    "InvalidRequestError",
    "LLMBridgeError",
    "MalformedStreamError",
    "NotFoundError",
    "OverloadedError",
    "PermissionDeniedError",
    "RateLimitError",
    "ServerError",
    "StreamError",
    "StreamTruncatedError",
    "StructuredOutputError",
    "TimeoutError",
    "ToolArgumentsError",
    "TransportError",
    "UnsupportedFeatureError",
    "UsageError",
]


class LLMBridgeError(Exception):
    """Root of every llmbridge exception."""

    retryable: bool = False

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        status: int | None = None,
        request_id: str | None = None,
        provider_message: str | None = None,
        partial: ChatResponse[None] | EmbeddingResponse | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.status = status
        self.request_id = request_id
        self.provider_message = provider_message
        self.partial = partial
        """What arrived before the error: the ``ChatResponse`` so far, or, for a split
        embedding call, an ``EmbeddingResponse`` (``None`` for each input of a failed piece)."""

    def __str__(self) -> str:
        bits = [f"provider={self.provider}"] if self.provider else []
        if self.status is not None:
            bits.append(f"status={self.status}")
        if self.request_id:
            bits.append(f"request_id={self.request_id}")
        return f"{self.message} ({', '.join(bits)})" if bits else self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"


class ConfigurationError(LLMBridgeError):
    """Local misuse: unknown provider, malformed model string, missing API key."""


class UsageError(ConfigurationError, TypeError, ValueError):
    """An llmbridge API was called with something it does not take (a wrong type or value, an
    unknown option, a duplicate name, a closed client). Also a ``TypeError`` and a
    ``ValueError``, so code written against Python's own exceptions keeps working."""


class UnsupportedFeatureError(LLMBridgeError):
    """The request holds something this provider cannot express."""


class StructuredOutputError(LLMBridgeError):
    """The reply does not hold a value of the requested ``response_format``: not JSON, cut off,
    invalid for the schema, or a refusal. Keeps the raw text, the validation errors and the
    whole response (``partial``)."""

    def __init__(
        self,
        message: str,
        *,
        raw_text: str,
        errors: list[dict[str, Any]] | None = None,
        refusal: str | None = None,
        provider: str | None = None,
        partial: ChatResponse[None] | None = None,
    ) -> None:
        super().__init__(message, provider=provider, partial=partial)
        self.raw_text = raw_text
        self.errors = errors or []
        """pydantic's validation errors (``ValidationError.errors()``), when the JSON parsed."""
        self.refusal = refusal
        """The model's refusal text, when it refused instead of answering."""


class ToolArgumentsError(LLMBridgeError):
    """Tool arguments do not match the tool's schema. ``str(err)`` is fit to show the model."""

    def __init__(self, message: str, *, tool_name: str | None = None) -> None:
        super().__init__(message)
        self.tool_name = tool_name


class AllModelsFailedError(LLMBridgeError):
    """Every model of a fallback chain (``stream([...])``) failed. ``errors`` holds each
    model's error in order, as ``(model, error)``; ``provider``, ``status`` and ``request_id``
    are the last one's, ``partial`` the latest partial response any of them left."""

    def __init__(self, errors: list[tuple[str, LLMBridgeError]]) -> None:
        lines = "; ".join(f"{model}: {type(e).__name__}: {e}" for model, e in errors)
        last = errors[-1][1] if errors else None
        partial = next((e.partial for _, e in reversed(errors) if e.partial is not None), None)
        super().__init__(
            f"all {len(errors)} models failed ({lines})",
            provider=last.provider if last else None,
            status=last.status if last else None,
            request_id=last.request_id if last else None,
            partial=partial,
        )
        self.errors = list(errors)

    @property
    def retryable(self) -> bool:  # type: ignore[override]
        """True when every model failed in a way worth trying again later."""
        return bool(self.errors) and all(e.retryable for _, e in self.errors)


class APIError(LLMBridgeError):
    """The provider reported an error (HTTP status, or an error event inside the stream)."""

    def __init__(
        self,
        message: str,
        *,
        error_type: str | None = None,
        body: object = None,
        **kwargs: object,
    ) -> None:
        super().__init__(message, **kwargs)  # type: ignore[arg-type]
        self.error_type = error_type
        """The provider's own error type or code (e.g. ``overloaded_error``)."""
        self.body = body
        """The parsed error body as the provider sent it."""


class AuthenticationError(APIError):
    """401: the key is missing, wrong or revoked."""


class PermissionDeniedError(APIError):
    """403: the key may not use this model or feature."""


class NotFoundError(APIError):
    """404: unknown model, deployment or path."""


class InvalidRequestError(APIError):
    """400 and friends: the provider rejected the request as built."""


class ContextLengthError(InvalidRequestError):
    """The prompt is longer than the model's context window."""


class RateLimitError(APIError):
    """429: slow down. ``retry_after`` is the provider's hint in seconds, if any."""

    retryable = True

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: object) -> None:
        super().__init__(message, **kwargs)  # type: ignore[arg-type]
        self.retry_after = retry_after


class ServerError(APIError):
    """5xx: the provider failed. Retryable, except the statuses that say the server cannot
    do this at all (``NOT_RETRIED``: 501 Not Implemented, 505 HTTP Version Not Supported):
    the same request fails the same way, so trying it three times only waits longer."""

    retryable = True
    NOT_RETRIED = frozenset({501, 505})

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: object) -> None:
        super().__init__(message, **kwargs)  # type: ignore[arg-type]
        self.retry_after = retry_after
        if self.status in self.NOT_RETRIED:
            self.retryable = False


class OverloadedError(ServerError):
    """The provider is overloaded (Anthropic 529 / ``overloaded_error``)."""


class TransportError(LLMBridgeError):
    """The network failed before or while the response arrived."""

    retryable = True


class TimeoutError(TransportError, builtins.TimeoutError):
    """Connect, read or idle timeout."""


class ConnectionError(TransportError, builtins.ConnectionError):
    """Could not connect, or the connection broke."""


class CertificateError(ConnectionError):
    """The server's TLS certificate was rejected (untrusted, expired, wrong host): not retried."""

    retryable = False


class StreamError(LLMBridgeError):
    """The response stream is unusable."""


class MalformedStreamError(StreamError):
    """The body is not the SSE stream the provider documents (or a data line is not JSON)."""


class StreamTruncatedError(StreamError):
    """The stream ended before the provider's terminal event."""


class EventOrderError(StreamError):
    """Events broke the contract's invariants (e.g. a chunk for a call that never started)."""
