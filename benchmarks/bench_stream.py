"""Per-event overhead of llmbridge against the raw floor, same bytes, same run.

    python benchmarks/bench_stream.py [--runs 15] [--markdown]

For each provider format a long stream (2,000 text deltas + one tool call in 400 argument
fragments) is served in-process by ``httpx.MockTransport`` in 4 KiB chunks and consumed fully:

* floor      — httpx + httpx-sse + ``orjson.loads`` per event, text appended to a list;
* stream()   — ``Client.stream`` consumed event by event;
* complete() — ``Client.complete`` (stream folded into a ChatResponse, arguments parsed).

CPU time (``time.process_time``) per SSE event, median over runs; ratios to the floor.
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import anyio
import httpx
import orjson
from httpx_sse import aconnect_sse

sys.path.insert(0, str(Path(__file__).resolve().parent))
from streams import FORMATS

import llmbridge as lb

CHUNK = 4096


class Body(httpx.AsyncByteStream):
    def __init__(self, data: bytes) -> None:
        self.data = data

    async def __aiter__(self) -> AsyncIterator[bytes]:
        data = self.data
        for i in range(0, len(data), CHUNK):
            yield data[i : i + CHUNK]


def http_for(body: bytes) -> httpx.AsyncClient:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=Body(body))

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def floor(body: bytes, _model: str) -> int:
    parts: list[str] = []
    n = 0
    async with (
        http_for(body) as http,
        aconnect_sse(http, "POST", "https://x.test/v1", json={}) as source,
    ):
        async for sse in source.aiter_sse():
            n += 1
            if sse.data == "[DONE]":
                continue
            obj = orjson.loads(sse.data)
            if isinstance(obj, dict):
                parts.append(sse.event)
    return n


def _client(body: bytes, model: str) -> lb.Client:
    provider = model.partition(":")[0]
    return lb.Client(http_client=http_for(body), providers={provider: {"api_key": "bench-key"}})


TOOLS = [
    lb.ToolSpec(
        name="search", description="Search", parameters={"type": "object", "properties": {}}
    )
]
MESSAGES = [lb.ChatMessage.user("go")]


async def via_stream(body: bytes, model: str) -> int:
    n = 0
    async for _event in _client(body, model).stream(model, MESSAGES, tools=TOOLS):
        n += 1
    return n


async def via_complete(body: bytes, model: str) -> int:
    resp = await _client(body, model).complete(model, MESSAGES, tools=TOOLS)
    assert resp.tool_calls and resp.tool_calls[0].arguments["limit"] == 5
    return 1


def count_events(body: bytes) -> int:
    return body.count(b"data:")


def measure(
    fn: Callable[[bytes, str], Awaitable[int]], body: bytes, model: str, runs: int
) -> float:
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.process_time()
        anyio.run(fn, body, model)
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    rows = []
    for fmt, (model, make) in FORMATS.items():
        body = make()
        events = count_events(body)
        anyio.run(via_complete, body, model)  # warm up + sanity check
        t_floor = measure(floor, body, model, args.runs)
        t_stream = measure(via_stream, body, model, args.runs)
        t_complete = measure(via_complete, body, model, args.runs)
        per = 1e6 / events
        rows.append((fmt, events, t_floor * per, t_stream * per, t_complete * per))
    machine = f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}, {platform.processor() or 'cpu'}"
    if args.markdown:
        print(f"Machine: {machine}; median of {args.runs} runs; CPU µs per SSE event.\n")
        print("| format | events | floor µs | stream() µs | × floor | complete() µs | × floor |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for fmt, n, f, s, c in rows:
            print(f"| {fmt} | {n} | {f:.2f} | {s:.2f} | {s / f:.2f} | {c:.2f} | {c / f:.2f} |")
    else:
        print(f"{machine}; median of {args.runs} runs; CPU µs per SSE event")
        print(
            f"{'format':<18}{'events':>7}{'floor':>9}{'stream()':>10}{'×':>7}{'complete()':>12}{'×':>7}"
        )
        for fmt, n, f, s, c in rows:
            print(f"{fmt:<18}{n:>7}{f:>9.2f}{s:>10.2f}{s / f:>7.2f}{c:>12.2f}{c / f:>7.2f}")


if __name__ == "__main__":
    main()
