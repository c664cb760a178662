"""Embeddings from a real llama.cpp server (``serve -- --embeddings --pooling mean``, the gemma
model): llmbridge's vectors equal the raw HTTP answer's (float JSON and base64, float32 exact),
similar texts are closer than unrelated ones, and a list split in pieces (5 inputs a request
here) comes back in order."""

from __future__ import annotations

import array
import base64
import math
from collections.abc import Iterator

import httpx
import pytest

import llmbridge as lb
from tests.live_local.server import Server, start_server

pytestmark = [pytest.mark.anyio, pytest.mark.loops("asyncio")]

TEXTS = ["The cat sat on the mat.", "A cat is sitting on a mat.", "Quarterly tax filing deadlines."]


@pytest.fixture(scope="module")
def embedder() -> Iterator[Server]:
    server = start_server("--embeddings", "--pooling", "mean")
    yield server
    server.kill()


def cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


async def test_vectors_equal_the_raw_http_answer_in_float_and_base64(embedder: Server) -> None:
    async with httpx.AsyncClient(timeout=60) as http:
        floats = (
            await http.post(
                f"{embedder.base_url}/embeddings", json={"model": "gemma", "input": TEXTS}
            )
        ).json()
        coded = (
            await http.post(
                f"{embedder.base_url}/embeddings",
                json={"model": "gemma", "input": TEXTS, "encoding_format": "base64"},
            )
        ).json()
    raw_floats = [d["embedding"] for d in sorted(floats["data"], key=lambda d: d["index"])]
    raw_coded = [
        array.array("f", base64.b64decode(d["embedding"])).tolist()
        for d in sorted(coded["data"], key=lambda d: d["index"])
    ]
    async with lb.Client(
        providers={"llamacpp": {"base_url": embedder.base_url}},
        retry=lb.RetryPolicy(max_attempts=2, initial_delay=0, jitter=0),
    ) as client:
        got = await client.embed("llamacpp:gemma", TEXTS)
    assert got.vectors == raw_coded  # base64 on the wire, as the openai SDK sends it
    assert got.vectors == [array.array("f", v).tolist() for v in raw_floats]  # the same float32
    assert got.dimensions == len(raw_floats[0]) > 100
    assert got.usage is not None and got.usage.input_tokens > 0
    close, far = cosine(got.vectors[0], got.vectors[1]), cosine(got.vectors[0], got.vectors[2])
    assert close > far


async def test_a_list_split_into_pieces_comes_back_in_order(
    embedder: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dataclasses import replace

    from llmbridge.embeddings import options

    small = replace(options.SUPPORT["openai-compatible"], max_inputs=5)
    monkeypatch.setitem(options.SUPPORT, "openai-compatible", small)
    texts = [
        "Bake the bread at 200 degrees.",
        "The striker scored twice.",
        "Mount Everest is high.",
        "Stock markets fell sharply.",
        "The violin needs new strings.",
        "Penguins live in ice.",
        "Compile the kernel with gcc.",
        "Rain is expected tomorrow.",
        "She paid the rent late.",
        "Tulips bloom in April.",
        "The train left at noon.",
        "Photosynthesis needs light.",
    ]
    async with lb.Client(
        providers={"llamacpp": {"base_url": embedder.base_url}},
        retry=lb.RetryPolicy(max_attempts=2, initial_delay=0, jitter=0),
    ) as client:
        whole = await client.embed("llamacpp:gemma", texts)
        streamed = [v async for _, v in client.embed_many("llamacpp:gemma", iter(texts))]
        one = await client.embed("llamacpp:gemma", texts[7])
    assert len(whole.vectors) == len(streamed) == 12

    # the server's batches differ in composition, so its numbers differ in the last digits
    def nearest(vector: list[float]) -> int:
        return max(range(12), key=lambda i: cosine(vector, whole.vectors[i]))

    assert [nearest(v) for v in streamed] == list(range(12))
    assert nearest(one.vectors[0]) == 7
