"""Replay recorded fixtures through a real ``Client``, offline.

``ReplayTransport`` is an ``httpx.AsyncBaseTransport``: each incoming request is matched to the
next unplayed fixture and checked against what was recorded (method, URL, JSON body, and the
recorded headers — redacted ones only for presence); a mismatch raises ``ReplayMismatch`` with a
readable diff that names each differing field (``match_ignore``: body fields that may
differ, ``llmbridge.testing.matching``). The body is served at its recorded chunk boundaries,
or re-split with ``chunk_size``. A fixture whose recorded attempt failed (``Fixture.error``: a read timeout, a
dropped connection) fails the same way at the same place: its body, then the same httpx error
(before any answer when ``status`` is 0). The pieces of a split embedding call are served by what they ask
(``embed_cassettes.pick``), in any order. With ``strict=True``, ``assert_all_played()`` (also run on ``aclose``) fails
when a recorded interaction was never requested.
"""

from __future__ import annotations

import difflib
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx
import orjson

from .embed_cassettes import pick
from .fixtures import Fixture, load_fixture
from .matching import field_diff, without_ignored
from .redact import REDACTED, redact_url

__all__ = ["ReplayMismatch", "ReplayTransport", "replay_client"]


class ReplayMismatch(AssertionError):
    """The request the code built is not the one recorded."""


class _Body(httpx.AsyncByteStream):
    def __init__(self, chunks: list[bytes], error: httpx.TransportError | None = None) -> None:
        self._chunks = chunks
        self._error = error

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._chunks:
            yield chunk
        if self._error is not None:  # the recorded attempt failed here
            raise self._error


def _recorded_error(fixture: Fixture, request: httpx.Request) -> httpx.TransportError | None:
    """The transport error the recorded attempt ended in (``Fixture.error``), made again."""
    if fixture.error is None:
        return None
    kind = getattr(httpx, fixture.error, None)
    if not (isinstance(kind, type) and issubclass(kind, httpx.TransportError)):
        kind = httpx.TransportError
    return kind(f"replayed: the recorded attempt ended in {fixture.error}", request=request)


def _pretty(data: Any) -> list[str]:
    return (
        orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode().splitlines()
    )


class ReplayTransport(httpx.AsyncBaseTransport):
    def __init__(
        self,
        fixtures: Fixture | str | Path | Sequence[Fixture | str | Path],
        *,
        strict: bool = True,
        check_request: bool = True,
        chunk_size: int | None = None,
        match_ignore: Sequence[str] = (),
    ) -> None:
        items = (
            fixtures
            if isinstance(fixtures, Sequence) and not isinstance(fixtures, str)
            else [fixtures]
        )
        self.fixtures = [f if isinstance(f, Fixture) else load_fixture(f) for f in items]
        self.strict = strict
        self.check_request = check_request
        self.chunk_size = chunk_size
        self.match_ignore = list(match_ignore)
        """Body fields that may differ (``llmbridge.testing.matching``)."""
        self.played = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.played >= len(self.fixtures):
            raise ReplayMismatch(
                f"unexpected request {request.method} {redact_url(str(request.url))}: "
                f"all {len(self.fixtures)} recorded interactions were already played"
            )
        if self.check_request:
            await request.aread()
            pick(self.fixtures, self.played, request)  # an embedding call's concurrent pieces
        fixture = self.fixtures[self.played]
        self.played += 1
        if self.check_request:
            self._check(fixture, request)
        error = _recorded_error(fixture, request)
        if error is not None and not fixture.status:  # it failed before any answer came
            raise error
        chunks = fixture.body_chunks()
        if self.chunk_size:
            body, size = fixture.body, self.chunk_size
            chunks = [body[i : i + size] for i in range(0, len(body), size)]
        return httpx.Response(fixture.status, headers=fixture.headers, stream=_Body(chunks, error))

    def _check(self, fixture: Fixture, request: httpx.Request) -> None:
        recorded = fixture.http_request
        problems: list[str] = []
        if request.method != recorded.get("method"):
            problems.append(f"method: sent {request.method}, recorded {recorded.get('method')}")
        url = redact_url(str(request.url))
        if url != recorded.get("url"):
            problems.append(f"url: sent {url}, recorded {recorded.get('url')}")
        for name, value in recorded.get("headers", {}).items():
            sent = request.headers.get(name)
            if sent is None:
                problems.append(f"header {name!r}: recorded but not sent")
            elif value != REDACTED and sent != value:
                problems.append(f"header {name!r}: sent {sent!r}, recorded {value!r}")
        try:
            body = orjson.loads(request.content) if request.content else None
        except orjson.JSONDecodeError:
            body = request.content.decode("utf-8", "replace")
        expected = without_ignored(recorded.get("body"), self.match_ignore)
        body = without_ignored(body, self.match_ignore)
        if body != expected:
            fields = field_diff(expected, body)
            diff = difflib.unified_diff(
                _pretty(expected), _pretty(body), "recorded", "sent", lineterm=""
            )
            problems.append("body differs:\n" + "\n".join([*fields, *diff]))
        if problems:
            raise ReplayMismatch(
                f"request does not match fixture {fixture.name}:\n" + "\n".join(problems)
            )

    def assert_all_played(self) -> None:
        if self.played < len(self.fixtures):
            names = ", ".join(f.name for f in self.fixtures[self.played :])
            raise ReplayMismatch(f"recorded interactions never played: {names}")

    async def aclose(self) -> None:
        if self.strict:
            self.assert_all_played()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None = None,
        exc_value: BaseException | None = None,
        traceback: TracebackType | None = None,
    ) -> None:
        if exc_type is None:  # an exception already on its way says more than "never played"
            await self.aclose()


def replay_client(
    fixtures: Fixture | str | Path | Sequence[Fixture | str | Path], **options: Any
) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` serving ``fixtures`` (pass it as ``Client(http_client=...)``)."""
    return httpx.AsyncClient(transport=ReplayTransport(fixtures, **options))
