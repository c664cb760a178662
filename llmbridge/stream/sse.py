"""Server-sent events framing: bytes in, ``(event, data)`` pairs out. Sans-IO, linear.

Rules (WHATWG HTML, "Interpreting an event stream"):

* Lines end in ``\\r\\n``, ``\\n`` or ``\\r``, and either may be split across chunks; a leading
  UTF-8 BOM is dropped; text is UTF-8, invalid bytes become U+FFFD (multi-byte characters
  split across chunks are whole, since framing happens on bytes and newline bytes never occur
  inside a UTF-8 sequence).
* A blank line dispatches the event, if it has at least one ``data`` line: ``data`` lines are
  joined with ``\\n``; ``event`` names it (``""`` when unnamed, the spec's default type
  ``message``). Comment lines (``:``) and other fields (``id``, ``retry``, unknown) are skipped:
  no provider here resumes streams.
* At the end of the body an event still open (no blank line yet) is discarded, as the spec
  says and httpx-sse does: a body can end between two ``data`` lines of one event, so the
  lines seen are not known to be the whole event. The provider decoder's ``close()`` then
  decides whether the stream was complete (e.g. a final ``data: [DONE]`` without its blank
  line loses nothing, since the finish came before it) or truncated.
* Every byte is scanned a bounded number of times: chunks are searched for the ``\\n\\n``
  separator on arrival, and an event split across many chunks is joined once.

One parser for the client and for tests (``llmbridge.testing.SSEParser`` is this class);
``tests/test_sse.py`` holds it to the spec and to httpx-sse on any input split anywhere,
and on every recorded stream in the corpus.
"""

from __future__ import annotations

__all__ = ["SSEParser"]

_BOM = b"\xef\xbb\xbf"


class SSEParser:
    """``feed(chunk)`` → completed ``(event, data)`` pairs; ``close()`` flushes at end of body."""

    __slots__ = ("_cr", "_lf", "_pending", "_start")

    def __init__(self) -> None:
        self._pending: list[bytes] = []  # pieces of the event being received (no separator yet)
        self._lf = (
            False  # the pending bytes end in "\n": a "\n" first in the next chunk ends the event
        )
        self._cr = False  # the last chunk ended in "\r": a "\n" first in the next one is its pair
        self._start: bytes | None = b""  # the first bytes, held while they may be a partial BOM

    def feed(self, chunk: bytes) -> list[tuple[str, str]]:
        if self._start is not None:
            chunk = self._start + chunk
            if len(chunk) < 3 and _BOM.startswith(chunk):
                self._start = chunk
                return []
            self._start = None
            if chunk[:3] == _BOM:
                chunk = chunk[3:]
        if self._cr and chunk[:1] == b"\n":
            chunk = chunk[1:]
            self._cr = False
        if not chunk:
            return []
        self._cr = False
        if b"\r" in chunk:
            self._cr = chunk[-1] == 13
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        pending = self._pending
        if pending:
            if self._lf and chunk[0] == 10:  # the separator straddles the two chunks
                cut, skip = 0, 1
            else:
                cut, skip = chunk.find(b"\n\n"), 2
                if cut < 0:
                    pending.append(chunk)
                    self._lf = chunk[-1] == 10
                    return []
            pending.append(chunk[:cut])
            first = b"".join(pending)
            pending.clear()
            blocks = chunk[cut + skip :].split(b"\n\n")
            blocks.insert(0, first)
        else:
            blocks = chunk.split(b"\n\n")
        rest = blocks.pop()
        if rest:
            pending.append(rest)
            self._lf = rest[-1] == 10
        out: list[tuple[str, str]] = []
        for block in blocks:
            # Fast paths: one ``data:`` line, or ``event:`` then ``data:`` (most providers).
            if block[:6] == b"data: " and b"\n" not in block:
                out.append(("", block[6:].decode("utf-8", "replace")))
                continue
            if block[:7] == b"event: ":
                name, sep, data = block.partition(b"\n")
                if sep and data[:6] == b"data: " and b"\n" not in data:
                    out.append(
                        (name[7:].decode("utf-8", "replace"), data[6:].decode("utf-8", "replace"))
                    )
                    continue
            event = _event(block)
            if event is not None:
                out.append(event)
        return out

    def close(self) -> list[tuple[str, str]]:
        """End of body: an event without its blank line is discarded (see the rules)."""
        self._pending.clear()
        return []


def _event(block: bytes) -> tuple[str, str] | None:
    """The event of one block of lines (no blank line inside, leading newlines allowed)."""
    name = ""
    data: list[str] | None = None
    for raw in block.split(b"\n"):
        if not raw or raw[0] == 58:  # blank (from a run of newlines) or ":" comment
            continue
        field, colon, value = raw.partition(b":")
        if colon and value[:1] == b" ":
            value = value[1:]
        if field == b"data":
            text = value.decode("utf-8", "replace")
            if data is None:
                data = [text]
            else:
                data.append(text)
        elif field == b"event":
            name = value.decode("utf-8", "replace")
    if data is None:
        return None
    return name, "\n".join(data)
