"""The one IO path: send a provider request, check the status, read SSE, decode events.

Rules:

* The HTTP status is checked *before* any SSE parsing: a non-2xx response is read whole and
  handed to ``provider.map_error``; a 2xx that is not an event stream is a
  ``MalformedStreamError`` quoting the start of the body (or the provider's error, when the
  body is a JSON error object).
* Foreign exceptions (httpx, and httpx2 when an app passes its client) are translated in one
  place, ``sending.translate``, always ``raise ... from``.
* Retries happen only before the first event is yielded; after that every error is raised
  with the partial response attached (``err.partial``). Never more requests than
  ``max_attempts``: each send is one attempt, nothing is resent behind the policy's back.
* The response is closed on every exit: end, error, ``break`` or cancellation (shielded).
* The idle timeout is httpx's read timeout: it bounds the silence between two chunks. A
  ``deadline`` (``timeout=`` of the call, ``llmbridge.stream.deadline``) bounds the whole
  call, its retries and their waits included: ``TimeoutError``, partial kept, never retried.
* SSE is framed by httpx-sse (``bounded.BoundedBody``: bounds on the bytes per event and per
  response); decoders get ``feed(event, data)`` with ``event == ""`` for an unnamed event (the
  spec's ``message``).
* What the stream yields is kept in a ``record.Record`` (for ``err.partial`` and telemetry):
  the hot loop appends to a list, the reader folds it every few thousand events, so its memory
  follows the content; past ``max_events`` events it is a ``MalformedStreamError``.
  A prepared call whose ``framing`` says ``"aws-eventstream"`` is read by botocore's
  decoder instead (``eventstream.EventStreamBody``, same bounds, same ``feed``), and ``"ndjson"``
  (Ollama's native API) by lines (``ndjson.NdjsonBody``: ``feed("", line)``, same bounds); the
  framing table ``_FRAMINGS`` names each one's content type and reader, nothing else differs.
* Connection errors name the host and port; a rejected TLS certificate is a
  ``CertificateError`` (not retried); a non-2xx body cut short still maps to its status.
* No error leaves with the request's secret in it: the values of the sensitive headers (and
  ``key=``-style query parameters) are replaced in the message and the parsed error body,
  because some servers and proxies echo the key back ("Incorrect API key provided: ...").
  Those of the request as actually sent count too: what the app's own client added (default
  ``params`` and headers, its ``httpx.Auth``).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

import anyio

from ..errors import (
    ConfigurationError,
    LLMBridgeError,
    MalformedStreamError,
)
from ..events import RateLimit, StreamEvent, StreamStart
from ..http_headers import request_id_from
from ..providers.adapter import legacy_prepared
from ..providers.base import Decoder, HttpRequest, Provider, held_of
from ..providers.prepared import Prepared
from .bounded import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_RESPONSE_BYTES, BoundedBody
from .clients import HttpPool
from .deadline import Deadline, Until, within
from .eventstream import CONTENT_TYPE as EVENTSTREAM_TYPE
from .eventstream import EventStreamBody
from .ndjson import CONTENT_TYPE as NDJSON_TYPE
from .ndjson import NdjsonBody
from .record import DEFAULT_MAX_EVENTS, Record
from .retry import RetryPolicy
from .sending import (
    SEND_OPTIONS,
    Sleep,
    auth_for,
    check_headers,
    loop_guard,
    read_error_body,
    redirect_error,
    request_scrubber,
    scrub_error,
    sent_scrubber,
    translate,
)

__all__ = ["stream_events"]

log = logging.getLogger("llmbridge")

_FRAMINGS: dict[str, tuple[str, Callable[..., Any]]] = {
    "sse": ("text/event-stream", BoundedBody),
    "aws-eventstream": (EVENTSTREAM_TYPE, EventStreamBody),
    "ndjson": (NDJSON_TYPE, NdjsonBody),
}
"""A provider's ``framing`` → (the content type its 2xx body has, the reader of that body)."""


def _framing(prepared: Prepared, provider: Provider) -> tuple[str, Callable[..., Any]]:
    name = prepared.framing
    try:
        return _FRAMINGS[name]
    except KeyError:
        raise ConfigurationError(
            f"unknown framing {name!r} (known: {', '.join(_FRAMINGS)})", provider=provider.name
        ) from None


def _prepared(
    prepared: Prepared | None,
    provider: Provider,
    request: HttpRequest,
    new_decoder: Callable[[], Decoder],
) -> Prepared:
    """The prepared call (one built by a caller of the loop from a bare request: the
    provider's old attributes, read by ``providers.adapter``)."""
    return prepared if prepared is not None else legacy_prepared(provider, request, new_decoder)


async def _open(
    http: Any,
    provider: Provider,
    request: HttpRequest,
    timeout: Any,
    content_type: str,
) -> Any:
    extra = {} if timeout is None else {"timeout": timeout}
    auth = auth_for(provider, request)
    headers = request.headers
    if not any(name.lower() == "accept" for name in headers):
        headers = {"accept": content_type, **headers}
    built = http.build_request(
        request.method,
        request.url,
        headers=headers,
        content=request.body_bytes(),
        **extra,
    )
    check_headers(built.headers, provider=provider.name)
    log.debug("llmbridge: %s %s", request.method, request.url.partition("?")[0])  # no key=
    # One send, one attempt: no hidden resend, even on a broken or odd answer (a server that
    # closes before answering, a status line that is not HTTP): the retry policy decides, and
    # counts it. httpcore itself drops a pooled connection the server closed while it was idle
    # before writing a byte to it (the one resend that cannot run a request twice).
    with translate(provider.name, request.url, midway=False), loop_guard(provider.name):
        response = await http.send(built, **SEND_OPTIONS, **auth)
    try:
        if not 200 <= response.status_code < 300:
            redirect = redirect_error(provider.name, response)
            if redirect is not None:
                raise redirect
            body = await read_error_body(response)
            raise provider.map_error(
                status=response.status_code, headers=response.headers, body=body
            )
        ctype = response.headers.get("content-type", "")
        if content_type not in ctype:
            with translate(provider.name, request.url, midway=False):
                body = await read_error_body(response)
            raise _not_sse(provider, response, ctype, body)
    except BaseException as exc:
        if isinstance(exc, LLMBridgeError):
            scrub_error(exc, sent_scrubber(response, auth=auth.get("auth")))
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


Stamp = tuple[str | None, RateLimit | None, tuple[str, ...]]
"""The request id, the rate limit and the prepared call's warnings, for the ``StreamStart``."""


def _stamp(prepared: Prepared, headers: Any) -> Stamp | None:
    """What the response headers and the prepared call say for the stream's ``StreamStart``
    (``None``: nothing)."""
    read = prepared.read_rate_limit
    limit = read(headers) if read is not None else None
    request_id = request_id_from(headers)
    if request_id is None and limit is None and not prepared.warnings:
        return None
    return request_id, limit, prepared.warnings


def _stamp_start(batch: list[StreamEvent], stamp: Stamp | None, *, end: bool = False) -> bool:
    """Give the ``StreamStart`` in ``batch`` the response's request id and limits and the
    call's warnings (first, then the decoder's own); whether nothing is left to stamp. With
    warnings and no ``StreamStart`` in the first events (or at the ``end``), one is put in
    front of them."""
    if stamp is None:
        return True
    request_id, limit, warnings = stamp
    for event in batch:
        if event.__class__ is StreamStart:
            event.request_id, event.rate_limit = request_id, limit
            if warnings:
                event.warnings = [*warnings, *event.warnings]
            return True
    if warnings and (batch or end):
        batch.insert(
            0, StreamStart(warnings=list(warnings), request_id=request_id, rate_limit=limit)
        )
        return True
    return False


def _attach(
    error: LLMBridgeError, provider: str, record: Record, decoder: Decoder | None = None
) -> LLMBridgeError:
    """``error`` with its provider and the partial response (with what ``decoder`` still held
    back: ``providers.base.held_of``)."""
    if error.provider is None:
        error.provider = provider
    if error.partial is None and record:
        record.recent.extend(held_of(decoder))
        error.partial = record.response()
    return error


class StreamObserver(Protocol):
    """What telemetry hears of a stream (``llmbridge.telemetry``): never per event."""

    def start(self) -> None: ...

    def first_event(self) -> None: ...

    def end(self, record: Record, error: BaseException | None) -> None: ...


async def stream_events(
    *,
    http: Any,
    provider: Provider,
    request: HttpRequest,
    new_decoder: Callable[[], Decoder],
    retry: RetryPolicy,
    timeout: Any = None,
    deadline: Deadline | None = None,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    max_events: int = DEFAULT_MAX_EVENTS,
    sleep: Sleep = anyio.sleep,
    observer: StreamObserver | None = None,
    prepared: Prepared | None = None,
) -> AsyncIterator[StreamEvent]:
    """Yield the normalized events of one streamed provider response (retrying before the first).

    ``http`` is an ``HttpPool`` or any ``httpx.AsyncClient``-like client. ``timeout``: httpx's
    timeouts for each request; ``deadline``: the call's total budget. ``observer`` (the
    telemetry) hears when the stream starts, its first event, and once how it ended.
    ``prepared``: the call as the provider prepared it (its framing, warnings, rate-limit
    reader; ``request`` and ``new_decoder`` are its own).
    """
    prepared = _prepared(prepared, provider, request, new_decoder)
    request, new_decoder = prepared.http, prepared.new_decoder
    name = provider.name
    attempt = 0
    record = Record(provider=name, max_events=max_events)
    scrub = request_scrubber(request)
    auth = auth_for(provider, request).get("auth")  # its tokens and signatures are secrets too
    pool = http if isinstance(http, HttpPool) else HttpPool(http)
    content_type, reader = _framing(prepared, provider)
    if observer is not None:
        observer.start()
    first, ended = observer, None
    try:
        while True:
            attempt += 1
            response = body = events = decoder = None
            shards = pool.for_loop()
            shard = shards.acquire()
            try:
                opening = _open(shards.clients[shard], provider, request, timeout, content_type)
                if deadline is not None:
                    opening = within(deadline, opening, provider=name, during="sending")
                response = await opening
                scrub = sent_scrubber(response, scrub, auth=auth)  # the app's client's, the auth's
                stamp = _stamp(prepared, response.headers)
                decoder = new_decoder()
                body = reader(
                    response,
                    limit=max_event_bytes,
                    max_bytes=max_response_bytes,
                    provider=name,
                    record=record,
                )
                events = body.events()
                if deadline is not None:
                    events = Until(events, deadline, name)
                # httpx-sse names unnamed events "message"; decoders are given "".
                feed, keep = decoder.feed, record.recent.append
                stamped = False
                with translate(name, request.url, midway=True):
                    # Up to the first events: clock the first, stamp the StreamStart (in the
                    # first batch, nearly always; a decoder may send it later).
                    async for sse in events:
                        kind = sse.event
                        batch = feed("" if kind == "message" else kind, sse.data)
                        if batch:
                            stamped = _stamp_start(batch, stamp)
                            if first is not None:
                                first.first_event()
                                first = None
                            for event in batch:
                                keep(event)
                                yield event
                            if stamped:
                                break
                    async for sse in events:  # the hot loop: nothing per event but these
                        kind = sse.event
                        for event in feed("" if kind == "message" else kind, sse.data):
                            keep(event)
                            yield event
                    tail = decoder.close()
                    if not stamped:
                        _stamp_start(tail, stamp, end=not record)
                    for event in tail:
                        keep(event)
                        yield event
                return
            except LLMBridgeError as exc:
                scrub_error(exc, scrub)
                delay = None if record else retry.delay(attempt=attempt, error=exc)
                if delay is not None and deadline is not None:
                    if deadline.passed():
                        delay = None  # out of time: raised as it is
                    elif anyio.current_time() + delay >= deadline.start():
                        late = deadline.error(
                            provider=name, during=f"no time left for a retry after {exc!r}"
                        )
                        raise late from exc
                if delay is None:
                    _attach(exc, name, record, decoder)
                    raise
                log.debug(
                    "llmbridge: %s failed (%s); retry %d in %.2fs",
                    name,
                    type(exc).__name__,
                    attempt,
                    delay,
                    extra={"retry_error": exc, "retry_delay": delay},  # the CLI's retry notes
                )
            finally:
                with anyio.CancelScope(shield=True):
                    try:
                        if events is not None:
                            await events.aclose()
                        if body is not None:
                            await body.aclose()
                        if response is not None:
                            await response.aclose()
                    finally:
                        shards.release(shard)
            await sleep(delay)
    except BaseException as exc:  # failed, closed early or cancelled: the observer says which
        ended = exc
        raise
    finally:
        if observer is not None:
            observer.end(record, ended)
