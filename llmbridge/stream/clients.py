"""The HTTP clients llmbridge sends through: made here, and only here.

Rules:

* ``Client()`` makes its own: plain ``httpx.AsyncClient``s on httpcore's own backends (asyncio,
  uvloop and trio alike), with LLM-friendly timeouts, one shared TLS context and httpx's own
  handling of proxy variables (``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY``): one code path,
  proxy or not. ``transport="aiohttp"`` (the ``aiohttp`` extra, httpx-aiohttp) puts the same
  ``httpx.AsyncClient`` API on aiohttp's transport — the choice for thousands of concurrent
  streams under asyncio/uvloop, what the openai and anthropic SDKs call ``DefaultAioHttpClient``.
* Why several httpx clients: httpcore's pool re-checks every connection it holds each time a
  request starts or a response closes, so one pool with N open streams costs O(N²) overall
  (1,000 streams: 22 s of CPU for 2 s of streaming, ``benchmarks/bench_concurrency.py``).
  ``Shards`` spreads requests over up to ``shards`` clients, made on demand: a request goes to
  the client with the fewest open responses (the lowest index on ties, so sequential requests
  reuse one keep-alive connection). ``limits`` are totals, divided between the shards.
* One set of clients per event loop: connections belong to the loop that opened them, so a
  ``Client`` used from a second ``asyncio.run()``, another thread's loop or trio gets fresh
  ones. Each set is closed on its own loop (``loop_end.LoopEnd``): when that loop ends, or
  when ``aclose()`` runs (on any loop: it closes every loop's set). An app's own
  ``http_client`` is used as given, on whatever loop the app runs it, and never closed here.
* After ``aclose()`` no request goes out (``UsageError``), not even one of a stream made
  before it: it would open a new pool nobody closes.
"""

from __future__ import annotations

import functools
import os
import ssl
import sys
from collections.abc import Callable
from typing import Any, Literal

import httpx

from ..errors import ConfigurationError, UsageError
from .loop_end import LoopEnd

__all__ = [
    "DEFAULT_LIMITS",
    "DEFAULT_SHARDS",
    "DEFAULT_TIMEOUT",
    "HttpPool",
    "TransportName",
    "aiohttp_client",
    "httpx_client",
    "tls_context",
]

TransportName = Literal["httpx", "aiohttp"]

DEFAULT_TIMEOUT = httpx.Timeout(connect=10.0, read=120.0, write=30.0, pool=30.0)
"""``read`` is the idle timeout: the longest silence allowed between two chunks of a stream."""
DEFAULT_LIMITS = httpx.Limits(max_connections=2048, max_keepalive_connections=256)
"""Totals for one ``Client`` (across shards)."""
DEFAULT_SHARDS = 32


def tls_context() -> ssl.SSLContext:
    """httpx's default verifying context, built once per CA setting (loading the CA bundle
    costs ~15 ms); keyed on ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``, which httpx reads."""
    return _tls_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.lru_cache(maxsize=4)
def _tls_context(cafile: str | None, capath: str | None) -> ssl.SSLContext:
    return httpx.create_ssl_context()


def httpx_client(
    *, limits: httpx.Limits = DEFAULT_LIMITS, timeout: httpx.Timeout = DEFAULT_TIMEOUT
) -> httpx.AsyncClient:
    """A plain ``httpx.AsyncClient`` with llmbridge's timeouts and TLS context."""
    return httpx.AsyncClient(timeout=timeout, limits=limits, verify=tls_context())


def aiohttp_client(
    *, limits: httpx.Limits = DEFAULT_LIMITS, timeout: httpx.Timeout = DEFAULT_TIMEOUT
) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` on httpx-aiohttp's transport (``pip install 'llmbridge[aiohttp]'``).

    asyncio and uvloop only. Proxy variables and ``NO_PROXY`` are honoured (aiohttp's
    ``trust_env``), with the same TLS context, timeouts and connection limit as the default.
    """
    try:
        import aiohttp
        from httpx_aiohttp import AiohttpTransport
    except ImportError as exc:
        raise ConfigurationError(
            "transport='aiohttp' needs the aiohttp extra: pip install 'llmbridge[aiohttp]'"
        ) from exc
    context = tls_context()

    def session() -> aiohttp.ClientSession:  # made inside the loop, at the first request
        connector = aiohttp.TCPConnector(
            limit=limits.max_connections or 0,
            keepalive_timeout=limits.keepalive_expiry or 5.0,
            ssl=context,
        )
        return aiohttp.ClientSession(connector=connector, trust_env=True)

    transport = AiohttpTransport(verify=context, limits=limits, client=session)
    return httpx.AsyncClient(timeout=timeout, transport=transport)


def current_loop() -> object:
    """The running event loop (asyncio/uvloop), or trio's token for the running trio run."""
    asyncio = sys.modules.get("asyncio")  # not imported: no asyncio loop can be running
    if asyncio is not None:
        try:
            return asyncio.get_running_loop()
        except RuntimeError:
            pass
    trio = sys.modules.get("trio")
    if trio is not None:
        try:
            return trio.lowlevel.current_trio_token()
        except RuntimeError:
            pass
    raise ConfigurationError("llmbridge's Client must be used from inside an event loop")


def _is_asyncio(loop: object) -> bool:
    asyncio = sys.modules.get("asyncio")
    return asyncio is not None and isinstance(loop, asyncio.AbstractEventLoop)


def _closed(loop: object) -> bool:
    """Whether ``loop`` (an asyncio loop or a trio token) has finished for good."""
    if _is_asyncio(loop):
        return bool(loop.is_closed())  # type: ignore[attr-defined]
    trio = sys.modules.get("trio")
    if trio is not None and isinstance(loop, trio.lowlevel.TrioToken):
        try:
            loop.run_sync_soon(lambda: None)  # a no-op in a live run; refused in a finished one
        except trio.RunFinishedError:
            return True
    return False


class Shards:
    """Up to ``count`` clients on one event loop, each request to the least busy one."""

    __slots__ = ("_make", "clients", "count", "open")

    def __init__(self, make: Callable[[int], httpx.AsyncClient], count: int) -> None:
        self._make = make
        self.count = count
        self.clients: list[httpx.AsyncClient] = []
        self.open: list[int] = []
        """Responses currently open per client."""

    def acquire(self) -> int:
        open_ = self.open
        low = min(open_, default=1)
        if low and len(open_) < self.count:
            self.clients.append(self._make(len(open_)))
            open_.append(0)
            index = len(open_) - 1
        else:
            index = open_.index(low)
        open_[index] += 1
        return index

    def release(self, index: int) -> None:
        self.open[index] -= 1

    async def aclose(self) -> None:
        clients, self.clients, self.open = self.clients, [], []
        for client in clients:
            await client.aclose()


class HttpPool:
    """Where a ``Client``'s requests go: its own shards per event loop, or the app's client."""

    def __init__(
        self,
        http_client: Any = None,
        *,
        transport: TransportName = "httpx",
        limits: httpx.Limits = DEFAULT_LIMITS,
        shards: int = DEFAULT_SHARDS,
    ) -> None:
        if transport not in ("httpx", "aiohttp"):
            raise UsageError(f"transport must be 'httpx' or 'aiohttp', not {transport!r}")
        if http_client is not None and (
            transport != "httpx" or limits is not DEFAULT_LIMITS or shards != DEFAULT_SHARDS
        ):
            raise UsageError(
                "transport=, limits= and shards= shape the HTTP client Client() makes; with "
                "http_client= configure that client itself (or leave http_client out)"
            )
        if shards < 1:
            raise UsageError("shards must be at least 1")
        self.app_client = http_client
        self.transport = transport
        self.limits = limits
        self.shards = 1 if transport == "aiohttp" else shards
        self._by_loop: dict[object, Shards] = {}
        self._ends: dict[object, LoopEnd] = {}
        self.closed = False
        """Set by ``aclose()``: no request goes out after it (``UsageError``)."""

    def for_loop(self) -> Shards:
        """The shards of the running loop (made on first use, closed loops' dropped)."""
        if self.closed:
            raise UsageError(
                "this Client is closed (aclose() or its 'async with' ended): a stream made "
                "before that cannot send its request now; make a new Client"
            )
        loop = current_loop()
        shards = self._by_loop.get(loop)
        if shards is None:
            shards = self._new_shards(loop)
        return shards

    def _new_shards(self, loop: object) -> Shards:
        if self.app_client is not None:
            client = self.app_client
            shards = Shards(lambda index: client, 1)
        else:
            if self.transport == "aiohttp" and not _is_asyncio(loop):
                raise ConfigurationError(
                    "transport='aiohttp' needs asyncio or uvloop; under trio use the default "
                    "transport (httpx on httpcore's trio backend)"
                )
            count = min(self.shards, self.limits.max_connections or self.shards)
            make = aiohttp_client if self.transport == "aiohttp" else httpx_client
            limits = self.limits
            shards = Shards(lambda index: make(limits=_share(limits, index, count)), count)
        for old in [key for key in self._by_loop if _closed(key)]:
            del self._by_loop[old]  # closed without finalizing: nothing can close them now
            end = self._ends.pop(old, None)
            if end is not None:
                end.forget()
        self._by_loop[loop] = shards
        if self.app_client is None:

            async def close() -> None:  # on ``loop``, when it ends or on aclose()
                if self._by_loop.get(loop) is shards:
                    del self._by_loop[loop]
                    self._ends.pop(loop, None)
                await shards.aclose()

            self._ends[loop] = LoopEnd(loop, close)
        return shards

    async def aclose(self) -> None:
        """Close the clients of every loop (an app's own client stays the app's): the running
        loop's now, another live loop's on that loop, soon."""
        self.closed = True
        if self.app_client is not None:
            return
        running = current_loop()
        for loop, end in list(self._ends.items()):
            if loop is running:
                await end.fire()
            elif _closed(loop):
                end.forget()
            else:
                end.fire_from_elsewhere()
        self._by_loop.clear()
        self._ends.clear()


def _share(limits: httpx.Limits, index: int, count: int) -> httpx.Limits:
    """Shard ``index``'s part of ``limits`` (totals): the parts of ``count`` shards add up to them."""

    def part(total: int | None) -> int | None:
        return None if total is None else total // count + (index < total % count)

    return httpx.Limits(
        max_connections=part(limits.max_connections),
        max_keepalive_connections=part(limits.max_keepalive_connections),
        keepalive_expiry=limits.keepalive_expiry,
    )
