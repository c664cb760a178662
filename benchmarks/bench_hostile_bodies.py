"""Hostile bodies through every framing (SSE, AWS event stream, NDJSON): time per MB and the
worst loop stall, at growing sizes (issue 49, items 1 and 2).

    python benchmarks/bench_hostile_bodies.py [--markdown] [--sizes 1,2,4]

Cases, each through ``Client.stream`` over an in-process transport (no socket, so the
figures are the framing's and the decoder's work):

* ``gzip-tiny``: a gzip body of many tiny frames served as one network read (SSE: one-character
  text deltas; event stream: empty 16-byte frames; NDJSON: ``{}`` lines), the shape that
  inflated a whole read at once and froze the loop (8 KB of gzip took 85 s on the event stream).
* ``huge-frame``: one frame (an event, a frame, a line) of the size given, sent in 1 KiB
  pieces (the event stream took 115 s for 8 MiB).

A task ticking every 10 ms (``tests.heartbeat.Heartbeat.run``) records its longest gap: the
worst time the loop was held. Linear
means the ``s/MB`` column stays flat as the size doubles. One run per row (CPU-bound, seconds).
"""

from __future__ import annotations

import argparse
import gzip
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from harness import machine_note

import llmbridge as lb
from tests.heartbeat import Heartbeat
from tests.providers.bedrock.frames import event, raw_frame

MiB = 1024 * 1024
EMPTY_FRAME = raw_frame(b"", b"")  # 16 bytes, no message type: skipped


def _sse(obj: object) -> bytes:
    return b"data: " + orjson.dumps(obj) + b"\n\n"


def _line(**fields: object) -> bytes:
    return orjson.dumps({"model": "m", "created_at": "2026-01-02T03:04:05Z", **fields}) + b"\n"


SSE_END = (
    _sse({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}) + b"data: [DONE]\n\n"
)
ES_START = event("messageStart", {"role": "assistant"})
ES_END = event("contentBlockStop", {"contentBlockIndex": 0}) + event("messageStop", {})
ND_END = _line(message={"role": "assistant", "content": ""}, done=True, done_reason="stop")


def _fill(unit: bytes, size: int) -> bytes:
    return unit * max(1, size // len(unit))


def _sse_tiny(size: int) -> bytes:
    return _fill(_sse({"choices": [{"index": 0, "delta": {"content": "x"}}]}), size) + SSE_END


def _es_tiny(size: int) -> bytes:
    return ES_START + _fill(EMPTY_FRAME, size) + ES_END


def _nd_tiny(size: int) -> bytes:
    return _fill(b"{}\n", size) + ND_END


def _sse_huge(size: int) -> bytes:
    text = "x" * size
    return _sse({"choices": [{"index": 0, "delta": {"content": text}}]}) + SSE_END


def _es_huge(size: int) -> bytes:
    delta = {"contentBlockIndex": 0, "delta": {"text": "x" * size}}
    return ES_START + event("contentBlockDelta", delta) + ES_END


def _nd_huge(size: int) -> bytes:
    return _line(message={"role": "assistant", "content": "x" * size}, done=False) + ND_END


FRAMINGS: dict[str, tuple[str, bytes, dict[str, Callable[[int], bytes]]]] = {
    "sse": ("openai-compatible:m", b"text/event-stream", {"gzip-tiny": _sse_tiny, "huge-frame": _sse_huge}),
    "aws-eventstream": ("bedrock:m", b"application/vnd.amazon.eventstream", {"gzip-tiny": _es_tiny, "huge-frame": _es_huge}),
    "ndjson": ("ollama-native:m", b"application/x-ndjson", {"gzip-tiny": _nd_tiny, "huge-frame": _nd_huge}),
}  # fmt: skip
PROVIDERS = {
    "openai-compatible": {"base_url": "http://bench.test/v1"},
    "bedrock": {"api_key": "bench-key", "region": "us-east-1"},
    "ollama-native": {"base_url": "http://bench.test"},
}


async def _one(model: str, content_type: bytes, body: bytes, case: str) -> tuple[float, float]:
    if case == "gzip-tiny":
        wire, headers = gzip.compress(body), {"content-encoding": "gzip"}
        chunks = [wire[i : i + 65536] for i in range(0, len(wire), 65536)]
    else:
        headers, chunks = {}, [body[i : i + 1024] for i in range(0, len(body), 1024)]

    def handler(request: httpx.Request) -> httpx.Response:
        head = {"content-type": content_type.decode(), **headers}
        return httpx.Response(200, headers=head, stream=_Chunks(chunks))

    ticker = Heartbeat(interval=0.01)
    async with (
        httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http,
        anyio.create_task_group() as tg,
    ):
        tg.start_soon(ticker.run)
        await anyio.sleep(0.02)
        client = lb.Client(
            http_client=http,
            providers=PROVIDERS,
            max_event_bytes=64 * MiB,  # type: ignore[arg-type]
        )
        start = time.perf_counter()
        async for _ in client.stream(model, [lb.ChatMessage.user("hi")]):
            pass
        took = time.perf_counter() - start
        await anyio.sleep(0.02)
        tg.cancel_scope.cancel()
    return took, ticker.longest_gap


class _Chunks(httpx.AsyncByteStream):
    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    async def __aiter__(self) -> Any:
        for piece in self.chunks:
            yield piece


def measure(sizes: list[float]) -> list[dict[str, Any]]:
    rows = []
    for model, content_type, cases in FRAMINGS.values():  # warm up: imports, first client
        anyio.run(_one, model, content_type, cases["gzip-tiny"](4096), "gzip-tiny")
    for framing, (model, content_type, cases) in FRAMINGS.items():
        for case, build in cases.items():
            for size in sizes:
                body = build(int(size * MiB))
                took, stall = anyio.run(_one, model, content_type, body, case)
                mb = len(body) / 1e6
                rows.append(
                    {
                        "framing": framing,
                        "case": case,
                        "MB": mb,
                        "wire_KB": len(gzip.compress(body)) / 1e3
                        if case == "gzip-tiny"
                        else mb * 1e3,
                        "s": took,
                        "s_per_MB": took / mb,
                        "stall_ms": stall * 1e3,
                    }
                )
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    out = [
        f"Machine: {machine_note()}. One run per row; stall = the longest gap of a 10 ms ticker.",
        "",
        "| framing | case | decoded MB | on the wire | time | s/MB | worst loop stall |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        out.append(
            f"| {r['framing']} | {r['case']} | {r['MB']:.1f} | {r['wire_KB']:,.0f} KB | "
            f"{r['s']:.2f} s | {r['s_per_MB']:.3f} | {r['stall_ms']:.0f} ms |"
        )
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--sizes", default="1,2,4", help="decoded MiB per body, comma-separated")
    args = parser.parse_args()
    rows = measure([float(s) for s in args.sizes.split(",")])
    if args.markdown:
        print(markdown(rows))
    else:
        for r in rows:
            print({k: round(v, 3) if isinstance(v, float) else v for k, v in r.items()})


if __name__ == "__main__":
    main()
