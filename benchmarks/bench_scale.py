"""Many paced streams through one client, against the raw stack, measured where users feel it.

    python benchmarks/bench_scale.py [--sizes 1000,5000] [--events 100] [--gap-ms 20]
                                     [--clients raw,default,aiohttp] [--loop asyncio]
                                     [--rounds 1] [--markdown] [--json]

In a real stream each event arrives on its own socket read, so the HTTP stack, not the decoder,
sets the cost. ``loopback.py`` (a process of its own: its CPU is not the client's) serves every
stream paced like a model: ``--events`` Chat Completions text deltas unique to the stream, one
every ``--gap-ms`` ms (plus the role chunk, the finish chunk and ``[DONE]``: ``events + 3`` SSE
events a stream). For each size, each client runs in a fresh process of its own (so its peak
RSS is its own), all streams at once through one client:

* ``raw``: the raw stack, httpx + httpx-sse with one pool sized for every stream
  (``max_connections = streams + 10``), ``orjson.loads`` of each event and the text joined;
* ``default``: ``lb.Client()`` as it comes (httpx on httpcore, sharded pools, its limits);
* ``aiohttp``: ``lb.Client(transport="aiohttp")`` (the ``aiohttp`` extra; asyncio / uvloop);
* ``default-sized``, ``aiohttp-sized`` (on request, ``--clients``): the same with ``limits``
  sized for every stream, as the raw stack's pool (by default a client holds at most 2,048
  connections, and the other streams wait for one).

llmbridge streams go through ``complete()`` on one provider (the stream's index is its model
name, ``s<i>``). Reported per client: client CPU per SSE event (``time.process_time`` of the
client process over the concurrent phase) and its ratio to ``raw``; wall time; peak RSS per
stream = (peak RSS during the phase - RSS before it) / streams (``VmHWM`` reset through
``/proc/self/clear_refs`` where the kernel allows, else the process's peak); streams failed;
whether every stream's text is exact. The load average and the server's CPU are printed beside
them: on a shared machine the figures move with the neighbours. Budgets (issue 34): CPU per
event ≤ 1.10x raw, peak RSS ≤ 64 KB per stream, every stream exact.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import machine_note
from streams import paced_text

CPU_BUDGET = 1.10
RSS_BUDGET_KB = 64
LOOPS: dict[str, dict[str, Any]] = {
    "asyncio": {"backend": "asyncio"},
    "uvloop": {"backend": "asyncio", "backend_options": {"use_uvloop": True}},
    "trio": {"backend": "trio"},
}
CLIENTS = ("raw", "default", "aiohttp")
SIZED = ("default-sized", "aiohttp-sized")
"""Also available: llmbridge with ``limits`` sized for every stream, as the raw stack's pool
(the default client holds at most 2,048 connections: the others wait for one)."""


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def _reset_peak() -> bool:
    """Reset ``VmHWM`` to the current RSS (Linux ≥ 4.0); whether it worked."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def _more_files() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# ---- one client, in its own process ---------------------------------------------------------


def _raw_runner(url: str, streams: int) -> Any:
    import httpx
    import orjson
    from httpx_sse import aconnect_sse

    limits = httpx.Limits(max_connections=streams + 10, max_keepalive_connections=streams + 10)
    http = httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(60.0))
    headers = {"authorization": "Bearer bench-key", "content-type": "application/json"}

    async def one(i: int) -> str:
        body = orjson.dumps(
            {"model": f"s{i}", "messages": [{"role": "user", "content": "go"}], "stream": True}
        )
        parts: list[str] = []
        async with aconnect_sse(
            http, "POST", f"{url}/chat/completions", content=body, headers=headers
        ) as source:
            source.response.raise_for_status()
            async for sse in source.aiter_sse():
                if sse.data == "[DONE]":
                    break
                for choice in orjson.loads(sse.data).get("choices") or ():
                    text = choice["delta"].get("content")
                    if text:
                        parts.append(text)
        return "".join(parts)

    return http, one


def _llmbridge_runner(url: str, transport: str, streams: int | None = None) -> Any:
    import httpx

    import llmbridge as lb

    sized = {} if streams is None else {"limits": httpx.Limits(max_connections=streams + 10)}
    client = lb.Client(
        transport=transport,  # type: ignore[arg-type]
        providers={"openai": {"base_url": url, "api_key": "bench-key"}},
        **sized,  # type: ignore[arg-type]
    )
    messages = [lb.ChatMessage.user("go")]

    async def one(i: int) -> str:
        return (await client.complete(f"openai:s{i}", messages)).text

    return client, one


async def _run_one(kind: str, base: str, streams: int, events: int, gap_ms: int) -> dict[str, Any]:
    url = f"{base}/paced/model/{events}/{gap_ms}/v1"
    if kind == "raw":
        closer, one = _raw_runner(url, streams)
    else:
        transport, _, sized = kind.partition("-")  # "default-sized": limits for every stream
        closer, one = _llmbridge_runner(
            url, "httpx" if transport == "default" else transport, streams if sized else None
        )
    async with closer:
        warm = await one(0)  # imports, pools, first connection: outside the measured phase
        results: list[str | None] = [None] * streams
        failures: dict[str, int] = {}
        samples: dict[str, str] = {}

        async def task(i: int) -> None:
            try:
                results[i] = await one(i)
            except Exception as exc:
                name = type(exc).__name__
                failures[name] = failures.get(name, 0) + 1
                samples.setdefault(name, str(exc)[:300])

        gc.collect()
        base_kb = _status_kb("VmRSS")
        reset = _reset_peak()
        wall, cpu = time.perf_counter(), time.process_time()
        async with anyio.create_task_group() as tg:
            for i in range(streams):
                tg.start_soon(task, i)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        peak_kb = _status_kb("VmHWM")
    exact = warm == paced_text(0, events) and all(
        r == paced_text(i, events) for i, r in enumerate(results)
    )
    return {
        "client": kind,
        "streams": streams,
        "events": events,
        "gap_ms": gap_ms,
        "sse_events": streams * (events + 3),
        "cpu": cpu,
        "wall": wall,
        "rss_before_mb": base_kb / 1024,
        "rss_peak_mb": peak_kb / 1024,
        "peak_reset": reset,
        "kb_per_stream": (peak_kb - base_kb) / streams,
        "failed": sum(failures.values()),
        "failures": failures,
        "failure_samples": samples,
        "exact": exact,
    }


# ---- the parent: server, one process per client and size, report -----------------------------


def _proc_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def _server() -> Iterator[tuple[str, int]]:
    script = Path(__file__).resolve().parent / "loopback.py"
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
        preexec_fn=_more_files,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line.startswith("PORT "):
            raise RuntimeError(f"loopback server did not start: {line!r}")
        yield f"http://127.0.0.1:{int(line.split()[1])}", proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _child(
    kind: str, base: str, streams: int, events: int, gap_ms: int, loop: str
) -> dict[str, Any]:
    args = [sys.executable, __file__, "--one", kind, "--base", base, "--loop", loop]
    args += ["--streams", str(streams), "--events", str(events), "--gap-ms", str(gap_ms)]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        return {"client": kind, "streams": streams, "error": done.stderr.strip()[-500:]}
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def measure(
    sizes: list[int],
    events: int,
    gap_ms: int,
    clients: list[str],
    loop: str = "asyncio",
    rounds: int = 1,
) -> list[dict[str, Any]]:
    """Per size, ``rounds`` interleaved rounds of every client (each in a fresh process); the
    round with the median CPU is reported per client."""
    out: list[dict[str, Any]] = []
    with _server() as (base, server_pid):
        for streams in sizes:
            runs: dict[str, list[dict[str, Any]]] = {c: [] for c in clients}
            for _ in range(rounds):
                for kind in clients:
                    load = os.getloadavg()[0]
                    server_cpu = _proc_cpu(server_pid)
                    r = _child(kind, base, streams, events, gap_ms, loop)
                    r |= {"server_cpu": _proc_cpu(server_pid) - server_cpu, "load": load}
                    runs[kind].append(r)
            for kind in clients:
                ok = [r for r in runs[kind] if "cpu" in r]
                if not ok:
                    out.append(runs[kind][0] | {"loop": loop})
                    continue
                ok.sort(key=lambda r: r["cpu"])
                chosen = ok[len(ok) // 2]
                out.append(chosen | {"loop": loop, "rounds": len(ok)})
    for r in out:
        raw = next(
            (
                x
                for x in out
                if x["client"] == "raw" and x["streams"] == r["streams"] and "cpu" in x
            ),
            None,
        )
        if "cpu" in r and raw is not None:
            r["ratio"] = (r["cpu"] / r["sse_events"]) / (raw["cpu"] / raw["sse_events"])
    return out


LABELS = {
    "raw": "raw httpx + httpx-sse (one pool for every stream)",
    "default": "llmbridge, default client",
    "aiohttp": "llmbridge, aiohttp extra",
    "default-sized": "llmbridge, default client, limits for every stream",
    "aiohttp-sized": "llmbridge, aiohttp extra, limits for every stream",
}


def markdown(results: list[dict[str, Any]]) -> str:
    first = next(r for r in results if "cpu" in r)
    lines = [
        f"Machine: {machine_note()}. Paced streams of {first['events']} text deltas "
        f"({first['events'] + 3} SSE events), one every {first['gap_ms']} ms, from a loopback "
        f"server in another process, all at once through one client on {first['loop']}; "
        "each client in a fresh process. Client CPU per SSE event (× = ratio to the raw stack; "
        f"budget ≤ {CPU_BUDGET}×), peak RSS per stream (budget ≤ {RSS_BUDGET_KB} KB), every "
        "stream exact. Load: the 1-minute load average when the run started, and the server's "
        "CPU during it.",
        "",
        "| streams | client | CPU µs / event (×) | wall s | peak RSS / stream | failed | exact "
        "| load | server CPU s |",
        "|---:|---|---:|---:|---:|---:|---|---:|---:|",
    ]
    for r in results:
        if "cpu" not in r:
            lines.append(
                f"| {r['streams']:,} | {LABELS[r['client']]} | failed to run: "
                f"{r.get('error', '?')[-120:]!r} | | | | | | |"
            )
            continue
        per_event = r["cpu"] / r["sse_events"] * 1e6
        ratio = r.get("ratio")
        over = ratio is not None and r["client"] != "raw" and ratio > CPU_BUDGET
        cpu = f"{per_event:.1f}" + (
            f" ({ratio:.2f}×{' **over budget**' if over else ''})" if ratio else ""
        )
        kb = r["kb_per_stream"]
        rss = f"{kb:.1f} KB" + (
            " **over budget**" if kb > RSS_BUDGET_KB and r["client"] != "raw" else ""
        )
        failed = str(r["failed"]) + (f" ({r['failures']})" if r["failed"] else "")
        lines.append(
            f"| {r['streams']:,} | {LABELS[r['client']]} | {cpu} | {r['wall']:.1f} | {rss} "
            f"| {failed} | {'yes' if r['exact'] else '**NO**'} | {r['load']:.1f} "
            f"| {r['server_cpu']:.1f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,5000", help="numbers of streams, comma-separated")
    parser.add_argument("--events", type=int, default=100)
    parser.add_argument("--gap-ms", type=int, default=20)
    parser.add_argument("--clients", default=",".join(CLIENTS))
    parser.add_argument("--loop", choices=sorted(LOOPS), default="asyncio")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--one", choices=CLIENTS + SIZED, help=argparse.SUPPRESS)
    parser.add_argument("--base", help=argparse.SUPPRESS)
    parser.add_argument("--streams", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:  # a child: one client, one size
        _more_files()
        result = anyio.run(
            _run_one,
            args.one,
            args.base,
            args.streams,
            args.events,
            args.gap_ms,
            **LOOPS[args.loop],
        )
        print(json.dumps(result))
        return
    clients = [c for c in args.clients.split(",") if c]
    if args.loop == "trio":  # aiohttp runs on asyncio loops only
        clients = [c for c in clients if not c.startswith("aiohttp")]
    sizes = [int(s) for s in args.sizes.split(",")]
    results = measure(sizes, args.events, args.gap_ms, clients, args.loop, args.rounds)
    if args.json:
        print(json.dumps(results))
    elif args.markdown:
        print(markdown(results))
    else:
        print(markdown(results))
    bad = [r for r in results if "cpu" not in r or not r["exact"]]
    if bad:
        sys.exit("some client failed or a stream was not exact")


if __name__ == "__main__":
    main()
