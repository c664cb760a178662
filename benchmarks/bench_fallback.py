"""Throughput of the prompt-tool-calling parser (``llmbridge.fallback.ToolCallParser``).

    python benchmarks/bench_fallback.py [--runs 5]

Streams ~1 MB of text through ``feed()`` in 1-char and 64-char chunks (chunks are cut before
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
import time
from collections.abc import Callable

from llmbridge.fallback import ToolCallParser

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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    runs = ap.parse_args().runs
    cases: dict[str, Callable[[int], str]] = {
        "plain": plain,
        "html": html,
        "calls": calls,
        "one call": one_call,
    }
    print(f"{'text':<10} {'chunk':>6} {'MB/s':>9} {'2MB/1MB time':>13}")
    for name, make in cases.items():
        small, large = make(MB), make(2 * MB)
        for step in (1, 64):
            t1 = best(small, step, runs)
            t2 = best(large, step, runs)
            print(f"{name:<10} {step:>6} {len(small) / t1 / MB:>9.1f} {t2 / t1:>13.2f}")


if __name__ == "__main__":
    main()
