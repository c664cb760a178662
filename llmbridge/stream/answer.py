"""A plain request's whole answer with its head: status, headers and the body's bytes.

Rules: what ``fetch.fetch_answer`` returns (a ``Prepared`` of framing ``json-answer``; the
attempt loop reads it here, as ``opening.read_json`` reads a ``json`` one, bounded by
``MAX_JSON_BODY``). The body stays bytes, so a caller can read it its own way (the embedding
decoder scans base64 vectors out of it without a parsed copy); ``json()`` parses it, an answer
that is not JSON being a ``MalformedStreamError`` naming what came. ``request_id`` is read from
the headers (``x-request-id`` and the vendors' own names).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..errors import MalformedStreamError
from ..http_headers import request_id_from
from .opening import MAX_JSON_BODY
from .sending import read_error_body, translate

__all__ = ["Answer", "read_answer"]


@dataclass(frozen=True, slots=True)
class Answer:
    """One 2xx answer: ``status``, ``headers`` (case-insensitive), the raw ``body``."""

    status: int
    headers: Mapping[str, str] = field(repr=False)
    body: bytes = field(repr=False)
    provider: str = ""
    url: str = field(default="", repr=False)

    @property
    def request_id(self) -> str | None:
        """The provider's request id from the headers, when it sent one."""
        return request_id_from(self.headers)

    def json(self) -> Any:
        """The body parsed (a ``MalformedStreamError`` when it is not JSON)."""
        try:
            return orjson.loads(self.body)
        except orjson.JSONDecodeError as exc:
            raise self.malformed(str(exc)) from None

    def malformed(self, why: str) -> MalformedStreamError:
        """The error of a body that cannot be read (``why``), naming what came."""
        return MalformedStreamError(
            f"expected a JSON answer from {self.url.split('?')[0]} ({why}): "
            f"{self.body[:200].decode('utf-8', 'replace')!r}",
            provider=self.provider,
            status=self.status,
            request_id=self.request_id,
        )


async def read_answer(response: Any, *, provider: str, url: str) -> Answer:
    """The ``Answer`` of a 2xx ``response`` (at most ``MAX_JSON_BODY`` bytes)."""
    with translate(provider, url, midway=False):
        body = await read_error_body(response, limit=MAX_JSON_BODY + 1)
    answer = Answer(response.status_code, response.headers, body, provider, url)
    if len(body) > MAX_JSON_BODY:
        raise answer.malformed(f"over {MAX_JSON_BODY:,} bytes")
    return answer
