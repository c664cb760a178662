"""A pure (sans-IO) SSE parser over bytes, per the WHATWG event-stream rules.

Used by tests and plug-in authors to feed decoders without IO; the client itself reads SSE
through httpx-sse. ``feed(bytes)`` returns completed ``(event, data)`` pairs; ``close()``
flushes. Lines end in ``\\n``, ``\\r\\n`` or ``\\r``; multi-byte UTF-8 may be split anywhere.
"""

from __future__ import annotations

import codecs
import re

__all__ = ["SSEParser"]

_NEWLINE = re.compile(r"(\r\n|\r|\n)")


class SSEParser:
    def __init__(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8")("replace")
        self._pending: list[str] = []
        self._event = ""
        self._data: list[str] = []
        self._cr = False

    def feed(self, chunk: bytes) -> list[tuple[str, str]]:
        return self._lines(self._utf8.decode(chunk))

    def close(self) -> list[tuple[str, str]]:
        out = self._lines(self._utf8.decode(b"", final=True))
        if self._pending:
            out.extend(self._line("".join(self._pending)))
            self._pending = []
        out.extend(self._line(""))
        return out

    def _lines(self, text: str) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        if self._cr and text.startswith("\n"):
            text = text[1:]
        self._cr = text.endswith("\r")
        parts = _NEWLINE.split(text)  # content, separator, content, ..., trailing content
        for i in range(0, len(parts) - 1, 2):
            self._pending.append(parts[i])
            line = "".join(self._pending)
            self._pending = []
            out.extend(self._line(line))
        if parts[-1]:
            self._pending.append(parts[-1])
        return out

    def _line(self, line: str) -> list[tuple[str, str]]:
        if not line:
            if not self._data and not self._event:
                return []
            event = (self._event, "\n".join(self._data))
            self._event, self._data = "", []
            return [event] if event[1] or event[0] else []
        if line.startswith(":"):
            return []
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        return []
