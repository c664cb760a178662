"""What sending a request takes, shared by the stream path (``transport``) and plain requests
(``fetch``): foreign exceptions translated in one place, the auth a request carries, the error
body read with a bound, and the scrubbers that keep a request's secrets out of every error.

Rules:

* ``translate`` is the one place httpx's (and httpx2's) exceptions become llmbridge errors,
  always ``raise ... from``: connection errors name the host and port, a rejected TLS
  certificate is a ``CertificateError`` (not retried), a decoding error is a
  ``MalformedStreamError``; ``midway`` says whether events were already yielded.
* ``auth_for``: the request's ``httpx.Auth``, else the provider's (``llmbridge.auth``), run by
  httpx on every attempt.
* Redirects are never followed (``SEND_OPTIONS``), whatever the app's own client says: httpx
  drops only ``Authorization`` on another origin, so ``x-api-key``, ``x-goog-api-key`` and
  ``api-key`` would reach the host a 3xx names. A redirect answer is a ``ConfigurationError``
  (``redirect_error``: not retried, the target's origin named) telling to fix ``base_url``.
* A header value no HTTP/1.1 message can carry (a line break, NUL or other control character:
  a key read with its newline) is refused before sending as a ``ConfigurationError`` naming
  the header, never its value, on every transport (httpcore's h11 and aiohttp refuse it in
  their own words, aiohttp as a bare ``ValueError``): ``check_headers`` on the request, and on
  what an ``httpx.Auth`` sets (``auth_for`` wraps it in ``CheckedAuth``). httpx refusing a
  request all the same (``LocalProtocolError``) is a ``ConfigurationError`` too, not a retried
  connection error, with nothing of the refused value (the cause is not chained: its message
  holds the header).
* No error leaves with a secret in it: ``request_scrubber`` knows the request's sensitive
  headers and ``key=``-style query parameters, ``sent_scrubber`` adds those of the request as
  actually sent (the app's own client's default params and headers, an auth's tokens and
  signatures), ``scrub_error`` applies them to the message and the parsed body.
"""

from __future__ import annotations

import logging
import re
import ssl
import sys
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator, Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from ..errors import (
    CertificateError,
    ConfigurationError,
    ConnectionError,
    LLMBridgeError,
    MalformedStreamError,
    StreamTruncatedError,
    TimeoutError,
)
from ..http_headers import request_id_from
from ..providers.adapter import auth_of
from ..providers.base import HttpRequest, Provider
from ..secrets import Scrub, named_secrets, scrub_json, secret_scrubber

__all__ = [
    "MAX_ERROR_BODY",
    "SEND_OPTIONS",
    "CheckedAuth",
    "Sleep",
    "auth_for",
    "check_headers",
    "exception_classes",
    "loop_guard",
    "read_error_body",
    "redirect_error",
    "request_scrubber",
    "scrub_error",
    "sent_scrubber",
    "translate",
]

log = logging.getLogger("llmbridge")

MAX_ERROR_BODY = 1024 * 1024
"""Bytes of a non-2xx (or non-SSE) body read to build the error."""

Sleep = Callable[[float], Awaitable[None]]

SEND_OPTIONS: dict[str, Any] = {"stream": True, "follow_redirects": False}
"""How every provider request is sent: streamed, and never redirected (see the rules)."""


def exception_classes(cls: type[BaseException]) -> tuple[type[BaseException], ...]:
    """An httpx exception class and its httpx2 twin, when an app's client uses httpx2."""
    other = sys.modules.get("httpx2")
    twin = getattr(other, cls.__name__, None) if other is not None else None
    if isinstance(twin, type) and issubclass(twin, BaseException):
        return cls, twin
    return (cls,)


def _exception_kind(exc: BaseException) -> str | None:
    """'timeout' / 'connect' / 'read' / 'decode' / 'refused' for an httpx (or httpx2)
    exception."""
    if isinstance(exc, exception_classes(httpx.LocalProtocolError)):  # ours, before sending
        return "refused"
    if isinstance(
        exc, exception_classes(httpx.DecodingError)
    ):  # a corrupt gzip/deflate/brotli body
        return "decode"
    if isinstance(exc, exception_classes(httpx.TimeoutException)):
        return "timeout"
    if isinstance(exc, exception_classes(httpx.ConnectError)):
        return "connect"
    if isinstance(
        exc, exception_classes(httpx.TransportError) + exception_classes(httpx.StreamError)
    ):
        return "read"
    return None


def _certificate_problem(exc: BaseException) -> ssl.SSLCertVerificationError | None:
    """The certificate verification failure behind ``exc`` (httpcore and aiohttp wrap it)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, ssl.SSLCertVerificationError):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _where(url: str) -> str:
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError):
        return "the server"
    port = parsed.port or {"https": 443, "http": 80}.get(parsed.scheme, 0)
    return f"{parsed.host}:{port}"


@contextmanager
def translate(provider: str, url: str, *, midway: bool) -> Iterator[None]:
    try:
        yield
    except LLMBridgeError:
        raise
    except Exception as exc:
        kind = _exception_kind(exc)
        if kind is None:
            raise
        if kind == "refused":
            raise ConfigurationError(
                "the request could not be sent: httpx refused it as malformed "
                f"({type(exc).__name__}), e.g. a header value with a line break or NUL inside "
                "(a key or token read with its trailing newline?); the value is not shown",
                provider=provider,
            ) from None  # its message holds the refused header value
        where = _where(url)
        certificate = _certificate_problem(exc)
        if certificate is not None:
            reason = certificate.verify_message or certificate.reason or "verification failed"
            raise CertificateError(
                f"the TLS certificate of {where} was rejected: {reason}", provider=provider
            ) from exc
        if kind == "timeout" and not (
            midway and isinstance(exc, exception_classes(httpx.ConnectTimeout))
        ):
            what = "no data within the idle (read) timeout" if midway else "request timed out"
            raise TimeoutError(
                f"{what} ({where}): {type(exc).__name__}", provider=provider
            ) from exc
        if kind == "decode":
            raise MalformedStreamError(
                f"the body could not be decoded: {exc}", provider=provider
            ) from exc
        if midway:  # after the status line, a broken connection is a truncated stream
            raise StreamTruncatedError(
                f"the connection to {where} broke midway: {type(exc).__name__}: {exc}",
                provider=provider,
            ) from exc
        if kind == "connect":
            raise ConnectionError(
                f"could not connect to {where}: {exc}", provider=provider
            ) from exc
        raise ConnectionError(
            f"connection to {where} failed: {type(exc).__name__}: {exc}", provider=provider
        ) from exc


_UNSENDABLE = re.compile(b"[\x00-\x08\x0a-\x1f\x7f]")
"""What no HTTP/1.1 header can hold (a tab and obs-text can)."""


def check_headers(headers: httpx.Headers, *, provider: str) -> None:
    """A ``ConfigurationError`` naming the first header whose name or value holds a control
    character (never showing the value)."""
    search = _UNSENDABLE.search
    raw = headers.raw
    if search(b"".join([part for pair in raw for part in pair])) is None:
        return  # the common case: one scan
    for raw_name, raw_value in raw:
        if search(raw_value) or search(raw_name):
            name = raw_name.decode("latin-1")
            raise ConfigurationError(
                f"the request header {name!r} holds a control character (a line break, NUL...) "
                "no HTTP header can carry (a key or token read with its newline?); the value is "
                "not shown",
                provider=provider,
            )


class CheckedAuth(httpx.Auth):
    """An ``httpx.Auth`` whose every request is checked (``check_headers``) before it is sent;
    its ``secrets()`` are the wrapped auth's."""

    def __init__(self, inner: httpx.Auth, *, provider: str) -> None:
        self.inner, self.provider = inner, provider
        self.requires_request_body = inner.requires_request_body
        self.requires_response_body = inner.requires_response_body

    def secrets(self) -> set[str]:
        from ..auth.bearer import auth_secrets

        return auth_secrets(self.inner)

    def sync_auth_flow(
        self, request: httpx.Request
    ) -> Generator[httpx.Request, httpx.Response, None]:
        return self.inner.sync_auth_flow(request)

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        flow = self.inner.async_auth_flow(request)
        try:
            sent = await flow.__anext__()
            while True:
                check_headers(sent.headers, provider=self.provider)
                response = yield sent
                sent = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()


def auth_for(provider: Provider, request: HttpRequest) -> dict[str, Any]:
    """``send``'s ``auth=`` argument: the request's auth, else the provider's, checked
    (``CheckedAuth``; none: the client's own default stays in force)."""
    auth = request.auth if request.auth is not None else auth_of(provider)
    return {} if auth is None else {"auth": CheckedAuth(auth, provider=provider.name)}


def redirect_error(provider: str, response: Any) -> ConfigurationError | None:
    """The error for a redirect answer (3xx with a ``Location``), or ``None`` for any other."""
    status = response.status_code
    location = response.headers.get("location") if 300 <= status < 400 else None
    if location is None:
        return None
    try:
        target = response.request.url.join(location)
        origin = f"{target.scheme}://{target.host}" + (f":{target.port}" if target.port else "")
    except (AttributeError, RuntimeError, httpx.InvalidURL, TypeError):
        origin = "another address"
    return ConfigurationError(
        f"the server answered {status}, a redirect to {origin!r}: llmbridge never follows "
        "redirects on provider calls (a key header would go along to wherever it points); "
        "set base_url to the address that answers",
        provider=provider,
        status=status,
        request_id=request_id_from(response.headers),
    )


@contextmanager
def loop_guard(provider: str) -> Iterator[None]:
    """An app's client whose connections belong to a closed event loop fails at once, typed."""
    try:
        yield
    except RuntimeError as exc:
        if "closed" not in str(exc) or "loop" not in str(exc).lower():
            raise
        raise ConfigurationError(
            "the HTTP client holds connections of an event loop that is closed: make the "
            "httpx.AsyncClient inside the loop that uses it (or let Client() make its own)",
            provider=provider,
        ) from exc


async def read_error_body(response: Any, limit: int = MAX_ERROR_BODY) -> bytes:
    """The body of an error response, at most ``limit`` bytes; what arrived before the
    connection broke, if it did (a 500 cut short is still the 500 it said it was)."""
    pieces: list[bytes] = []
    size = 0
    try:
        async for piece in response.aiter_bytes():
            pieces.append(piece)
            size += len(piece)
            if size >= limit:
                break
    except Exception as exc:
        if _exception_kind(exc) is None:
            raise
        log.debug("llmbridge: error body cut short: %s", type(exc).__name__)
    return b"".join(pieces)[:limit]


def request_scrubber(request: HttpRequest) -> Scrub | None:
    """A scrubber for the secrets ``request`` carries (headers, ``key=``-style query), if any."""
    found = named_secrets(request.headers.items())
    if "?" in request.url:
        try:
            found |= named_secrets(httpx.URL(request.url).params.multi_items())
        except (httpx.InvalidURL, TypeError):  # an unparseable URL fails later, in the send
            pass
    return secret_scrubber(found) if found else None


def sent_scrubber(response: Any, ours: Scrub | None = None, *, auth: Any = None) -> Scrub | None:
    """A scrubber for the secrets of the request as sent (what the app's own client added to
    ours: default ``params`` and headers, an ``httpx.Auth``'s headers) and those ``auth`` knows
    of (``llmbridge.auth`` objects' tokens and signatures), then ``ours``."""
    found: set[str] = set()
    try:
        sent = response.request
        found = named_secrets(sent.headers.multi_items()) | named_secrets(
            sent.url.params.multi_items()
        )
    except (AttributeError, RuntimeError):  # no request on it (a test double)
        pass
    if auth is not None:
        from ..auth.bearer import auth_secrets

        found |= auth_secrets(auth)
    return secret_scrubber(found, ours) if found else ours


def scrub_error(error: LLMBridgeError, scrub: Scrub | None) -> None:
    """Remove the request's secrets from everything the error shows."""
    if scrub is None:
        return
    error.message = scrub(error.message)
    error.provider_message = scrub_json(error.provider_message, scrub)
    error.args = tuple(scrub_json(a, scrub) for a in error.args)
    body = getattr(error, "body", None)
    if body is not None:
        error.body = scrub_json(body, scrub)  # type: ignore[attr-defined]
