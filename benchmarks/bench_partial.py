"""What partial values cost: ``PartialObject`` events and ``partial_tool_arguments``.

    python benchmarks/bench_partial.py [--runs 5] [--markdown] [--quick]

A JSON object of ~200 KB (and the same object doubled, ~400 KB) is streamed in OpenAI Chat
Completions chunks of 20 characters each, served in-process (``httpx.MockTransport``, 4 KiB
reads) and consumed with ``Client.stream``:

* as reply text, without and with ``response_format`` (which adds ``PartialObject`` events);
* as one tool call's arguments, without and with ``partial_tool_arguments=True``.

CPU ms per stream, median over interleaved rounds. Budget (structured-output issue): with
partial values at most 3× the CPU of the same stream without them, and the ratio must not
grow when the object doubles (the cost stays linear).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import http_for, machine_note, median_cpu

import llmbridge as lb

DELTA = 20
BUDGET = 3.0
MODEL = "openai:gpt-4.1-mini"
MESSAGES = [lb.ChatMessage.user("go")]
SCHEMA = {"type": "object", "properties": {"items": {"type": "array"}}}
TOOLS = [lb.ToolSpec(name="save", description="Save items", parameters=SCHEMA)]


def document(copies: int) -> str:
    """~200 KB of JSON per copy: nested objects, strings, numbers, lists."""
    items = [
        {
            "id": i,
            "name": f"item number {i}",
            "price": round(i * 1.25, 2),
            "tags": ["red", "large"] if i % 2 else ["blue"],
            "note": "a description with some words in it, " * 2,
        }
        for i in range(1100 * copies)
    ]
    return orjson.dumps({"items": items}).decode()


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    obj = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [choice]}
    return b"data: " + orjson.dumps(obj) + b"\n\n"


def as_text(text: str) -> bytes:
    pieces = (text[i : i + DELTA] for i in range(0, len(text), DELTA))
    out = [_chunk({"content": p}) for p in pieces]
    return b"".join([*out, _chunk({}, "stop"), b"data: [DONE]\n\n"])


def as_tool_call(text: str) -> bytes:
    start = {"index": 0, "id": "call_1", "type": "function"}
    out = [_chunk({"tool_calls": [{**start, "function": {"name": "save", "arguments": ""}}]})]
    for i in range(0, len(text), DELTA):
        fragment = {"index": 0, "function": {"arguments": text[i : i + DELTA]}}
        out.append(_chunk({"tool_calls": [fragment]}))
    return b"".join([*out, _chunk({}, "tool_calls"), b"data: [DONE]\n\n"])


async def consume(body: bytes, **options: Any) -> int:
    client = lb.Client(http_client=http_for(body), providers={"openai": {"api_key": "bench"}})
    n = 0
    async with client, client.stream(MODEL, MESSAGES, **options) as stream:
        async for _event in stream:
            n += 1
    return n


def measure(runs: int) -> list[dict[str, Any]]:
    rows = []
    for copies in (1, 2):
        text = document(copies)
        reply, call = as_text(text), as_tool_call(text)
        t = median_cpu(
            {
                "text": lambda reply=reply: consume(reply),
                "objects": lambda reply=reply: consume(reply, response_format=SCHEMA),
                "call": lambda call=call: consume(call, tools=TOOLS),
                "arguments": lambda call=call: consume(
                    call, tools=TOOLS, partial_tool_arguments=True
                ),
            },
            runs=runs,
        )
        rows.append({"kb": len(text) / 1000, "deltas": -(-len(text) // DELTA)} | t)
    return rows


def markdown(rows: list[dict[str, Any]], runs: int) -> str:
    lines = [
        f"Machine: {machine_note()}. A JSON object streamed in {DELTA}-character deltas "
        f"(OpenAI Chat chunks, in-process); CPU ms per stream, median of {runs} interleaved "
        f"rounds; × = ratio to the same stream without partial values (budget ≤ {BUDGET}×, "
        "not growing with size).",
        "",
        "| object | deltas | text ms | + PartialObject ms (×) | tool call ms "
        "| + partial_tool_arguments ms (×) |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        cells = []
        for base, key in (("text", "objects"), ("call", "arguments")):
            ratio = r[key] / r[base]
            flag = " **over budget**" if ratio > BUDGET else ""
            cells.append(f"{r[base] * 1e3:.1f} | {r[key] * 1e3:.1f} ({ratio:.2f}×){flag}")
        lines.append(f"| {r['kb']:.0f} KB | {r['deltas']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--quick", action="store_true", help="one round, to check the script runs")
    args = parser.parse_args()
    runs = 1 if args.quick else args.runs
    rows = measure(runs)
    print(markdown(rows, runs) if args.markdown else rows)


if __name__ == "__main__":
    main()
