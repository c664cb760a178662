"""A loopback batch server (``tests.batch.servers``) as an ``httpx`` transport, without a
socket: for recording through the pytest plug-in's ``llmbridge_record_transport``."""

from __future__ import annotations

import httpx

from tests.batch.servers import BatchServer


class ServerTransport(httpx.AsyncBaseTransport):
    """Each request handed to ``server`` as the raw HTTP/1.1 it would read."""

    def __init__(self, server: BatchServer) -> None:
        self.server = server

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        lines = [f"{request.method} {request.url.raw_path.decode()} HTTP/1.1"]
        lines += [f"{name}: {value}" for name, value in request.headers.items()]
        raw = self.server.answer("\r\n".join(lines).encode(), body)
        head, _, content = raw.partition(b"\r\n\r\n")
        status_line, *header_lines = head.decode().split("\r\n")
        headers = [tuple(h.split(": ", 1)) for h in header_lines]
        return httpx.Response(int(status_line.split(" ")[1]), headers=headers, content=content)
