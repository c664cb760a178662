"""Decoding base64 embeddings: llmbridge against the openai SDK on the same bytes, and memory.

    python benchmarks/bench_embeddings.py [--runs 5] [--quick]

One ``/embeddings`` answer of 2,048 vectors × 3,072 dimensions (float32, base64 as the openai
SDK asks for them; ``--quick``: 64 × 3,072), served in-process by ``httpx.MockTransport``:

* openai SDK  — ``AsyncOpenAI().embeddings.create`` (its own base64 decoding: numpy when
  installed, else ``array``), vectors as ``list[float]``;
* embed()     — ``Client.embed`` then ``.vectors`` (``list[float]``);
* numpy()     — ``Client.embed`` then ``.numpy()`` (when numpy is installed): no Python float.

CPU seconds (median of interleaved rounds) and, by ``tracemalloc``, the peak memory of each
call beyond the answer's bytes and what the result keeps, as multiples of the raw float32 size.
Goal (issue 46): no slower than the SDK; memory ≤ 1.5× the raw vectors for the numpy path.
llmbridge splits the full list into requests whose answers fit ``MAX_JSON_BODY`` (16 MB).
"""

from __future__ import annotations

import argparse
import base64
import gc
import random
import struct
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import anyio
import httpx
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import machine_note, median_cpu

import llmbridge as lb


def answer(count: int, dims: int) -> bytes:
    rng = random.Random(46)
    row = struct.pack(f"<{dims}f", *(rng.uniform(-1, 1) for _ in range(dims)))
    data = [
        {"object": "embedding", "index": i, "embedding": base64.b64encode(row).decode()}
        for i in range(count)
    ]
    return orjson.dumps(
        {
            "object": "list",
            "data": data,
            "model": "text-embedding-3-large",
            "usage": {"prompt_tokens": count, "total_tokens": count},
        }
    )


def transport(body: bytes) -> httpx.MockTransport:
    """Answers each request with as many vectors as it has inputs (llmbridge splits a list
    whose answer would pass ``MAX_JSON_BODY``; the SDK sends it whole)."""
    whole = orjson.loads(body)
    bodies: dict[int, bytes] = {len(whole["data"]): body}

    def handler(request: httpx.Request) -> httpx.Response:
        count = len(orjson.loads(request.content)["input"])
        if count not in bodies:
            bodies[count] = orjson.dumps({**whole, "data": whole["data"][:count]})
        headers = {"content-type": "application/json"}
        return httpx.Response(200, content=bodies[count], headers=headers)

    return httpx.MockTransport(handler)


def variants(body: bytes, count: int) -> dict[str, Any]:
    inputs = ["x"] * count
    found: dict[str, Any] = {}
    served = transport(body)  # one for all runs: its answers are made before any is timed
    try:
        import openai
    except ImportError:
        openai = None
    if openai is not None:

        async def sdk(memory: list[int] | None = None) -> None:
            async with openai.AsyncOpenAI(
                api_key="k", http_client=httpx.AsyncClient(transport=served)
            ) as client:
                start(memory)
                got = await client.embeddings.create(model="text-embedding-3-large", input=inputs)
                assert len(got.data[-1].embedding) > 0
                stop(memory)

        found["openai SDK"] = sdk

    def ours(take: str) -> Any:
        async def run(memory: list[int] | None = None) -> None:
            async with lb.Client(
                http_client=httpx.AsyncClient(transport=served),
                providers={"openai": {"api_key": "k"}},
            ) as client:
                client.provider("openai")
                start(memory)
                got = await client.embed("openai:text-embedding-3-large", inputs)
                result = got.vectors if take == "vectors" else got.numpy()
                assert len(result) == count
                stop(memory)

        return run

    found["embed()"] = ours("vectors")
    try:
        import numpy  # noqa: F401

        found["numpy()"] = ours("numpy")
    except ImportError:
        pass
    return found


def start(memory: list[int] | None) -> None:
    if memory is not None:
        gc.collect()
        tracemalloc.start()


def stop(memory: list[int] | None) -> None:
    """Record (peak, still held) of the call just made: its result is still referenced."""
    if memory is not None:
        current, high = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        memory.extend((high, current))


def peak(fn: Any) -> tuple[int, int]:
    """(peak bytes allocated during the call, bytes its result holds), by tracemalloc."""
    memory: list[int] = []
    anyio.run(fn, memory)
    return memory[0], memory[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="64 vectors, one round")
    args = parser.parse_args()
    count, dims = (64, 3072) if args.quick else (2048, 3072)
    runs = 1 if args.quick else args.runs
    body = answer(count, dims)
    raw = count * dims * 4
    print(
        f"{count} × {dims} float32 = {raw / 1e6:.1f} MB raw, answer {len(body) / 1e6:.1f} MB; "
        f"{machine_note()}"
    )
    found = variants(body, count)
    times = median_cpu(found, runs=runs)
    base = times.get("openai SDK")
    print(f"{'variant':<12} {'CPU s':>8} {'vs SDK':>7} {'peak/raw':>9} {'held/raw':>9}")
    for name, fn in found.items():
        high, held = peak(fn)
        ratio = f"{times[name] / base:.2f}x" if base else "-"
        print(f"{name:<12} {times[name]:>8.3f} {ratio:>7} {high / raw:>8.2f}x {held / raw:>8.2f}x")
    print(
        "peak/raw: tracemalloc's peak during the call (the answer's bytes and parsed JSON "
        "included) over the raw float32 size; held/raw: what the result keeps"
    )


if __name__ == "__main__":
    main()
