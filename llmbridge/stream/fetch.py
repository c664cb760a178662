"""One plain (non-streamed) JSON request through the same IO rules as a stream.

For the model list and token counts: the client from the pool, typed errors through the
provider's ``map_error``, retries of retryable errors, the secrets of the request as sent
scrubbed from errors (the app's own client's ``params`` and headers too), a bounded body
(``MAX_JSON_BODY``), and no redirect followed (``sending.SEND_OPTIONS``); an answer that is not
JSON is a ``MalformedStreamError`` naming what came.
"""

from __future__ import annotations

from typing import Any

import anyio
import orjson

from ..errors import LLMBridgeError, MalformedStreamError
from ..http_headers import request_id_from
from ..providers.base import HttpRequest, Provider
from .clients import HttpPool
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

__all__ = ["MAX_JSON_BODY", "fetch_json"]


MAX_JSON_BODY = 16 * 1024 * 1024
"""Bytes of a JSON answer (a model list) read at most."""


async def fetch_json(
    *,
    http: Any,
    provider: Provider,
    request: HttpRequest,
    retry: RetryPolicy,
    timeout: Any = None,
    sleep: Sleep = anyio.sleep,
) -> Any:
    """Send one plain (non-streamed) request and return its parsed JSON answer.

    The same rules as a stream: typed errors through ``provider.map_error``, retries of
    retryable errors, secrets scrubbed; a body that is not JSON (or over ``MAX_JSON_BODY``)
    is a ``MalformedStreamError`` naming what came.
    """
    pool = http if isinstance(http, HttpPool) else HttpPool(http)
    scrub = request_scrubber(request)
    auth = auth_for(provider, request)
    extra = {} if timeout is None else {"timeout": timeout}
    attempt = 0
    while True:
        attempt += 1
        shards = pool.for_loop()
        shard = shards.acquire()
        try:
            built = shards.clients[shard].build_request(
                request.method,
                request.url,
                headers=request.headers,
                content=request.body_bytes() or None,
                **extra,
            )
            check_headers(built.headers, provider=provider.name)
            with translate(provider.name, request.url, midway=False), loop_guard(provider.name):
                response = await shards.clients[shard].send(built, **SEND_OPTIONS, **auth)
                # the app's client's secrets and the auth's tokens too
                scrub = sent_scrubber(response, scrub, auth=auth.get("auth"))
                try:
                    body = await read_error_body(response, limit=MAX_JSON_BODY + 1)
                finally:
                    await response.aclose()
            if not 200 <= response.status_code < 300:
                raise redirect_error(provider.name, response) or provider.map_error(
                    status=response.status_code, headers=response.headers, body=body
                )
            try:
                if len(body) > MAX_JSON_BODY:
                    raise ValueError(f"over {MAX_JSON_BODY:,} bytes")
                return orjson.loads(body)
            except ValueError as exc:  # orjson.JSONDecodeError included
                raise MalformedStreamError(
                    f"expected a JSON answer from {request.url.split('?')[0]} ({exc}): "
                    f"{body[:200].decode('utf-8', 'replace')!r}",
                    provider=provider.name,
                    status=response.status_code,
                    request_id=request_id_from(response.headers),
                ) from None
        except LLMBridgeError as exc:
            scrub_error(exc, scrub)
            delay = retry.delay(attempt=attempt, error=exc)
            if delay is None:
                if exc.provider is None:
                    exc.provider = provider.name
                raise
        finally:
            shards.release(shard)
        await sleep(delay)
