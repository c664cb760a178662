"""The response body as httpx-sse reads it (its framing, not ours), with bounds on memory and work.

Rules:

* Framing is httpx-sse's (``EventSource(...).aiter_sse()``, WHATWG rules: CR/LF/CRLF, split
  UTF-8, an event still open at the end of the body is discarded). The text is decoded as
  UTF-8 whatever the ``charset`` says, as the spec requires, with a leading BOM dropped.
* ``BoundedBody`` is what httpx-sse reads: the response's text in pieces of at most
  ``PIECE_BYTES`` (64 KiB). A gzip or deflate body is inflated here a piece at a time (zlib's
  ``max_length``), never a whole network read at once (65 KB of gzip is 64 MB of text); other
  encodings (br, zstd) are decoded by httpx, then cut into pieces. So httpx-sse never holds
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
import zlib
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import anyio
import httpx
from httpx_sse import EventSource, ServerSentEvent

from ..errors import MalformedStreamError

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
PIECE_BYTES = 64 * 1024
"""Decoded bytes handed to httpx-sse at once, at most."""
ENCODING = "utf-8-sig"  # UTF-8, a leading byte-order mark dropped (even split across chunks)
_DENSE_FROM = 8 * 1024
_ONE_LINE_END = frozenset({"", "\n", "\r", "\r\n"})
_INFLATED = {"gzip": zlib.MAX_WBITS | 16, "x-gzip": zlib.MAX_WBITS | 16, "deflate": zlib.MAX_WBITS}


class _Inflate:
    """A gzip or deflate body undone a piece at a time (httpx's decoders take a whole read)."""

    __slots__ = ("_raw_deflate", "_z")

    def __init__(self, wbits: int) -> None:
        self._z = zlib.decompressobj(wbits)
        self._raw_deflate = wbits == zlib.MAX_WBITS  # deflate: zlib-wrapped, else raw (as httpx)

    def take(self, data: bytes) -> tuple[bytes, bytes, bool]:
        """At most ``PIECE_BYTES`` of output, the input left, and whether output may still wait
        inside zlib with no input left (a full piece came out)."""
        try:
            out = self._z.decompress(data, PIECE_BYTES)
        except zlib.error as exc:
            if not self._raw_deflate:
                raise httpx.DecodingError(str(exc)) from exc
            self._raw_deflate = False  # deflate without its zlib header, as some servers send
            self._z = zlib.decompressobj(-zlib.MAX_WBITS)
            return self.take(data)
        self._raw_deflate = False
        rest = self._z.unconsumed_tail
        return out, rest, not rest and len(out) == PIECE_BYTES and not self._z.eof

    def flush(self) -> bytes:
        try:
            return self._z.flush()
        except zlib.error as exc:  # pragma: no cover - zlib reports corruption in take()
            raise httpx.DecodingError(str(exc)) from exc


class BoundedBody:
    """The response as httpx-sse reads it (``headers``, ``aiter_text()``), counted."""

    __slots__ = (
        "_inflate",
        "_left",
        "_more",
        "_open",
        "_raw",
        "_response",
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
        self._response = response
        self._raw: AsyncIterator[bytes] | None = None
        self._inflate: _Inflate | None = None
        self._left = b""
        self._more = False  # inflated output may still wait inside zlib
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
        encodings = self._response.headers.get_list("content-encoding", split_commas=True)
        codings = [c.strip().lower() for c in encodings if c.strip().lower() != "identity"]
        if getattr(self._response, "is_stream_consumed", False):  # read already (mocks)
            self._raw = self._response.aiter_bytes()  # decoded in memory: cut into pieces
        elif not codings:
            self._raw = self._response.aiter_raw()
        elif len(codings) == 1 and codings[0] in _INFLATED:
            self._raw = self._response.aiter_raw()
            self._inflate = _Inflate(_INFLATED[codings[0]])
        else:  # br, zstd, several: httpx decodes (a whole read at once), cut into pieces here
            self._raw = self._response.aiter_bytes()
        return self

    def __aiter__(self) -> BoundedBody:
        return self

    async def __anext__(self) -> str:
        while True:
            data = self._left
            if not data and not self._more:
                raw = self._raw
                if raw is None:  # read to the end, or closed
                    raise StopAsyncIteration
                try:
                    self._left = await raw.__anext__()
                except StopAsyncIteration:
                    self._raw = None  # read to the end: nothing left to close but the response
                    tail = self._inflate.flush() if self._inflate is not None else b""
                    text = self._decode(tail, final=True)
                    if text:
                        return self._measure(text)
                    raise
                continue
            if self._inflate is not None:
                piece, self._left, self._more = self._inflate.take(data)
            else:
                piece, self._left = data[:PIECE_BYTES], data[PIECE_BYTES:]
            text = self._decode(piece, final=False)
            if text:
                return self._measure(text)

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
        """Close the response, then end its reader: httpx reads through a chain of async
        generators, and one abandoned mid-way warns under trio (ResourceWarning). One more
        step on the closed response ends the chain; a body that would wait instead is
        cancelled at once (a deadline of zero), which ends it too."""
        texts, self._raw = self._raw, None
        self._left, self._more = b"", False
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
