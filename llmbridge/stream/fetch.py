"""One plain (non-streamed) JSON request: a non-streaming reader of the one attempt loop.

For the model list, token counts and a background response's cancel request: the request is
a ``Prepared`` of framing ``json`` sent by ``transport.run_attempts``, so it keeps every rule a
stream keeps (the client from the pool, typed errors through the provider's ``map_error``,
retries of retryable errors with ``Retry-After``, ``max_attempts``, the call's deadline — a
retry that would wait past it is a ``TimeoutError`` at once —, the secrets of the request as
sent scrubbed from errors, no redirect followed); its body is bounded (``MAX_JSON_BODY``) and
an answer that is not JSON is a ``MalformedStreamError`` naming what came. ``fetch_answer`` is
the same request returning the ``answer.Answer``: status, headers (the request id, a vendor's
token counts) and the body's bytes, for a caller that reads the body its own way.
``answer_with`` / ``json_with`` are the two under a call's whole ``CallConfig``.
"""

from __future__ import annotations

from typing import Any, NoReturn

import anyio

from ..providers.base import HttpRequest, Provider
from ..providers.prepared import Framing, Prepared
from .answer import Answer
from .call import CallConfig
from .deadline import Deadline
from .opening import MAX_JSON_BODY
from .retry import RetryPolicy
from .sending import Sleep
from .transport import run_attempts

__all__ = ["MAX_JSON_BODY", "answer_with", "fetch_answer", "fetch_json", "json_with"]


def _no_decoder() -> NoReturn:  # a JSON answer is parsed whole, never fed to a decoder
    raise AssertionError("a plain JSON request has no decoder")


async def fetch_json(
    *,
    http: Any,
    provider: Provider,
    request: HttpRequest,
    retry: RetryPolicy,
    timeout: Any = None,
    sleep: Sleep = anyio.sleep,
    deadline: Deadline | None = None,
    during: str = "sending",
) -> Any:
    """Send one plain (non-streamed) request and return its parsed JSON answer (module rules;
    ``deadline``: the call's total budget, its retries and their waits included; ``during``:
    what its ``TimeoutError`` says the call was doing)."""
    config = CallConfig(http=http, retry=retry, timeout=timeout, deadline=deadline, sleep=sleep)
    return await _first_answer(request, "json", provider, config, during)


async def fetch_answer(
    *,
    http: Any,
    provider: Provider,
    request: HttpRequest,
    retry: RetryPolicy,
    timeout: Any = None,
    sleep: Sleep = anyio.sleep,
    deadline: Deadline | None = None,
    during: str = "sending",
) -> Answer:
    """``fetch_json`` (the same keywords and rules) returning the whole ``Answer``: status,
    headers and the body's bytes, unparsed."""
    config = CallConfig(http=http, retry=retry, timeout=timeout, deadline=deadline, sleep=sleep)
    answer: Answer = await _first_answer(request, "json-answer", provider, config, during)
    return answer


async def answer_with(
    config: CallConfig, provider: Provider, request: HttpRequest, during: str = "sending"
) -> Answer:
    """``fetch_answer`` under a call's whole ``CallConfig`` (a batch job's, an upload's)."""
    answer: Answer = await _first_answer(request, "json-answer", provider, config, during)
    return answer


async def json_with(
    config: CallConfig, provider: Provider, request: HttpRequest, during: str = "sending"
) -> Any:
    """``fetch_json`` under a call's whole ``CallConfig``."""
    return await _first_answer(request, "json", provider, config, during)


async def _first_answer(
    request: HttpRequest, framing: Framing, provider: Provider, config: CallConfig, during: str
) -> Any:
    """What the attempt loop yields for a plain request read with ``framing`` (its one item)."""
    prepared = Prepared(http=request, new_decoder=_no_decoder, framing=framing)
    answers = run_attempts(prepared, provider=provider, config=config, during=during)
    try:
        async for answer in answers:
            return answer
    finally:
        await answers.aclose()  # type: ignore[attr-defined]
    raise AssertionError("the attempt loop ended without an answer")  # pragma: no cover
