"""1,000 concurrent streams from a loopback server through one ``Client``.

    python benchmarks/bench_concurrency.py [--streams 1000] [--events 100] [--gap-ms 20]
                                           [--transport httpx|aiohttp|single-pool]
                                           [--loop asyncio|uvloop|trio] [--markdown] [--quick]

``loopback.py`` (another process) serves every stream paced like a model: ``--events`` text
deltas, one every ``--gap-ms`` ms, text unique per stream. One ``Client`` consumes them all at
once with ``complete()``: ``httpx`` is the client it makes for itself (httpx on httpcore's own
backends, requests spread over shards, ``llmbridge/stream/clients.py``), ``aiohttp`` the
``aiohttp`` extra (httpx-aiohttp), ``single-pool`` one plain ``httpx.AsyncClient`` with room
for every stream, for comparison. Reported: total wall time, the single-stream time measured
first, the slowest / median stream time, peak RSS of this process, and whether every stream's
text is exact. Budgets (stack issue): wall ≤ 2.2× single with aiohttp (asyncio, uvloop),
≤ 3.5× with the default client (asyncio, uvloop, trio); peak RSS ≤ 150 MB.
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

LOOPS: dict[str, dict[str, Any]] = {
    "asyncio": {"backend": "asyncio"},
    "uvloop": {"backend": "asyncio", "backend_options": {"use_uvloop": True}},
    "trio": {"backend": "trio"},
}
WALL_BUDGET = {"httpx": 3.5, "aiohttp": 2.2}
RSS_BUDGET_MB = 150


def make_client(transport: str, providers: dict[str, Any], streams: int) -> lb.Client:
    if transport == "single-pool":
        return lb.Client(http_client=single_pool_client(streams), providers=providers)
    return lb.Client(transport=transport, providers=providers)  # type: ignore[arg-type]


def single_pool_client(streams: int) -> httpx.AsyncClient:
    limits = httpx.Limits(max_connections=streams + 10, max_keepalive_connections=streams + 10)
    return httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(60.0))


MESSAGES = [lb.ChatMessage.user("go")]


async def one(client: lb.Client, i: int, events: int, gap_ms: int) -> tuple[float, bool]:
    start = time.perf_counter()
    model = f"p{i}:gpt-4.1-mini"
    response = await client.complete(model, MESSAGES)
    return time.perf_counter() - start, response.text == paced_text(i, events)


async def run(base: str, streams: int, events: int, gap_ms: int, transport: str) -> dict[str, Any]:
    # One provider entry per stream only to give each its own URL (same provider class).
    providers = {
        f"p{i}": {"api_key": "bench-key", "base_url": f"{base}/paced/{i}/{events}/{gap_ms}/v1"}
        for i in range(streams)
    }
    async with make_client(transport, providers, streams) as client:
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


def measure(
    streams: int,
    events: int,
    gap_ms: int,
    rounds: int = 3,
    transport: str = "httpx",
    loop: str = "asyncio",
) -> dict[str, Any]:
    """``rounds`` runs, each on a fresh client (cold pools); the round with the median total
    time is reported, with the worst slowest stream of all rounds beside it."""
    _register(streams)
    with loopback() as base:
        runs = [
            anyio.run(run, base, streams, events, gap_ms, transport, **LOOPS[loop])
            for _ in range(rounds)
        ]
    runs.sort(key=lambda r: r["total"])
    chosen = runs[len(runs) // 2]
    return chosen | {
        "transport": transport,
        "loop": loop,
        "rounds": rounds,
        "worst_slowest": max(r["slowest"] for r in runs),
        "exact": all(r["exact"] for r in runs),
        "rss_mb": peak_rss_mb(),
    }


def markdown(results: list[dict[str, Any]]) -> str:
    first = results[0]
    lines = [
        f"Machine: {machine_note()}. {first['streams']} concurrent `complete()` calls through "
        f"one Client, each stream {first['events']} text deltas paced {first['gap_ms']} ms apart "
        f"by a loopback server in another process; the median of {first['rounds']} rounds "
        "(fresh client each). Wall × = total wall time / the single stream's time.",
        "",
        "| transport | loop | single stream | all streams, wall (×, budget) | client CPU "
        "| slowest stream (worst round) | peak RSS | exact |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in results:
        ratio = r["total"] / r["single"]
        budget = WALL_BUDGET.get(r["transport"])
        verdict = (
            ""
            if budget is None
            else f", ≤ {budget}×" + (" **over budget**" if ratio > budget else "")
        )
        rss = f"{r['rss_mb']:.0f} MB" + (" **over**" if r["rss_mb"] > RSS_BUDGET_MB else "")
        lines.append(
            f"| {r['transport']} | {r['loop']} | {r['single'] * 1e3:.0f} ms "
            f"| {r['total'] * 1e3:.0f} ms ({ratio:.2f}×{verdict}) | {r['client_cpu'] * 1e3:.0f} ms "
            f"| {r['slowest'] * 1e3:.0f} ms ({r['worst_slowest'] * 1e3:.0f} ms) | {rss} "
            f"| {'yes' if r['exact'] else '**NO**'} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--events", type=int, default=100)
    parser.add_argument("--gap-ms", type=int, default=20)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--json", action="store_true", help="print the measures as JSON")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="20 short streams")
    parser.add_argument("--transport", choices=["httpx", "aiohttp", "single-pool"], default="httpx")
    parser.add_argument("--loop", choices=sorted(LOOPS), default="asyncio")
    args = parser.parse_args()
    rounds = args.rounds
    if args.quick:
        args.streams, args.events, args.gap_ms, rounds = 20, 10, 1, 1
    r = measure(args.streams, args.events, args.gap_ms, rounds, args.transport, args.loop)
    if args.json:  # for run_all.py, which runs each combination in a process of its own
        print(json.dumps(r))
        return
    if args.markdown:
        print(markdown([r]))
        return
    print(machine_note())
    for key, value in r.items():
        print(f"{key:<10} {value:.3f}" if isinstance(value, float) else f"{key:<10} {value}")
    if not r["exact"]:
        sys.exit("some stream was not exact")


if __name__ == "__main__":
    main()
