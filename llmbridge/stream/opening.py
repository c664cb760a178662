"""One attempt's send: the request built on the app's (or our) client, the status checked before
any body is read, and the reader of the body its framing names.

Rules:

* The HTTP status is checked *before* any body parsing: a non-2xx response is read whole (at
  most ``sending.MAX_ERROR_BODY``) and handed to ``provider.map_error``; a redirect is a
  ``ConfigurationError`` (``sending.redirect_error``). A 2xx stream whose content type is not
  its framing's is a ``MalformedStreamError`` quoting the start of the body (or the
  provider's error, when the body is a JSON error object).
* One send, one attempt: no hidden resend, even on a broken or odd answer; the attempt loop
  (``transport.run_attempts``) decides, and counts it.
* ``FRAMINGS``: a framing's content type and body reader. ``whole`` (``stream=False``: one
  whole answer, ``whole_body.WholeBody``) asks for JSON and checks no content type (the parse
  decides); its decoder is fed the parsed body once. ``json`` (a plain request: the
  model list, a token count) has neither: its body is read whole (``MAX_JSON_BODY``) and
  parsed by ``read_json``; an answer that is not JSON is a ``MalformedStreamError``.
* On any error the response is closed (shielded) and the secrets of the request as sent are
  scrubbed from the error.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import anyio
import orjson

from ..errors import ConfigurationError, LLMBridgeError, MalformedStreamError
from ..http_headers import request_id_from
from ..providers.base import HttpRequest, Provider
from .aws_eventstream import CONTENT_TYPE as EVENTSTREAM_TYPE
from .aws_eventstream import EventStreamBody
from .bounded import BoundedBody
from .file_bodies import JsonlBody, UploadRequest
from .ndjson import CONTENT_TYPE as NDJSON_TYPE
from .ndjson import NdjsonBody
from .sending import (
    SEND_OPTIONS,
    check_headers,
    loop_guard,
    read_error_body,
    redirect_error,
    scrub_error,
    sent_scrubber,
    translate,
)
from .whole_body import CONTENT_TYPE as WHOLE_TYPE
from .whole_body import WholeBody

__all__ = ["FRAMINGS", "MAX_JSON_BODY", "framing_of", "open_response", "read_json"]

log = logging.getLogger("llmbridge")

MAX_JSON_BODY = 16 * 1024 * 1024
"""Bytes of a JSON answer (a model list) read at most."""

FRAMINGS: dict[str, tuple[str, Callable[..., Any]] | None] = {
    "sse": ("text/event-stream", BoundedBody),
    "aws-eventstream": (EVENTSTREAM_TYPE, EventStreamBody),
    "ndjson": (NDJSON_TYPE, NdjsonBody),
    "whole": (WHOLE_TYPE, WholeBody),
    "json": None,
    "json-answer": None,
    "jsonl": ("", JsonlBody),
}
"""A framing → (the content type its 2xx body has, the reader of that body); ``None``: one
whole JSON answer (``read_json``; ``json-answer``: with its head, ``answer.read_answer``);
``jsonl``: a file's lines, any content type."""


def framing_of(name: str, provider: str) -> tuple[str, Callable[..., Any]] | None:
    try:
        return FRAMINGS[name]
    except KeyError:
        raise ConfigurationError(
            f"unknown framing {name!r} (known: {', '.join(FRAMINGS)})", provider=provider
        ) from None


async def open_response(
    http: Any,
    provider: Provider,
    request: HttpRequest,
    *,
    timeout: Any,
    content_type: str | None,
    auth: dict[str, Any],
) -> Any:
    """Send ``request`` once and return the 2xx response, its body unread (module rules)."""
    extra = {} if timeout is None else {"timeout": timeout}
    headers = request.headers
    if content_type is not None and not any(name.lower() == "accept" for name in headers):
        headers = {"accept": content_type, **headers}
    body = request.upload_body() if isinstance(request, UploadRequest) else request.body_bytes()
    built = http.build_request(
        request.method,
        request.url,
        headers=headers,
        content=body if content_type is not None else (body or None),
        **extra,
    )
    check_headers(built.headers, provider=provider.name)
    log.debug("llmbridge: %s %s", request.method, request.url.partition("?")[0])  # no key=
    # httpcore itself drops a pooled connection the server closed while it was idle before
    # writing a byte to it (the one resend that cannot run a request twice).
    with translate(provider.name, request.url, midway=False), loop_guard(provider.name):
        response = await http.send(built, **SEND_OPTIONS, **auth)
    try:
        if not 200 <= response.status_code < 300:
            redirect = redirect_error(provider.name, response)
            if redirect is not None:
                raise redirect
            with translate(provider.name, request.url, midway=False):
                body = await read_error_body(response)
            raise provider.map_error(
                status=response.status_code, headers=response.headers, body=body
            )
        ctype = response.headers.get("content-type", "")
        if content_type is not None and content_type != WHOLE_TYPE and content_type not in ctype:
            with translate(provider.name, request.url, midway=False):
                body = await read_error_body(response)
            raise _not_a_stream(provider, response, ctype, body)
    except BaseException as exc:
        if isinstance(exc, LLMBridgeError):
            scrub_error(exc, sent_scrubber(response, auth=auth.get("auth")))
        with anyio.CancelScope(shield=True):
            await response.aclose()
        raise
    return response


def _not_a_stream(provider: Provider, response: Any, ctype: str, body: bytes) -> LLMBridgeError:
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


async def read_json(response: Any, *, provider: str, url: str) -> Any:
    """The parsed JSON answer of a 2xx ``response`` (at most ``MAX_JSON_BODY`` bytes)."""
    with translate(provider, url, midway=False):
        body = await read_error_body(response, limit=MAX_JSON_BODY + 1)
    try:
        if len(body) > MAX_JSON_BODY:
            raise ValueError(f"over {MAX_JSON_BODY:,} bytes")
        return orjson.loads(body)
    except ValueError as exc:  # orjson.JSONDecodeError included
        raise MalformedStreamError(
            f"expected a JSON answer from {url.split('?')[0]} ({exc}): "
            f"{body[:200].decode('utf-8', 'replace')!r}",
            provider=provider,
            status=response.status_code,
            request_id=request_id_from(response.headers),
        ) from None
