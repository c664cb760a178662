"""A transport that spreads concurrent requests over several connection pools.

Why: httpcore's pool re-checks every connection it holds each time a request starts or a
response closes, so one pool with N open streams costs O(N) per request and O(N²) overall —
at 1,000 concurrent streams that bookkeeping, not the streams, dominates the CPU (measured in
``benchmarks/bench_concurrency.py``). Splitting the connections over ``shards`` independent
pools divides that cost by the number of shards.

Rules: a request goes to the shard with the fewest responses open, the lowest index on ties,
so sequential requests keep reusing one keep-alive connection; a shard's count drops when its
response is closed (or fails). Limits apply per shard. ``network_backend`` (the default client
passes ``netio.AsyncioBackend``) is given to every shard's pool.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from types import TracebackType
from typing import TYPE_CHECKING, Any

import httpx

if TYPE_CHECKING:  # httpcore (and through it trio, when installed) loads with the first pool
    import httpcore

__all__ = ["ShardedTransport"]


class _Tracked(httpx.AsyncByteStream):
    __slots__ = ("_done", "_stream")

    def __init__(self, stream: httpx.AsyncByteStream, done: Any) -> None:
        self._stream = stream
        self._done = done

    def __aiter__(self) -> AsyncIterator[bytes]:  # the inner iterator itself: no extra layer
        return self._stream.__aiter__()

    async def aclose(self) -> None:
        done, self._done = self._done, None
        try:
            await self._stream.aclose()
        finally:
            if done is not None:
                done()


class ShardedTransport(httpx.AsyncBaseTransport):
    """``shards`` ``httpx.AsyncHTTPTransport``s behind one transport (kwargs go to each)."""

    def __init__(
        self,
        shards: int = 8,
        *,
        network_backend: httpcore.AsyncNetworkBackend | None = None,
        **transport_options: Any,
    ) -> None:
        if shards < 1:
            raise ValueError("shards must be at least 1")
        if "verify" not in transport_options:  # one TLS context (loading CAs costs ~15 ms each)
            transport_options["verify"] = httpx.create_ssl_context()
        self.shards = [httpx.AsyncHTTPTransport(**transport_options) for _ in range(shards)]
        if network_backend is not None:
            for shard in self.shards:
                _set_backend(shard, network_backend)
        self.open = [0] * shards
        """Responses currently open per shard."""

    def _release(self, shard: int) -> None:
        self.open[shard] -= 1

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        open_ = self.open
        shard = open_.index(min(open_))
        open_[shard] += 1
        try:
            response = await self.shards[shard].handle_async_request(request)
        except BaseException:
            open_[shard] -= 1
            raise
        assert isinstance(response.stream, httpx.AsyncByteStream)
        response.stream = _Tracked(response.stream, lambda: self._release(shard))
        return response

    async def aclose(self) -> None:
        for transport in self.shards:
            await transport.aclose()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None = None,
        exc_value: BaseException | None = None,
        traceback: TracebackType | None = None,
    ) -> None:
        await self.aclose()


def _set_backend(
    transport: httpx.AsyncHTTPTransport, backend: httpcore.AsyncNetworkBackend
) -> None:
    """httpx has no public way to hand its pool a network backend: set the pool's own field
    (httpcore ``AsyncConnectionPool._network_backend``, read when a connection opens)."""
    import httpcore

    pool = getattr(transport, "_pool", None)
    if not isinstance(pool, httpcore.AsyncConnectionPool) or not hasattr(pool, "_network_backend"):
        raise TypeError("this httpx/httpcore version keeps its network backend elsewhere")
    pool._network_backend = backend
