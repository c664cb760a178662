"""Throughput of the prompt-tool-calling parser (``llmbridge.prompt_tools.ToolCallParser``).

    python benchmarks/bench_prompt_tools.py [--runs 5]

Streams ~1 MB of text through ``feed()`` in 1-, 8- and 64-char chunks (chunks are cut before
timing) and reports MB/s (1 MB = 10^6 characters of ASCII text) for:

* plain      — prose with no ``<`` at all (the fast path);
* html       — prose with ``a < b`` and ``<div>`` every ~60 characters (false starts);
* calls      — prose with a ``<function_call>`` (JSON arguments, nested, escapes) every ~600 chars;
* one call   — a single call whose arguments are the whole 1 MB.

The last column is the time for 2 MB divided by the time for 1 MB: linear parsing gives ~2.0.
Budget (performance issue): plain ≥ 30 MB/s at 64-char chunks, ≥ 2 MB/s at 1-char chunks,
doubling costs 1.8-2.2x. CPU time (``time.process_time``), collector off, best of
``--runs`` runs each.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

from llmbridge.prompt_tools import ToolCallParser

MB = 1_000_000
PROSE = "The quick brown fox jumps over the lazy dog; streaming text passes right through. "


def plain(size: int) -> str:
    return (PROSE * (size // len(PROSE) + 1))[:size]


def html(size: int) -> str:
    unit = "If a < b then <div>print it</div> as usual in the page, ok. "
    return (unit * (size // len(unit) + 1))[:size]


def calls(size: int) -> str:
    args = json.dumps(
        {"city": "Paris {centre}", "q": 'say "hi" \\ é', "opts": {"n": [1, 2, {"x": None}]}}
    )
    unit = PROSE * 6 + f'<function_call>{{"name": "search", "arguments": {args}}}</function_call>\n'
    return unit * max(1, size // len(unit))


def one_call(size: int) -> str:
    blob = json.dumps({"data": ('x{}"é' * (size // 5))[: size - 40]})
    return f'<function_call>{{"name": "search", "arguments": {blob}}}</function_call>'


def run_once(chunks: list[str]) -> float:
    parser = ToolCallParser(tool_names=["search"])
    feed = parser.feed
    gc.disable()  # as timeit does: collector pauses are noise here
    try:
        start = time.process_time()
        for chunk in chunks:
            feed(chunk)
        parser.close()
        return time.process_time() - start
    finally:
        gc.enable()


def best(doc: str, step: int, runs: int) -> float:
    chunks = [doc[i : i + step] for i in range(0, len(doc), step)]
    return min(run_once(chunks) for _ in range(runs))


CASES: dict[str, Callable[[int], str]] = {
    "plain": plain,
    "html": html,
    "calls": calls,
    "one call": one_call,
}


def measure(runs: int, size: int = MB) -> list[tuple[str, int, float, float]]:
    """``(text, chunk, MB/s, time(2x) / time(1x))`` rows."""
    rows = []
    for name, make in CASES.items():
        small, large = make(size), make(2 * size)
        for step in (1, 8, 64):
            t1 = best(small, step, runs)
            t2 = best(large, step, runs)
            rows.append((name, step, len(small) / t1 / MB, t2 / t1))
    return rows


def markdown(rows: list[tuple[str, int, float, float]], runs: int) -> str:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from harness import machine_note

    lines = [
        f"Machine: {machine_note()}. ``ToolCallParser.feed`` over 1 MB (and 2 MB) of streamed "
        f"text, best of {runs}; budget: plain ≥ 30 MB/s at 64-char chunks, ≥ 2 MB/s at 1-char "
        "chunks, 2 MB / 1 MB time within 1.8-2.2.",
        "",
        "| text | chunk chars | MB/s | time 2 MB / 1 MB |",
        "|---|---:|---:|---:|",
    ]
    lines += [f"| {n} | {c} | {mbs:.1f} | {ratio:.2f} |" for n, c, mbs, ratio in rows]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--quick", action="store_true", help="10 kB, one run: checks the script runs")
    args = ap.parse_args()
    runs = 1 if args.quick else args.runs
    rows = measure(runs, 10_000 if args.quick else MB)
    if args.markdown:
        print(markdown(rows, runs))
        return
    print(f"{'text':<10} {'chunk':>6} {'MB/s':>9} {'2MB/1MB time':>13}")
    for name, step, mbs, ratio in rows:
        print(f"{name:<10} {step:>6} {mbs:>9.1f} {ratio:>13.2f}")


if __name__ == "__main__":
    main()
