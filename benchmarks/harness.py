"""Shared pieces of the benchmarks: in-process bodies, interleaved timing, the loopback server.

Rules: every comparison runs in one process on the same bytes; the variants of one comparison
are *interleaved* (round-robin, one run each per round) so drift and noisy neighbours hit them
alike; CPU time (``time.process_time``) of this process, median over rounds.
"""

from __future__ import annotations

import gc
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx

__all__ = [
    "CHUNK",
    "Body",
    "http_for",
    "httpx2_for",
    "loopback",
    "machine_note",
    "median_cpu",
]

CHUNK = 4096
"""Bytes per body chunk, as a socket read would hand them over."""


class Body(httpx.AsyncByteStream):
    def __init__(self, data: bytes) -> None:
        self.data = data

    async def __aiter__(self) -> AsyncIterator[bytes]:
        data = self.data
        for i in range(0, len(data), CHUNK):
            yield data[i : i + CHUNK]


def http_for(body: bytes) -> httpx.AsyncClient:
    """An httpx client whose every request is answered in-process with ``body`` as SSE."""

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=Body(body))

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


Variant = Callable[[], Awaitable[object]]


def median_cpu(variants: dict[str, Variant], *, runs: int) -> dict[str, float]:
    """Median CPU seconds per variant; one warm-up each, then ``runs`` interleaved rounds."""
    for fn in variants.values():
        anyio.run(fn)
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(runs):
        for name, fn in variants.items():
            gc.collect()
            start = time.process_time()
            anyio.run(fn)
            times[name].append(time.process_time() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def machine_note() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.partition(":")[2].strip()
                    break
    except OSError:
        pass
    return (
        f"{platform.python_implementation()} {platform.python_version()} on {platform.system()} "
        f"{platform.machine()}, {cpu}, {os.cpu_count()} CPUs"
    )


@contextmanager
def loopback() -> Iterator[str]:
    """Start ``loopback.py`` in its own process; yield its base URL; stop it afterwards."""
    script = Path(__file__).resolve().parent / "loopback.py"
    proc = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, bufsize=1
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line.startswith("PORT "):
            raise RuntimeError(f"loopback server did not start: {line!r}")
        yield f"http://127.0.0.1:{int(line.split()[1])}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def httpx2_for(body: bytes) -> Any:
    """The same as ``http_for`` with ``httpx2`` (what the newest ``anthropic`` SDK requires)."""
    import httpx2

    class Body2(httpx2.AsyncByteStream):  # type: ignore[misc,name-defined]
        async def __aiter__(self) -> AsyncIterator[bytes]:
            for i in range(0, len(body), CHUNK):
                yield body[i : i + CHUNK]

    def handler(request: Any) -> Any:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=Body2())

    return httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
