"""A loopback HTTP/1.1 SSE server for the benchmarks, run in its own process.

    python benchmarks/loopback.py          # prints "PORT <n>" then serves until killed

Its CPU time is not the client's: the client-side benchmarks measure only their own process.
Every POST is answered ``200 text/event-stream`` with chunked transfer encoding (4 KiB chunks),
keep-alive. The body depends on the path:

* ``.../chat/completions``, ``.../messages``, ``.../responses``, ``...GenerateContent`` —
  the long stream of that format from ``streams.py``;
* ``/paced/<i>/<n>/<gap_ms>/...`` — ``<n>`` Chat Completions text deltas unique to stream
  ``<i>`` (``paced_text(i, n)``), one every ``<gap_ms>`` ms, as a model would emit them;
* ``/paced/model/<n>/<gap_ms>/...`` — the same, ``<i>`` read from the request's model
  (``"model": "s<i>"``): many streams through one provider (``bench_scale.py``).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import CHUNK
from streams import FORMATS, paced_chunks

__all__ = ["serve_forever"]

HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
ROUTES = {
    b"chat/completions": FORMATS["openai"][1],
    b"/messages": FORMATS["anthropic"][1],
    b"/responses": FORMATS["openai-responses"][1],
    b"GenerateContent": FORMATS["gemini"][1],
}


def _chunked(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


async def _read_request(reader: asyncio.StreamReader) -> tuple[bytes, bytes] | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    body = await reader.readexactly(length) if length else b""
    return head.split(b" ", 2)[1], body


def _model_index(body: bytes) -> int:
    """``<i>`` of ``"model": "s<i>"`` in a JSON request body."""
    return int(json.loads(body)["model"][1:])


_bodies: dict[bytes, bytes] = {}


async def _handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    bodies = _bodies
    try:
        while (request := await _read_request(reader)) is not None:
            path, payload = request
            writer.write(HEAD)
            if path.startswith(b"/paced/"):
                _, _, i, n, gap, *_ = path.split(b"/")
                index = _model_index(payload) if i == b"model" else int(i)
                for piece in paced_chunks(index, int(n)):
                    writer.write(_chunked(piece))
                    await writer.drain()
                    await asyncio.sleep(int(gap) / 1000)
            else:
                key = next((k for k in ROUTES if k in path), b"chat/completions")
                body = bodies.get(key) or bodies.setdefault(key, ROUTES[key]())
                for i in range(0, len(body), CHUNK):
                    writer.write(_chunked(body[i : i + CHUNK]))
                    await writer.drain()
            writer.write(b"0\r\n\r\n")
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


async def serve_forever() -> None:
    server = await asyncio.start_server(_handle, "127.0.0.1", 0, backlog=4096)
    port = server.sockets[0].getsockname()[1]
    print(f"PORT {port}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(serve_forever())
