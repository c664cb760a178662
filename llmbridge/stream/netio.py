"""An httpcore network backend on plain asyncio protocols (trio and others: httpcore's own).

Why: httpcore reaches asyncio through anyio, whose socket streams cost two ``epoll_ctl`` calls
(resume, pause) and a cancel scope (``fail_after``) on *every* read. LLM streams are many small
reads, so at 1,000 concurrent streams that overhead was a third of the client's CPU
(``benchmarks/bench_concurrency.py``, profiled with py-spy). Here a read is a buffer check,
or one future plus one timer handle.

Rules:

* A connection's protocol buffers what arrives and pauses the socket above ``_HIGH`` bytes,
  resuming below it once read; ``read`` returns what is buffered (up to ``max_bytes``), ``b""``
  at EOF, or waits for data with the timeout as a timer (``httpcore.ReadTimeout``).
* ``write`` hands bytes to the transport and waits only while the transport says its buffer is
  full, each write on its own future (``httpcore.WriteTimeout`` after the timeout; a connection
  lost meanwhile is a ``WriteError``). ``aclose`` never waits on a peer that stopped reading.
* Errors surface as httpcore's exceptions (``ConnectError``/``ConnectTimeout``/``ReadError``/
  ``WriteError``), so httpx maps them exactly as it maps its own backend's.
* ``get_extra_info("is_readable")`` is what httpcore asks of an idle keep-alive connection:
  true when the server sent bytes or closed it, so the pool drops it instead of reusing it.
* Not under asyncio (under trio), every call goes to ``httpcore.AnyIOBackend``, as before.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore

__all__ = ["AsyncioBackend"]

_HIGH = 256 * 1024


class _Protocol(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.eof = False
        self.error: BaseException | None = None
        self.waiter: asyncio.Future[None] | None = None
        self.drain: asyncio.Future[None] | None = None
        self.paused = False
        self.writing_paused = False
        self.lost = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > _HIGH and not self.paused and self.transport is not None:
            self.paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.eof = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.lost = True
        if exc is not None:
            self.error = exc
        self._wake()
        if self.drain is not None and not self.drain.done():
            self.drain.set_result(None)

    def pause_writing(self) -> None:
        self.writing_paused = True

    def resume_writing(self) -> None:
        self.writing_paused = False
        drain, self.drain = self.drain, None
        if drain is not None and not drain.done():
            drain.set_result(None)

    def _wake(self) -> None:
        waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


def _timeout(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_exception(TimeoutError())


async def _wait(future: asyncio.Future[None], timeout: float | None) -> None:
    if timeout is None:
        await future
        return
    timer = asyncio.get_running_loop().call_later(timeout, _timeout, future)
    try:
        await future
    finally:
        timer.cancel()


class AsyncioStream(httpcore.AsyncNetworkStream):
    def __init__(self, transport: asyncio.Transport, protocol: _Protocol) -> None:
        self._transport = transport
        self._protocol = protocol

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        protocol = self._protocol
        if not protocol.buffer:
            if protocol.error is not None:
                raise httpcore.ReadError(str(protocol.error)) from protocol.error
            if protocol.eof:
                return b""
            protocol.waiter = waiter = asyncio.get_running_loop().create_future()
            try:
                await _wait(waiter, timeout)
            except TimeoutError:
                raise httpcore.ReadTimeout("no data within the read timeout") from None
            if not protocol.buffer:
                if protocol.error is not None:
                    raise httpcore.ReadError(str(protocol.error)) from protocol.error
                return b""
        buffer = protocol.buffer
        if len(buffer) <= max_bytes:
            data = bytes(buffer)
            buffer.clear()
        else:
            data = bytes(buffer[:max_bytes])
            del buffer[:max_bytes]
        if protocol.paused and len(buffer) < _HIGH:
            protocol.paused = False
            self._transport.resume_reading()
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        protocol = self._protocol
        if protocol.error is not None or self._transport.is_closing():
            raise httpcore.WriteError("the connection is closed")
        self._transport.write(buffer)
        if protocol.writing_paused and not protocol.lost:
            protocol.drain = drain = asyncio.get_running_loop().create_future()
            try:
                await _wait(drain, timeout)
            except TimeoutError:
                raise httpcore.WriteTimeout("could not write within the write timeout") from None
        if protocol.lost:
            raise httpcore.WriteError(
                str(protocol.error or "the connection was lost while writing")
            )

    async def aclose(self) -> None:
        # As anyio does: close (flushing, TLS close_notify), let the loop run once, then abort,
        # so a peer that stopped reading cannot keep the socket and its unsent bytes alive.
        transport = self._transport
        try:
            if not transport.is_closing():
                transport.close()
                await asyncio.sleep(0)
        finally:
            transport.abort()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            transport = await asyncio.wait_for(
                loop.start_tls(
                    self._transport,
                    self._protocol,
                    ssl_context,
                    server_hostname=server_hostname,
                    ssl_handshake_timeout=timeout
                    if timeout is not None
                    else 10.0**9,  # None: no limit
                ),
                timeout,
            )
        except asyncio.TimeoutError as exc:
            self._transport.close()
            raise httpcore.ConnectTimeout("TLS handshake timed out") from exc
        except (OSError, ssl.SSLError) as exc:
            self._transport.close()
            raise httpcore.ConnectError(str(exc)) from exc
        if transport is None:
            self._transport.close()
            raise httpcore.ConnectError("the connection closed during the TLS handshake")
        self._protocol.transport = transport
        return AsyncioStream(transport, self._protocol)

    def get_extra_info(self, info: str) -> Any:
        if info == "ssl_object":
            return self._transport.get_extra_info("ssl_object")
        if info == "client_addr":
            return self._transport.get_extra_info("sockname")
        if info == "server_addr":
            return self._transport.get_extra_info("peername")
        if info == "socket":
            return self._transport.get_extra_info("socket")
        if info == "is_readable":
            protocol = self._protocol
            return bool(protocol.buffer) or protocol.eof
        return None


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    """asyncio protocols under asyncio; ``httpcore.AnyIOBackend`` under anything else."""

    def __init__(self) -> None:
        self._other = httpcore.AnyIOBackend()

    def _fallback(self) -> httpcore.AsyncNetworkBackend | None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # not asyncio (trio): anyio's streams
            return self._other
        return None

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        other = self._fallback()
        if other is not None:
            return await other.connect_tcp(host, port, timeout, local_address, socket_options)
        loop = asyncio.get_running_loop()
        local = None if local_address is None else (local_address, 0)
        return await _connect(
            # Happy eyeballs as anyio does: one blackholed address cannot eat the whole timeout.
            loop.create_connection(
                _Protocol, host, port, local_addr=local, happy_eyeballs_delay=0.25
            ),
            timeout,
            socket_options,
        )

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        other = self._fallback()
        if other is not None:
            return await other.connect_unix_socket(path, timeout, socket_options)
        loop = asyncio.get_running_loop()
        return await _connect(loop.create_unix_connection(_Protocol, path), timeout, socket_options)

    async def sleep(self, seconds: float) -> None:
        other = self._fallback()
        if other is not None:
            await other.sleep(seconds)
        else:
            await asyncio.sleep(seconds)


async def _connect(
    opening: Any, timeout: float | None, options: Iterable[Any] | None
) -> AsyncioStream:
    try:
        transport, protocol = await asyncio.wait_for(opening, timeout)
    except asyncio.TimeoutError as exc:
        raise httpcore.ConnectTimeout("could not connect within the connect timeout") from exc
    except OSError as exc:
        raise httpcore.ConnectError(str(exc)) from exc
    sock = transport.get_extra_info("socket")
    try:
        for option in options or ():
            sock.setsockopt(*option)
    except OSError as exc:
        transport.abort()
        raise httpcore.ConnectError(str(exc)) from exc
    return AsyncioStream(transport, protocol)
