"""``python -m tests.embeddings.peak_probe asyncio|trio``: embed 1,500 base64 vectors of 256
floats, split into three calls by the 16 MB answer bound, into one numpy array, and print
(JSON) the traced peak memory of that call over the raw vectors' bytes.

Run in a fresh interpreter by ``test_embeddings_memory.py``: ``tracemalloc`` counts every
thread's allocations, so a peak measured inside a test worker also counted whatever an earlier
test left running (it read 1.52x there, 1.41x alone)."""

from __future__ import annotations

import base64
import sys
import tracemalloc
from typing import Any

import anyio
import httpx
import numpy as np
import orjson

import llmbridge as lb

DIMS, COUNT, PIECE = 256, 1500, 680  # three pieces of at most 680


def _bodies(rows: Any) -> dict[tuple[int, int], bytes]:
    """Each piece's answer, items in reverse order, made before the measurement."""
    bodies: dict[tuple[int, int], bytes] = {}
    for first in range(0, COUNT, PIECE):
        size = min(PIECE, COUNT - first)
        items = [
            {"index": i, "embedding": base64.b64encode(rows[first + i].tobytes()).decode()}
            for i in reversed(range(size))
        ]
        answer = {"data": items, "model": "m", "usage": {"prompt_tokens": size}}
        bodies[(first, size)] = orjson.dumps(answer)
    return bodies


async def measure() -> dict[str, Any]:
    rows = np.random.default_rng(46).uniform(-1, 1, (COUNT, DIMS)).astype("<f4")
    bodies = _bodies(rows)

    def handler(request: httpx.Request) -> httpx.Response:
        texts = orjson.loads(request.content)["input"]
        return httpx.Response(200, content=bodies[(int(texts[0]), len(texts))])

    client = lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)),
        providers={"openai": {"api_key": "k"}},
    )
    async with client:
        texts = [str(i) for i in range(COUNT)]
        await client.embed("openai:text-embedding-3-small", texts[:1] * PIECE)  # warm up
        tracemalloc.start()
        try:
            got = await client.embed("openai:text-embedding-3-small", texts)
            array = got.numpy()
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    return {
        "ratio": peak / rows.nbytes,
        "shape": list(array.shape),
        "equal": bool(np.array_equal(array, rows)),
        "input_tokens": got.usage.input_tokens if got.usage else None,
    }


if __name__ == "__main__":
    sys.stdout.write(orjson.dumps(anyio.run(measure, backend=sys.argv[1])).decode())
