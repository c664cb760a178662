"""OpenAI Responses background mode on a loopback socket, per the API reference.

https://platform.openai.com/docs/guides/background: ``POST /v1/responses`` streams a response
(every event numbered by ``sequence_number``, from 0) and keeps it;
``GET /v1/responses/{id}?stream=true&starting_after=n`` streams its events after ``n`` (all of
them without ``starting_after``); ``POST /v1/responses/{id}/cancel`` cancels it. The events are
a real recorded background stream (``../shared/corpus``). ``breaks`` says how each streamed
answer, in order, ends early: ``("drop", k)`` sends ``k`` events then resets the connection
mid-chunk, ``("end", k)`` sends ``k`` events then ends the body cleanly (no terminal event),
``("stall", k)`` sends ``k`` events then goes silent; an answer without a break sends the rest.
``imposter`` answers every resume with another response's whole stream instead (issue 49).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import parse_qs, urlsplit

import anyio
import orjson
from anyio.abc import SocketStream

from tests.corpus import CORPUS
from tests.loopback import chunk, http_error, read_request

__all__ = ["RECORDING", "BackgroundServer", "Break", "other_response", "recorded_events"]

RECORDING = CORPUS / "B_openai" / "test_background_mode_streaming_vcr__i0.sse"

Break = tuple[Literal["drop", "end", "stall"], int]

_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n"
    b"connection: close\r\n\r\n"
)


def recorded_events() -> list[bytes]:
    """The recorded stream's SSE events, each with its blank line."""
    blocks = RECORDING.read_bytes().replace(b"\r\n", b"\n").split(b"\n\n")
    return [block + b"\n\n" for block in blocks if block.strip()]


def other_response(response_id: str, text: bytes = b" INJECTED") -> list[bytes]:
    """The recorded stream as another response's: its id and one word of its text changed."""
    other = [e.replace(response_id.encode(), b"resp_OTHER") for e in recorded_events()]
    return [e.replace(b'"delta":" equals"', b'"delta":"' + text + b'"') for e in other]


def _number(event: bytes) -> int:
    data = event.split(b"data: ", 1)[1]
    value = orjson.loads(data)["sequence_number"]
    assert isinstance(value, int)
    return value


@dataclass
class Seen:
    method: str
    target: str
    headers: dict[str, str]
    body: bytes


@dataclass
class BackgroundServer:
    events: list[bytes]
    response_id: str
    breaks: list[Break] = field(default_factory=list)
    resend: int = 0
    """How many events at or before ``starting_after`` a resumed answer sends again."""
    refuse: int | None = None
    """The status every resume request gets (``None``: resumes are served)."""
    imposter: list[bytes] | None = None
    """Another response's events: every resume is answered with all of them, from its
    ``response.created`` (number 0) on, whatever ``starting_after`` says."""
    seen: list[Seen] = field(default_factory=list)
    cancelled: bool = False

    async def __call__(self, stream: SocketStream) -> None:
        head, body = await read_request(stream)
        lines = head.decode().split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        self.seen.append(Seen(method, target, headers, body))
        path, query = urlsplit(target).path, parse_qs(urlsplit(target).query)
        if method == "POST" and path == "/v1/responses":
            await self._stream(stream, self.events)
        elif method == "GET" and path == f"/v1/responses/{self.response_id}":
            if self.refuse is not None:
                error = orjson.dumps({"error": {"message": "no such response", "type": "x"}})
                await stream.send(http_error(self.refuse, "Refused", error))
                return
            assert query.get("stream") == ["true"]
            after = int(query["starting_after"][0]) if "starting_after" in query else -1
            rest = [e for e in self.events if _number(e) > after - self.resend]
            await self._stream(stream, rest if self.imposter is None else self.imposter)
        elif method == "POST" and path == f"/v1/responses/{self.response_id}/cancel":
            self.cancelled = True
            answer = orjson.dumps({"id": self.response_id, "status": "cancelled"})
            await stream.send(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                + f"content-length: {len(answer)}\r\nconnection: close\r\n\r\n".encode()
                + answer
            )
        else:
            await stream.send(http_error(404, "Not Found", b'{"error": {"message": "nope"}}'))

    async def _stream(self, stream: SocketStream, events: list[bytes]) -> None:
        how = self.breaks.pop(0) if self.breaks else None
        await stream.send(_HEAD)
        count = len(events) if how is None else how[1]
        for event in events[:count]:
            await stream.send(chunk(event))
        if how is None or how[0] == "end":
            await stream.send(b"0\r\n\r\n")
        elif how[0] == "drop":
            await stream.send(b"7f\r\ndata: {")  # promise 127 bytes, send a few, then reset
        else:
            await anyio.sleep(30)

    def requests(self) -> list[str]:
        """``METHOD target`` of each request, in order."""
        return [f"{s.method} {s.target}" for s in self.seen]
