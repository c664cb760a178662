"""``parsed`` on batch results: each request's ``response_format``, noted as it is submitted,
validates its result as ``complete()`` validates a reply.

Rules: ``Formats`` keeps what each request asked for without one entry per request when they
share it (the first request's target is the default; only the requests that differ from it are
kept by id), and turns a target into a ``ResponseFormat`` once (``response_format_of``). It lives
on the ``BatchJob`` in the process that submitted it, never in ``to_json()`` (a pydantic model
is no JSON): a reopened job's results are parsed with ``batch_results(job,
response_format=...)``. A result that succeeded gets ``response.parsed``
(``structured.parse_response``, the same as ``complete()``); one whose text does not validate
becomes ``errored`` with the ``StructuredOutputError`` (its ``partial`` the response).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable
from typing import Any

from ..errors import StructuredOutputError
from ..request import ResponseFormat
from ..structured import parse_response, response_format_of
from .types import BatchRequest, BatchResult

__all__ = ["Formats", "noted", "parsed"]

_NONE = object()


class Formats:
    """Each request's ``response_format`` target (module rules)."""

    __slots__ = ("_by_id", "_default", "_made")

    def __init__(self) -> None:
        self._default: Any = _NONE
        self._by_id: dict[str, Any] = {}
        self._made: dict[int, tuple[Any, ResponseFormat]] = {}

    def add(self, request_id: str, target: Any) -> None:
        if self._default is _NONE:
            self._default = target
        elif target is not self._default and not _same(target, self._default):
            self._by_id[request_id] = target

    def __bool__(self) -> bool:
        """Whether any request asked for a format."""
        return (self._default not in (_NONE, None)) or any(
            t is not None for t in self._by_id.values()
        )

    def of(self, request_id: str) -> ResponseFormat | None:
        """The format ``request_id`` asked for (``None``: none)."""
        target = self._by_id.get(request_id, self._default)
        if target is None or target is _NONE:
            return None
        made = self._made.get(id(target))
        if made is None:  # the target is kept in the entry, so its id stays its own
            made = self._made[id(target)] = (target, response_format_of(target))
        return made[1]


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(type(a) is type(b) and isinstance(a, dict | str) and a == b)
    except Exception:  # pragma: no cover - a target whose == fails is simply kept
        return False


async def noted(
    requests: Iterable[BatchRequest] | AsyncIterable[BatchRequest], formats: Formats
) -> AsyncIterator[BatchRequest]:
    """``requests``, each one's ``response_format`` noted in ``formats`` as it goes by."""
    if isinstance(requests, AsyncIterable):
        async for request in requests:
            if isinstance(request, BatchRequest):
                formats.add(request.id, request.options.get("response_format"))
            yield request
    else:
        for request in requests:
            if isinstance(request, BatchRequest):
                formats.add(request.id, request.options.get("response_format"))
            yield request


def parsed(result: BatchResult, fmt: ResponseFormat | None, *, provider: str) -> BatchResult:
    """``result`` with its response's ``parsed`` value (module rules)."""
    response = result.response
    if fmt is None or response is None or result.status != "succeeded":
        return result
    try:
        response.parsed = parse_response(response, fmt, provider=provider)
    except StructuredOutputError as exc:
        return BatchResult(result.id, "errored", None, exc)
    return result
