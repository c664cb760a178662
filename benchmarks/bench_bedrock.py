"""Per-event CPU cost of ``bedrock:`` (Converse stream, AWS event-stream framing) against its
own floor, same bytes, same run.

    python benchmarks/bench_bedrock.py [--runs 21] [--quick]

A long ConverseStream body (2,000 text deltas + one tool call in 400 ``toolUse.input``
fragments, each frame with AWS's ``p`` padding field, as the recorded streams have) is served
in-process by ``httpx.MockTransport`` in 4 KiB chunks and consumed fully:

* floor    — httpx + botocore's ``EventStreamBuffer`` + ``orjson.loads`` per frame, event types
  appended to a list;
* stream() — ``Client.stream("bedrock:…")`` consumed event by event;
* complete() — ``Client.complete`` (stream folded into a ChatResponse, arguments parsed).

CPU µs per frame, median over interleaved rounds; ratios to the floor. Budget (issue 32):
stream() ≤ 1.35×. llmbridge frames the body with the same ``EventStreamBuffer``, so the ratio
is what decoding into events (and the stream layer) costs on top.
"""

from __future__ import annotations

import argparse
import struct
import sys
import zlib
from pathlib import Path
from typing import Any

import httpx
import orjson
from botocore.eventstream import EventStreamBuffer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import CHUNK, Body, machine_note, median_cpu

import llmbridge as lb

MODEL = "bedrock:us.anthropic.claude-haiku-4-5-20251001-v1:0"
MESSAGES = [lb.ChatMessage.user("go")]
TOOLS = [
    lb.ToolSpec(
        name="search",
        description="Search",
        parameters={
            "type": "object",
            "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
        },
    )
]
STREAM_BUDGET = 1.35
PAD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _frame(kind: str, payload: dict[str, Any]) -> bytes:
    headers = {":event-type": kind, ":content-type": "application/json", ":message-type": "event"}
    head = b"".join(
        bytes([len(n)]) + n.encode() + b"\x07" + struct.pack(">H", len(v)) + v.encode()
        for n, v in headers.items()
    )
    data = orjson.dumps(payload)
    prelude = struct.pack(">II", 16 + len(head) + len(data), len(head))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    message = prelude + head + data
    return message + struct.pack(">I", zlib.crc32(message))


def make_body() -> bytes:
    frames = [_frame("messageStart", {"p": PAD[:12], "role": "assistant"})]
    for i in range(2000):
        delta = {"text": f"word{i} "}
        frames.append(
            _frame(
                "contentBlockDelta",
                {"contentBlockIndex": 0, "delta": delta, "p": PAD[: 5 + i % 40]},
            )
        )
    frames.append(_frame("contentBlockStop", {"contentBlockIndex": 0, "p": PAD[:9]}))
    start = {"toolUse": {"toolUseId": "tooluse_bench0123456789", "name": "search"}}
    frames.append(
        _frame("contentBlockStart", {"contentBlockIndex": 1, "start": start, "p": PAD[:7]})
    )
    args = orjson.dumps({"query": "x" * 1190, "limit": 5}).decode()
    size = -(-len(args) // 400)
    for i in range(400):
        piece = args[i * size : (i + 1) * size]
        delta = {"toolUse": {"input": piece}}
        frames.append(
            _frame(
                "contentBlockDelta",
                {"contentBlockIndex": 1, "delta": delta, "p": PAD[: 5 + i % 40]},
            )
        )
    frames.append(_frame("contentBlockStop", {"contentBlockIndex": 1, "p": PAD[:20]}))
    frames.append(_frame("messageStop", {"stopReason": "tool_use", "p": PAD[:30]}))
    usage = {"inputTokens": 10, "outputTokens": 2400, "totalTokens": 2410}
    frames.append(_frame("metadata", {"usage": usage, "metrics": {"latencyMs": 900}, "p": PAD[:5]}))
    return b"".join(frames)


def http_for(body: bytes) -> httpx.AsyncClient:
    def handler(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "application/vnd.amazon.eventstream"}
        return httpx.Response(200, headers=headers, stream=Body(body))

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def floor(body: bytes) -> int:
    kinds: list[str] = []
    async with http_for(body) as http, http.stream("POST", "https://x.test/", json={}) as resp:
        buffer = EventStreamBuffer()
        async for chunk in resp.aiter_bytes():
            buffer.add_data(chunk)
            for message in buffer:
                obj = orjson.loads(message.payload)
                if isinstance(obj, dict):
                    kinds.append(message.headers[":event-type"])
    return len(kinds)


def _client(body: bytes) -> lb.Client:
    providers = {"bedrock": {"api_key": "bench-key", "region": "us-east-1"}}
    return lb.Client(http_client=http_for(body), providers=providers)


async def via_stream(body: bytes) -> int:
    n = 0
    async for _event in _client(body).stream(MODEL, MESSAGES, tools=TOOLS):
        n += 1
    return n


async def via_complete(body: bytes) -> int:
    resp = await _client(body).complete(MODEL, MESSAGES, tools=TOOLS)
    assert resp.tool_calls and resp.tool_calls[0].arguments["limit"] == 5
    assert resp.text.startswith("word0 word1 ")
    return 1


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--quick", action="store_true", help="one round, to check the script runs")
    args = parser.parse_args()
    runs = 1 if args.quick else args.runs
    body = make_body()
    frames = sum(1 for _ in _iter_frames(body))
    per = 1e6 / frames
    t = median_cpu(
        {
            "floor": lambda: floor(body),
            "stream": lambda: via_stream(body),
            "complete": lambda: via_complete(body),
        },
        runs=runs,
    )
    f = t["floor"] * per
    print(f"{machine_note()}; {frames} frames in {CHUNK}-byte chunks; median of {runs} rounds")
    print(f"floor (EventStreamBuffer + orjson.loads): {f:.2f} µs/frame")
    for key in ("stream", "complete"):
        value = t[key] * per
        flag = (
            " (over the 1.35× budget)"
            if key == "stream" and round(value / f, 2) > STREAM_BUDGET
            else ""
        )
        print(f"{key}(): {value:.2f} µs/frame ({value / f:.2f}×){flag}")


def _iter_frames(body: bytes) -> Any:
    buffer = EventStreamBuffer()
    buffer.add_data(body)
    return iter(buffer)


if __name__ == "__main__":
    main()
