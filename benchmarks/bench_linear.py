"""Hostile sizes that once cost N²: each row's time grows with the input, not its square.

    python benchmarks/bench_linear.py [--markdown] [--quick]

Rows (issue 49):

* **one tool-call id repeated** N times in one response (2,000 and 8,000 calls), decoded
  sans-IO by the ollama-native (one NDJSON line), openai-compatible and cohere decoders. Each
  copy of ``x`` once retried ``x, x_2 … x_k``: 8,000 calls took 120 s; linear means the
  8,000-call time is about 4× the 2,000-call time (quadratic: 16×).
* **tool searches and their results** folded into one response (2,000 and 8,000 searches,
  then a result for each, the first first): each result scanned every search (8,000: 1.8 s).
* **prose before the JSON** of a structured reply: 250 KB and 1 MB of prose, then a small
  object, fed to ``PartialJson`` in 4-character deltas. The opener was looked for one
  character at a time in Python, again on every parse (~7 µs of CPU per character).

CPU time of this process (``time.process_time``), best of 3 (``--quick``: one run).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import machine_note

import llmbridge as lb
from llmbridge.providers.cohere import CohereDecoder
from llmbridge.providers.ollama_native import OllamaDecoder
from llmbridge.providers.openai import ChatCompletionsDecoder
from llmbridge.structured.partial_json import PartialJson
from llmbridge.testing import decode_collect

CALLS = (2_000, 8_000)
PROSE = (250_000, 1_000_000)
DELTA = 4


def ollama_body(n: int) -> bytes:
    calls = [{"id": "x", "function": {"name": "f", "arguments": {"i": i}}} for i in range(n)]
    line = {"model": "m", "message": {"role": "assistant", "tool_calls": calls}, "done": False}
    done = {"model": "m", "message": {"role": "assistant"}, "done": True, "done_reason": "stop"}
    return orjson.dumps(line) + b"\n" + orjson.dumps(done) + b"\n"


def chat_body(n: int) -> bytes:
    out = []
    for i in range(n):
        fragment = {"index": i, "id": "x", "function": {"name": "f", "arguments": "{}"}}
        delta = {"tool_calls": [fragment]}
        out.append(orjson.dumps({"id": "c", "choices": [{"index": 0, "delta": delta}]}))
    end = {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
    out.append(orjson.dumps(end))
    return b"".join(b"data: " + o + b"\n\n" for o in out) + b"data: [DONE]\n\n"


def _cohere(data: dict[str, Any]) -> bytes:
    return b"event: " + data["type"].encode() + b"\ndata: " + orjson.dumps(data) + b"\n\n"


def cohere_body(n: int) -> bytes:
    out = [_cohere({"id": "r", "type": "message-start", "delta": {"message": {}}})]
    for i in range(n):
        call = {"id": "x", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        message = {"tool_calls": call}
        out.append(_cohere({"type": "tool-call-start", "index": i, "delta": {"message": message}}))
        out.append(_cohere({"type": "tool-call-end", "index": i}))
    end = {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL", "usage": {}}}
    return b"".join(out) + _cohere(end)


DECODERS: dict[str, tuple[Callable[[], Any], Callable[[int], bytes], str]] = {
    "ollama-native": (OllamaDecoder, ollama_body, "ndjson"),
    "openai-compatible": (
        lambda: ChatCompletionsDecoder(provider="openai-compatible"),
        chat_body,
        "sse",
    ),
    "cohere": (CohereDecoder, cohere_body, "sse"),
}


def best(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def decode_ids(provider: str, n: int, runs: int) -> float:
    new_decoder, build, framing = DECODERS[provider]
    body = build(n)

    def run() -> None:
        events, error = decode_collect(new_decoder(), [body], framing=framing)
        assert error is None and len(events) > n

    return best(run, runs)


def fold_searches(n: int, runs: int) -> float:
    searches = [lb.ToolSearchCall(id=f"s{i}", query="q") for i in range(n)]
    results = [lb.ToolSearchCall(id=f"s{i}", tools=["t"]) for i in range(n)]

    def run() -> None:
        acc = lb.Accumulator(provider="bench")
        for event in searches + results:
            acc.add(event)
        assert len(acc.response().tool_searches) == n

    return best(run, runs)


def feed_prose(size: int, runs: int) -> float:
    text = ("Here is some prose about the weather. " * (size // 38 + 1))[:size] + '{"a": 1}'

    def run() -> None:
        partial = PartialJson()
        for i in range(0, len(text), DELTA):
            partial.feed(text[i : i + DELTA])
        partial.finish()
        assert partial.value == {"a": 1}

    return best(run, runs)


def measure(*, quick: bool = False) -> dict[str, Any]:
    runs = 1 if quick else 3
    ids = {p: [decode_ids(p, n, runs) for n in CALLS] for p in DECODERS}
    searches = [fold_searches(n, runs) for n in CALLS]
    prose = [feed_prose(size, runs) for size in PROSE]
    return {"runs": runs, "ids": ids, "searches": searches, "prose": prose}


def markdown(r: dict[str, Any]) -> str:
    lines = [
        f"Machine: {machine_note()}. CPU time, best of {r['runs']}; linear: the big case "
        "costs its size ratio (4×), quadratic would cost 16×.",
        "",
        f"| case | {CALLS[0]:,} | {CALLS[1]:,} | ratio |",
        "|---|---:|---:|---:|",
    ]
    for provider, (small, big) in r["ids"].items():
        lines.append(
            f"| one tool-call id repeated, {provider} decoder | {small * 1e3:.0f} ms "
            f"| {big * 1e3:.0f} ms | {big / small:.1f}× |"
        )
    small, big = r["searches"]
    lines.append(
        f"| tool searches and their results, `Accumulator` | {small * 1e3:.0f} ms "
        f"| {big * 1e3:.0f} ms | {big / small:.1f}× |"
    )
    small, big = r["prose"]
    lines += [
        "",
        f"| case | {PROSE[0] // 1000} KB | {PROSE[1] // 1000} KB | ratio | µs per character |",
        "|---|---:|---:|---:|---:|",
        f"| prose before the JSON, `PartialJson` in {DELTA}-character deltas "
        f"| {small * 1e3:.0f} ms | {big * 1e3:.0f} ms | {big / small:.1f}× "
        f"| {big / PROSE[1] * 1e6:.2f} |",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--quick", action="store_true", help="one run, to check the script runs")
    args = parser.parse_args()
    r = measure(quick=args.quick)
    print(markdown(r) if args.markdown else r)


if __name__ == "__main__":
    main()
