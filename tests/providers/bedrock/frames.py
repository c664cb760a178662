"""Build AWS event-stream frames for tests (botocore only reads them; this writes them).

A frame: total length (4) · headers length (4) · prelude CRC32 (4) · headers · payload ·
message CRC32 (4). Headers here are all strings (type 7): name length (1) · name · 7 ·
value length (2) · value. ``tests/providers/bedrock/test_bedrock_eventstream.py`` checks
that botocore reads what this writes.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

import orjson

from llmbridge.frames import EventMessage


def raw_frame(head: bytes, payload: bytes) -> bytes:
    """A frame around ``head`` (the encoded headers, any bytes) and ``payload``, both CRCs right."""
    total = 12 + len(head) + len(payload) + 4
    prelude = struct.pack(">II", total, len(head))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + head + payload
    return body + struct.pack(">I", zlib.crc32(body))


def string_header(name: str, value: str) -> bytes:
    return (
        bytes([len(name.encode())])
        + name.encode()
        + b"\x07"
        + struct.pack(">H", len(value.encode()))
        + value.encode()
    )


def frame(headers: dict[str, str], payload: bytes) -> bytes:
    return raw_frame(b"".join(string_header(n, v) for n, v in headers.items()), payload)


def event(kind: str, payload: Any) -> bytes:
    """An ``event`` frame of type ``kind``; ``payload`` is JSON-encoded unless bytes."""
    data = payload if isinstance(payload, bytes) else orjson.dumps(payload)
    return frame(
        {":event-type": kind, ":content-type": "application/json", ":message-type": "event"}, data
    )


def exception(kind: str, message: str) -> bytes:
    return frame(
        {
            ":exception-type": kind,
            ":content-type": "application/json",
            ":message-type": "exception",
        },
        orjson.dumps({"message": message}),
    )


def error(code: str, message: str) -> bytes:
    return frame({":error-code": code, ":error-message": message, ":message-type": "error"}, b"")


def converse(*events: tuple[str, Any]) -> bytes:
    """A ConverseStream body: one event frame per ``(kind, payload)``."""
    return b"".join(event(kind, payload) for kind, payload in events)


def message(kind: str, payload: Any = b"") -> EventMessage:
    """The ``EventMessage`` the framing makes of ``event(kind, payload)`` (JSON unless bytes or
    text), without the bytes around it: for feeding a decoder directly."""
    if isinstance(payload, str):
        data = payload.encode()
    else:
        data = payload if isinstance(payload, bytes) else orjson.dumps(payload)
    return EventMessage("event", data, event_type=kind)


def exception_message(kind: str, payload: str | bytes) -> EventMessage:
    """The ``EventMessage`` of an exception frame of type ``kind`` (its payload as given)."""
    data = payload.encode() if isinstance(payload, str) else payload
    return EventMessage("exception", data, error_type=kind)


def error_message(code: str, text: str) -> EventMessage:
    """The ``EventMessage`` of an error frame (its code and ``:error-message``)."""
    return EventMessage("error", error_type=code, headers={":error-message": text})
