"""The response body as httpx-sse reads it (its framing, not ours), with a bound on memory.

Rules:

* Framing is httpx-sse's (``EventSource(...).aiter_sse()``, WHATWG rules: CR/LF/CRLF, split
  UTF-8, an event still open at the end of the body is discarded). The text is decoded as
  UTF-8 whatever the ``charset`` says, as the spec requires, with a leading BOM dropped.
* ``BoundedBody`` is what httpx-sse reads: the response's text, counted since the last blank
  line (the end of an event: two line ends in a row, ``\r\n`` being one). Once more than
  ``limit`` characters arrive without one (a body of endless comment lines, one endless line,
  a gzip bomb), reading stops with ``MalformedStreamError``: memory stays within ``limit`` plus
  one chunk. The check is per chunk (a search from its end), nothing per event.
* Decoders get ``(event, data)`` with ``event == ""`` for an unnamed event (httpx-sse says
  ``"message"``, the spec's default type).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

import anyio
import httpx
from httpx_sse import EventSource, ServerSentEvent

from ..errors import MalformedStreamError

__all__ = ["DEFAULT_MAX_EVENT_BYTES", "BoundedBody", "iter_sse"]

DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024
ENCODING = "utf-8-sig"  # UTF-8, a leading byte-order mark dropped (even split across chunks)
_BLANK_LINES = frozenset({"\n\n", "\n\r", "\r\r"})
"""Two line ends in a row ("\r\n" is one line end, so "\r\n\r\n" holds "\n\r")."""


class BoundedBody:
    """The response as httpx-sse reads it (``headers``, ``aiter_text()``), counted."""

    __slots__ = ("_last", "_response", "_texts", "headers", "limit", "pending", "provider")

    def __init__(self, response: Any, *, limit: int, provider: str | None = None) -> None:
        self._response = response
        self._texts: AsyncIterator[str] | None = None
        self.headers = response.headers
        self.limit = limit
        self.pending = 0
        """Characters received since the last blank line."""
        self._last = ""  # the previous chunk's last character: a blank line may straddle two
        self.provider = provider

    def events(self) -> AsyncIterator[ServerSentEvent]:
        return EventSource(self).aiter_sse()  # type: ignore[arg-type]  # duck-typed response

    def aiter_text(self) -> BoundedBody:
        self._response.encoding = ENCODING
        self._texts = self._response.aiter_text()
        return self

    def __aiter__(self) -> BoundedBody:
        return self

    async def __anext__(self) -> str:
        if self._texts is None:  # read to the end, or closed
            raise StopAsyncIteration
        try:
            text = await self._texts.__anext__()
        except StopAsyncIteration:
            self._texts = None  # read to the end: nothing left to close but the response
            raise
        last, self._last = self._last, text[-1:]
        if "\r" in text:  # CR or CRLF line ends (Gemini): the blank line is "\n\r" or "\r\r"
            end = text.rfind("\n\r")  # found near the end in a CRLF stream; the other two
            end = max(end, text.rfind("\n\n", end + 1), text.rfind("\r\r", end + 1))  # after it
        else:  # LF line ends, nearly every stream: found near the end, events are small
            end = text.rfind("\n\n")
        if end >= 0:
            self.pending = len(text) - end - 2
        elif last + text[:1] in _BLANK_LINES:  # a blank line split across two chunks
            self.pending = len(text) - 1
        else:
            self.pending += len(text)
        if self.pending > self.limit:
            raise MalformedStreamError(
                f"no complete event within {self.limit:,} bytes (max_event_bytes): "
                "the body is not a stream of events",
                provider=self.provider,
            )
        return text

    async def aclose(self) -> None:
        """Close the response, then end its reader: httpx reads through a chain of async
        generators, and one abandoned mid-way warns under trio (ResourceWarning). One more
        step on the closed response ends the chain; a body that would wait instead is
        cancelled at once (a deadline of zero), which ends it too."""
        texts, self._texts = self._texts, None
        await self._response.aclose()
        if texts is None:
            return
        with anyio.move_on_after(0):
            try:
                await texts.__anext__()
            except Exception:  # the end, or the closed stream's error: either way it is over
                return
        aclose = getattr(texts, "aclose", None)
        if aclose is not None:
            await aclose()


def iter_sse(body: bytes | Iterable[bytes]) -> Iterator[tuple[str, str]]:
    """The ``(event, data)`` pairs of an SSE body (bytes, or chunks split anywhere), read by
    httpx-sse exactly as the client reads a live response. For tests and decoder authors."""
    chunks = [body] if isinstance(body, bytes) else body
    response = httpx.Response(
        200, headers={"content-type": "text/event-stream"}, content=iter(chunks)
    )
    response.encoding = ENCODING
    for sse in EventSource(response).iter_sse():
        kind = sse.event
        yield ("" if kind == "message" else kind), sse.data
