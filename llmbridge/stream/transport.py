"""The one IO path: send a provider request, check the status, read SSE, decode events.

Rules:

* The HTTP status is checked *before* any SSE parsing: a non-2xx response is read whole and
  handed to ``provider.map_error``; a 2xx that is not an event stream is a
  ``MalformedStreamError`` quoting the start of the body (or the provider's error, when the
  body is a JSON error object).
* Foreign exceptions (httpx, and httpx2 when an app passes its client) are translated in one
  place, ``_translate``, always ``raise ... from``.
* Retries happen only before the first event is yielded; after that every error is raised
  with the partial response attached (``err.partial``).
* The response is closed on every exit: end, error, ``break`` or cancellation (shielded).
* The idle timeout is httpx's read timeout: it bounds the silence between two chunks.
* SSE is framed by ``sse.SSEParser`` over ``aiter_bytes`` (the parser tests use too); decoders
  get ``feed(event, data)`` with ``event == ""`` for an unnamed event (the spec's ``message``).
* No error leaves with the request's secret in it: the values of the sensitive headers (and
  ``key=``-style query parameters) are replaced in the message and the parsed error body,
  because some servers and proxies echo the key back ("Incorrect API key provided: ...").
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import httpx

from ..errors import (
    ConnectionError,
    LLMBridgeError,
    MalformedStreamError,
    StreamTruncatedError,
    TimeoutError,
)
from ..events import StreamEvent
from ..providers.base import (
    SECRET_QUERY_PARAMS,
    SENSITIVE_HEADERS,
    Decoder,
    HttpRequest,
    Provider,
)
from ..response import Accumulator
from .http_errors import request_id_from
from .retry import RetryPolicy
from .sse import SSEParser

__all__ = ["stream_events"]

log = logging.getLogger("llmbridge")

Sleep = Callable[[float], Awaitable[None]]


def _exception_kind(exc: BaseException) -> str | None:
    """'timeout' / 'connect' / 'read' / 'decode' for httpx or httpx2 exceptions (same names)."""
    module = type(exc).__module__.split(".")[0]
    if module not in ("httpx", "httpx2", "httpcore"):
        return None
    names = {cls.__name__ for cls in type(exc).__mro__}
    if "DecodingError" in names:  # a corrupt gzip/deflate/brotli body
        return "decode"
    if "TimeoutException" in names or "TimeoutError" in names:
        return "timeout"
    if "ConnectError" in names:
        return "connect"
    if names & {"TransportError", "NetworkError", "ProtocolError", "StreamError"}:
        return "read"
    return None


@contextmanager
def _translate(provider: str, *, midway: bool) -> Iterator[None]:
    try:
        yield
    except LLMBridgeError:
        raise
    except Exception as exc:
        kind = _exception_kind(exc)
        if kind == "timeout":
            what = "no data within the idle (read) timeout" if midway else "request timed out"
            raise TimeoutError(f"{what}: {type(exc).__name__}", provider=provider) from exc
        if kind == "decode":
            raise MalformedStreamError(
                f"the body could not be decoded: {exc}", provider=provider
            ) from exc
        if kind == "connect":
            raise ConnectionError(f"could not connect: {exc}", provider=provider) from exc
        if kind == "read":
            if midway:
                raise StreamTruncatedError(
                    f"the connection broke midway: {type(exc).__name__}: {exc}", provider=provider
                ) from exc
            raise ConnectionError(
                f"connection failed: {type(exc).__name__}: {exc}", provider=provider
            ) from exc
        raise


async def _open(http: Any, provider: Provider, request: HttpRequest, timeout: Any) -> Any:
    extra = {} if timeout is None else {"timeout": timeout}
    headers = request.headers
    if not any(name.lower() == "accept" for name in headers):
        headers = {"accept": "text/event-stream", **headers}
    built = http.build_request(
        request.method,
        request.url,
        headers=headers,
        content=request.body_bytes(),
        **extra,
    )
    log.debug("llmbridge: %s %s", request.method, request.url)
    with _translate(provider.name, midway=False):
        response = await http.send(built, stream=True)
    try:
        if not 200 <= response.status_code < 300:
            with _translate(provider.name, midway=False):
                body = await response.aread()
            raise provider.map_error(
                status=response.status_code, headers=response.headers, body=body
            )
        ctype = response.headers.get("content-type", "")
        if "text/event-stream" not in ctype:
            with _translate(provider.name, midway=False):
                body = await response.aread()
            raise _not_sse(provider, response, ctype, body)
    except BaseException:
        with anyio.CancelScope(shield=True):
            await response.aclose()
        raise
    return response


def _not_sse(provider: Provider, response: Any, ctype: str, body: bytes) -> LLMBridgeError:
    if "json" in ctype:
        error = provider.map_error(status=response.status_code, headers=response.headers, body=body)
        if error.provider_message:
            return error
    snippet = body[:200].decode("utf-8", "replace").strip()
    return MalformedStreamError(
        f"expected an event stream, got content-type {ctype or 'none'!r}: {snippet!r}",
        provider=provider.name,
        status=response.status_code,
        request_id=request_id_from(response.headers),
    )


_REDACTED = "<redacted>"


def _secrets(request: HttpRequest) -> tuple[str, ...]:
    """The secret strings ``request`` carries (longest first), never shorter than 8 chars."""
    found: set[str] = set()
    for name, value in request.headers.items():
        if name.lower() in SENSITIVE_HEADERS and isinstance(value, str):
            found.add(value)
            found.add(value.partition(" ")[2])  # "Bearer <token>"
    try:
        params = httpx.URL(request.url).params
    except (httpx.InvalidURL, TypeError):  # an unparseable URL fails later, in the send
        params = httpx.QueryParams()
    for name, value in params.multi_items():
        if name.lower() in SECRET_QUERY_PARAMS:
            found.add(value)
    return tuple(sorted((s for s in found if len(s) >= 8), key=len, reverse=True))


def _scrub_value(value: Any, secrets: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, _REDACTED)
        return value
    if isinstance(value, dict):
        return {k: _scrub_value(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub_value(v, secrets) for v in value]
    return value


def _scrub(error: LLMBridgeError, secrets: tuple[str, ...]) -> None:
    """Remove the request's secrets from everything the error shows."""
    if not secrets:
        return
    error.message = _scrub_value(error.message, secrets)
    error.provider_message = _scrub_value(error.provider_message, secrets)
    error.args = tuple(_scrub_value(a, secrets) for a in error.args)
    body = getattr(error, "body", None)
    if body is not None:
        error.body = _scrub_value(body, secrets)  # type: ignore[attr-defined]


def _attach(error: LLMBridgeError, provider: str, seen: list[StreamEvent]) -> LLMBridgeError:
    if error.provider is None:
        error.provider = provider
    if error.partial is None and seen:
        acc = Accumulator(provider=provider)
        try:
            for event in seen:
                acc.add(event)
        except LLMBridgeError:
            pass
        error.partial = acc.response()
    return error


async def stream_events(
    *,
    http: Any,
    provider: Provider,
    request: HttpRequest,
    new_decoder: Callable[[], Decoder],
    retry: RetryPolicy,
    timeout: Any = None,
    sleep: Sleep = anyio.sleep,
) -> AsyncIterator[StreamEvent]:
    """Yield the normalized events of one streamed provider response (retrying before the first)."""
    name = provider.name
    attempt = 0
    seen: list[StreamEvent] = []
    secrets = _secrets(request)
    while True:
        attempt += 1
        response = None
        try:
            response = await _open(http, provider, request, timeout)
            decoder = new_decoder()
            parser = SSEParser()
            # The hot loop: attribute lookups hoisted, one parser call per chunk, not per line.
            parse, feed, keep = parser.feed, decoder.feed, seen.append
            with _translate(name, midway=True):
                async for chunk in response.aiter_bytes():
                    for kind, data in parse(chunk):
                        for event in feed(kind, data):
                            keep(event)
                            yield event
                for kind, data in parser.close():
                    for event in feed(kind, data):
                        keep(event)
                        yield event
                for event in decoder.close():
                    keep(event)
                    yield event
            return
        except LLMBridgeError as exc:
            _scrub(exc, secrets)
            delay = None if seen else retry.delay(attempt=attempt, error=exc)
            if delay is None:
                _attach(exc, name, seen)
                raise
            log.debug(
                "llmbridge: %s failed (%s); retry %d in %.2fs",
                name,
                type(exc).__name__,
                attempt,
                delay,
            )
        finally:
            if response is not None:
                with anyio.CancelScope(shield=True):
                    await response.aclose()
        await sleep(delay)
