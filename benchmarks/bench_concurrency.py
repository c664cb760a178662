"""1,000 concurrent streams from a loopback server through one ``Client``.

    python benchmarks/bench_concurrency.py [--streams 1000] [--events 100] [--gap-ms 20]
                                           [--markdown] [--quick] [--single-pool]

``loopback.py`` (another process) serves every stream paced like a model: ``--events`` text
deltas, one every ``--gap-ms`` ms, text unique per stream. One ``Client`` with its default HTTP
client (sharded pools, ``llmbridge/stream/pool.py``, reading through asyncio protocols,
``llmbridge/stream/netio.py``; ``--single-pool`` for one plain httpx pool with room for every
stream) consumes them all at once with ``complete()``. Reported: total wall
time, the single-stream time measured first, the slowest / median stream time, peak RSS of
this process, and whether every stream's text is exact.
Budget (performance issue): peak RSS ≤ 250 MB; no stream slower than 2× the single-stream
time plus scheduling.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import loopback, machine_note
from streams import paced_text

import llmbridge as lb
from llmbridge.client import default_http_client

SINGLE_POOL = "--single-pool" in sys.argv
"""Compare with one plain httpx pool (what an app passing its own AsyncClient gets)."""


def single_pool_client(streams: int) -> httpx.AsyncClient:
    limits = httpx.Limits(max_connections=streams + 10, max_keepalive_connections=streams + 10)
    return httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(60.0))


MESSAGES = [lb.ChatMessage.user("go")]


async def one(client: lb.Client, i: int, events: int, gap_ms: int) -> tuple[float, bool]:
    start = time.perf_counter()
    model = f"p{i}:gpt-4.1-mini"
    response = await client.complete(model, MESSAGES)
    return time.perf_counter() - start, response.text == paced_text(i, events)


async def run(base: str, streams: int, events: int, gap_ms: int) -> dict[str, Any]:
    http = default_http_client() if not SINGLE_POOL else single_pool_client(streams)
    # One provider entry per stream only to give each its own URL (same provider class).
    providers = {
        f"p{i}": {"api_key": "bench-key", "base_url": f"{base}/paced/{i}/{events}/{gap_ms}/v1"}
        for i in range(streams)
    }
    async with lb.Client(http_client=http, providers=providers) as client:
        for i in range(streams):  # providers are built once, outside the timed part
            client.provider(f"p{i}")
        single, ok_single = await one(client, 0, events, gap_ms)
        results: list[tuple[float, bool]] = [(0.0, False)] * streams

        async def task(i: int) -> None:
            results[i] = await one(client, i, events, gap_ms)

        start, cpu = time.perf_counter(), time.process_time()
        async with anyio.create_task_group() as tg:
            for i in range(streams):
                tg.start_soon(task, i)
        total, cpu = time.perf_counter() - start, time.process_time() - cpu
    await http.aclose()
    times = [t for t, _ in results]
    return {
        "streams": streams,
        "events": events,
        "gap_ms": gap_ms,
        "single": single,
        "total": total,
        "client_cpu": cpu,
        "slowest": max(times),
        "median": statistics.median(times),
        "exact": ok_single and all(ok for _, ok in results),
        "rss_mb": peak_rss_mb(),
    }


def peak_rss_mb() -> float:
    """Peak RSS of this process. ``VmHWM`` starts afresh at exec; ``ru_maxrss`` on Linux keeps
    the parent's peak across fork+exec, which made a child of a big process report the parent's."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _register(streams: int) -> None:
    """Stream ``i`` uses provider ``p<i>``: the OpenAI Chat provider under another name."""
    from llmbridge.providers.registry import create_provider

    def factory(config: Any) -> Any:
        provider = create_provider("openai", config)
        return provider

    for i in range(streams):
        lb.register_provider(f"p{i}", factory)


def measure(streams: int, events: int, gap_ms: int, rounds: int = 3) -> dict[str, Any]:
    """``rounds`` runs, each on a fresh client (cold pools); the round with the median total
    time is reported, with the worst slowest stream of all rounds beside it."""
    _register(streams)
    with loopback() as base:
        runs = [anyio.run(run, base, streams, events, gap_ms) for _ in range(rounds)]
    runs.sort(key=lambda r: r["total"])
    chosen = runs[len(runs) // 2]
    return chosen | {
        "rounds": rounds,
        "worst_slowest": max(r["slowest"] for r in runs),
        "exact": all(r["exact"] for r in runs),
        "rss_mb": peak_rss_mb(),
    }


def markdown(r: dict[str, Any]) -> str:
    bound = 2 * r["single"]
    return "\n".join(
        [
            f"Machine: {machine_note()}. {r['streams']} concurrent `complete()` calls through one "
            f"Client, each stream {r['events']} text deltas paced {r['gap_ms']} ms apart by a "
            f"loopback server in another process; the median of {r['rounds']} rounds (fresh "
            "client each).",
            "",
            "| measure | value |",
            "|---|---:|",
            f"| single stream alone | {r['single'] * 1e3:.0f} ms |",
            f"| all {r['streams']} streams, total wall time | {r['total'] * 1e3:.0f} ms |",
            f"| CPU time of the client process meanwhile | {r['client_cpu'] * 1e3:.0f} ms |",
            f"| median stream | {r['median'] * 1e3:.0f} ms |",
            f"| slowest stream (budget ≈ 2× single = {bound * 1e3:.0f} ms + scheduling) "
            f"| {r['slowest'] * 1e3:.0f} ms{' **over budget**' if r['slowest'] > bound else ''} |",
            f"| slowest stream in the worst of {r['rounds']} rounds | {r['worst_slowest'] * 1e3:.0f} ms |",
            f"| peak RSS of the client process (budget ≤ 250 MB) | {r['rss_mb']:.0f} MB"
            f"{' **over budget**' if r['rss_mb'] > 250 else ''} |",
            f"| every stream exact | {'yes' if r['exact'] else '**NO**'} |",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--events", type=int, default=100)
    parser.add_argument("--gap-ms", type=int, default=20)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--json", action="store_true", help="print the measures as JSON")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="20 short streams")
    parser.add_argument(
        "--single-pool",
        action="store_true",
        help="one plain httpx pool instead of the default client",
    )
    args = parser.parse_args()
    rounds = args.rounds
    if args.quick:
        args.streams, args.events, args.gap_ms, rounds = 20, 10, 1, 1
    r = measure(args.streams, args.events, args.gap_ms, rounds)
    if args.json:  # for run_all.py, which runs this in its own process
        print(json.dumps(r))
        return
    if args.markdown:
        print(markdown(r))
        return
    print(machine_note())
    for key, value in r.items():
        print(f"{key:<10} {value:.3f}" if isinstance(value, float) else f"{key:<10} {value}")
    if not r["exact"]:
        sys.exit("some stream was not exact")


if __name__ == "__main__":
    main()
