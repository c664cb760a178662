"""The response body as httpx-sse reads it (its framing, not ours), with bounds on memory and work.

Rules:

* Framing is httpx-sse's (``EventSource(...).aiter_sse()``, WHATWG rules: CR/LF/CRLF, split
  UTF-8, an event still open at the end of the body is discarded). The text is decoded as
  UTF-8 whatever the ``charset`` says, as the spec requires, with a leading BOM dropped.
* ``BoundedBody`` is what httpx-sse reads: the response's text in pieces of at most
  ``PIECE_BYTES`` (64 KiB) from ``pieces.Pieces``, the byte reader every framing shares (gzip
  and deflate inflated a piece at a time, the loop given a turn between two pieces of one
  read, httpx's generators ended on close). So httpx-sse never holds
  more than one piece's lines, and the reader holds at most one piece besides httpx-sse's own
  buffer of the event in progress.
* Bounds, each a ``MalformedStreamError`` (with the partial response, from the client):
  - ``max_response_bytes`` (``DEFAULT_MAX_RESPONSE_BYTES``, 256 MiB): decompressed bytes of one
    response;
  - ``limit`` (``max_event_bytes``, 16 MiB): what arrives since the last blank line that ended
    an event with content (a data, event, id or comment line). Blank lines that end nothing
    keep counting, so a body of blank lines is bounded like one endless line. Counted in UTF-8
    bytes; the check is per piece (a search from its end), nothing per event. An endless
    line of ASCII peaks within this bound plus a piece (a character that is not ASCII may
    take up to 4 bytes in memory, as Python stores text);
  - a piece of more than 8 KiB holding more than one line end in three characters is refused
    at once (blank or comment lines, not events: the smallest event, ``data:x`` and its blank
    line, takes four characters a line end), before httpx-sse splits it into lines.
* ``record``: the response's record (``record.Record``) is folded when enough events wait in it,
  once per piece (``Record.due``), so its memory follows the content.
* Decoders get ``(event, data)`` with ``event == ""`` for an unnamed event (httpx-sse says
  ``"message"``, the spec's default type).
"""

from __future__ import annotations

import codecs
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import httpx
from httpx_sse import EventSource, ServerSentEvent

from ..errors import MalformedStreamError
from .pieces import PIECE_BYTES, Pieces

if TYPE_CHECKING:
    from .record import Record

__all__ = [
    "DEFAULT_MAX_EVENT_BYTES",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "PIECE_BYTES",
    "BoundedBody",
    "iter_sse",
]

DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024 * 1024
ENCODING = "utf-8-sig"  # UTF-8, a leading byte-order mark dropped (even split across chunks)
_DENSE_FROM = 8 * 1024
_ONE_LINE_END = frozenset({"", "\n", "\r", "\r\n"})


class BoundedBody:
    """The response as httpx-sse reads it (``headers``, ``aiter_text()``), counted."""

    __slots__ = (
        "_open",
        "_pieces",
        "_run",
        "_utf8",
        "headers",
        "limit",
        "max_bytes",
        "pending",
        "provider",
        "read",
        "record",
    )

    def __init__(
        self,
        response: Any,
        *,
        limit: int,
        max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        provider: str | None = None,
        record: Record | None = None,
    ) -> None:
        self._pieces = Pieces(response)
        self._utf8 = codecs.getincrementaldecoder(ENCODING)(errors="replace")
        self.headers = response.headers
        self.limit = limit
        self.max_bytes = max_bytes
        self.read = 0
        """Decoded (decompressed) bytes read so far."""
        self.pending = 0
        """What arrived since the last blank line that ended an event with content."""
        self._open = False  # content arrived since that blank line
        self._run = ""  # the line ends after the last content, when no blank line among them
        self.provider = provider
        self.record = record

    def events(self) -> AsyncIterator[ServerSentEvent]:
        return EventSource(self).aiter_sse()  # type: ignore[arg-type]  # duck-typed response

    def aiter_text(self) -> BoundedBody:
        self._pieces.open()
        return self

    def __aiter__(self) -> BoundedBody:
        return self

    async def __anext__(self) -> str:
        while True:
            piece = await self._pieces.next()
            text = self._decode(piece, final=not piece)
            if text:
                return self._measure(text)
            if not piece:
                raise StopAsyncIteration

    def _decode(self, piece: bytes, *, final: bool) -> str:
        self.read += len(piece)
        if self.read > self.max_bytes:
            raise MalformedStreamError(
                f"the response is larger than {self.max_bytes:,} bytes once decompressed "
                "(max_response_bytes)",
                provider=self.provider,
            )
        return self._utf8.decode(piece, final)

    def _measure(self, text: str) -> str:
        """Count ``text`` against the event bound (module rules); fold the record when due."""
        record = self.record
        if record is not None and record.due():
            record.fold()
        n = len(text)
        if n > _DENSE_FROM:
            ends = text.count("\n") or text.count("\r")
            if 3 * ends > n:
                raise MalformedStreamError(
                    f"a {n:,}-character piece of the body holds {ends:,} line ends: blank or "
                    "comment lines, not events",
                    provider=self.provider,
                )
        ascii = text.isascii()
        if "\r" not in text:  # LF line ends, nearly every stream: found near the end
            end = text.rfind("\n\n")
            if end > 0 and text[end - 1] != "\n":  # content, then a blank line: an event ended
                start = end + 2
                self.pending = n - start if ascii else len(text[start:].encode())
                self._open = n > start
                self._run = "\n" if text[-1] == "\n" else ""
                return text
        else:  # CRLF line ends (Gemini): the same, when the last blank line is a CRLF one
            end = text.rfind("\r\n\r\n")
            if end > 0 and text[end - 1] not in "\r\n":
                # the count restarts inside it, after "\r\n\r" (_blank_end: a CR may still be
                # followed by an LF); ``rest`` is this event's content so far
                start, rest = end + 3, text[end + 4 :]
                if (not rest or rest[0] not in "\r\n") and not (
                    "\n\r" in rest or "\n\n" in rest or "\r\r" in rest
                ):
                    self.pending = n - start if ascii else len(text[start:].encode())
                    self._open = bool(rest)
                    self._run = rest[len(rest.rstrip("\r\n")) :]
                    return text
        self._measure_slowly(text, ascii)
        if self.pending > self.limit:
            raise MalformedStreamError(
                f"no complete event within {self.limit:,} bytes (max_event_bytes): "
                "the body is not a stream of events",
                provider=self.provider,
            )
        return text

    def _measure_slowly(self, text: str, ascii: bool) -> None:
        """CR line ends, blank lines that end nothing, or no blank line in the piece. The
        count restarts after the first blank line (two line ends) that follows content."""
        n = len(text)
        run = self._run  # line ends after the last content so far, no blank line among them
        content = len(text.rstrip("\r\n")) - 1  # the last character of content
        if content < 0:  # line ends only: they end the open event, or they count
            if self._open:
                end = _blank_end(run + text[:4])
                if end >= 0:
                    self.pending, self._open = n - (end - len(run)), False
                    return
                self._run = run + text
            self.pending += n
            return
        end = _blank_end(text[content + 1 :])
        if end >= 0:  # this content's event ended here (what follows is line ends)
            self.pending, self._open = n - content - 1 - end, False
            return
        self._run = text[content + 1 :]
        blank = max(
            text.rfind("\n\n", 0, content),
            text.rfind("\n\r", 0, content),
            text.rfind("\r\r", 0, content),
        )
        start = len(text[:blank].rstrip("\r\n")) if blank >= 0 else 0
        if start > 0:  # content, line ends holding a blank line, then this event's content
            counted = start + _blank_end(text[start : start + 4])
            self.pending = n - counted if ascii else len(text[counted:].encode())
        elif self._open and (end := _blank_end(run + text[:4])) >= 0:
            counted = end - len(run)  # the open event ends in the line ends this one opens with
            self.pending = n - counted if ascii else len(text[counted:].encode())
        else:
            self.pending += n if ascii else len(text.encode())
        self._open = True

    async def aclose(self) -> None:
        """Close the response and end its reader (``pieces.Pieces.aclose``). Idempotent."""
        await self._pieces.aclose()


def _blank_end(text: str) -> int:
    """Where the first blank line (two line ends) of the line ends ``text`` starts with ends,
    or -1; ``"\r\n"`` is one line end, so a blank line holds ``\n\n``, ``\n\r`` or ``\r\r``."""
    ends = text[: len(text) - len(text.lstrip("\r\n"))]
    found = [i for i in (ends.find("\n\n"), ends.find("\n\r"), ends.find("\r\r")) if i >= 0]
    return min(found) + 2 if found else -1


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
