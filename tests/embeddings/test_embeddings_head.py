"""What an embedding or rerank call reads from the answer's head and bytes, on every loop: the
request id from the headers, Bedrock's token count header, the call's ``timeout=`` as the one
budget of every piece and retry, and base64 vectors scanned from the raw body (spaces, indices
out of order, escapes) to exactly the floats the openai SDK reads."""

from __future__ import annotations

import base64
import json
import struct
from typing import Any

import anyio
import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.embeddings.vectors import scan_base64

pytestmark = [pytest.mark.anyio, pytest.mark.loops]

AWS = {
    "aws_access_key_id": "AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key": "secret",
    "region": "us-east-1",
}


def client_with(handler: Any, name: str, **options: Any) -> lb.Client:
    config: dict[str, Any] = {**AWS} if name == "bedrock" else {"api_key": "k"}
    return lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)),
        providers={name: config},
        retry=lb.RetryPolicy(max_attempts=3, initial_delay=0.001, jitter=0),
        **options,
    )


def b64(vector: list[float]) -> str:
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()


VECTORS = [[0.1 * i, -0.25, 1 / 3, 1e-30] for i in range(5)]


def openai_body(*, order: list[int], dumps: Any = orjson.dumps) -> bytes:
    items = [{"object": "embedding", "index": i, "embedding": b64(VECTORS[i])} for i in order]
    answer = {"object": "list", "data": items, "model": "m", "usage": {"prompt_tokens": 3}}
    return bytes(dumps(answer))


def sdk_floats(body: bytes) -> list[list[float]]:
    """The vectors the openai SDK reads from ``body`` (its own base64 decoding), by index."""
    import openai

    client = openai.OpenAI(
        api_key="k",
        http_client=httpx.Client(
            transport=httpx.MockTransport(lambda r: httpx.Response(200, content=body))
        ),
    )
    got = client.embeddings.create(model="m", input=["x"] * 5)
    return [list(map(float, item.embedding)) for item in sorted(got.data, key=lambda d: d.index)]


async def test_the_request_id_comes_from_the_headers_when_the_body_has_none() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, content=openai_body(order=[0]), headers={"x-request-id": "req_9"}
        )

    async with client_with(handler, "openai") as client:
        got = await client.embed("openai:text-embedding-3-small", "a")
    assert got.request_id == "req_9"
    assert got.usage is not None and got.usage.input_tokens == 3


async def test_bedrock_token_count_and_request_id_come_from_the_head() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        answer = {"embeddings": [{"embeddingType": "TEXT", "embedding": [0.5, -0.5]}]}
        headers = {"x-amzn-bedrock-input-token-count": "11", "x-amzn-requestid": "aws-1"}
        return httpx.Response(200, json=answer, headers=headers)

    async with client_with(handler, "bedrock") as client:
        got = await client.embed("bedrock:amazon.nova-2-multimodal-embeddings-v1:0", "a")
    assert got.vectors == [[0.5, -0.5]]
    assert got.usage is not None and got.usage.input_tokens == 11
    assert got.request_id == "aws-1"


async def test_a_rerank_answer_takes_its_request_id_from_the_head() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        results = [{"index": 0, "relevance_score": 0.2}, {"index": 1, "relevance_score": 0.9}]
        return httpx.Response(200, json={"results": results}, headers={"x-request-id": "rr"})

    async with client_with(handler, "cohere") as client:
        got = await client.rerank("cohere:rerank-v3.5", "q", ["a", "b"])
    assert [r.index for r in got.results] == [1, 0]
    assert got.request_id == "rr"


async def test_a_retry_that_would_wait_past_the_timeout_ends_the_call_at_once() -> None:
    sent = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(429, json={"message": "slow down"}, headers={"retry-after": "30"})

    async with client_with(handler, "cohere") as client:
        start = anyio.current_time()
        with anyio.fail_after(5), pytest.raises(lb.TimeoutError) as caught:
            await client.embed("cohere:embed-v4.0", ["a"], timeout=2)
        took = anyio.current_time() - start
    assert took < 1, "the call waited for a retry its timeout could not hold"
    assert len(sent) == 1
    assert isinstance(caught.value.__cause__, lb.RateLimitError)


async def test_the_timeout_is_one_budget_for_all_the_pieces_of_a_split_call() -> None:
    sent = []

    async def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        await anyio.sleep(0.3)
        texts = orjson.loads(request.content)["texts"]
        return httpx.Response(200, json={"embeddings": {"float": [[1.0] for _ in texts]}})

    async with client_with(handler, "cohere") as client:
        with anyio.fail_after(5), pytest.raises(lb.TimeoutError):
            # 3 pieces of 96, one at a time: 0.9 s of work, each piece well within 0.5 s
            await client.embed("cohere:embed-v4.0", ["t"] * 250, max_concurrency=1, timeout=0.5)
    assert len(sent) == 2


@pytest.mark.parametrize(
    "dumps",
    [orjson.dumps, lambda a: json.dumps(a, indent=1).encode(), lambda a: json.dumps(a).encode()],
    ids=["compact", "indented", "spaced"],
)
async def test_scanned_base64_vectors_equal_the_sdks_in_input_order(dumps: Any) -> None:
    body = openai_body(order=[3, 0, 4, 1, 2], dumps=dumps)

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body)

    async with client_with(handler, "openai") as client:
        got = await client.embed("openai:text-embedding-3-small", ["x"] * 5)
    assert got.vectors == sdk_floats(body)
    assert got.vectors[1] == pytest.approx(VECTORS[1], rel=1e-6)
    assert got.model == "m" and got.usage is not None and got.usage.input_tokens == 3


async def test_an_escaped_slash_in_a_vector_is_read_by_the_full_parser() -> None:
    vector = [struct.unpack("<f", b"\xff\xff\xff\xbf")[0]]  # base64 "////vw=="
    text = b64(vector)
    assert "/" in text
    answer = {"data": [{"index": 0, "embedding": text}], "model": "m"}
    body = json.dumps(answer).replace("/", "\\/").encode()
    assert scan_base64(body, b"embedding") is None

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body)

    async with client_with(handler, "openai") as client:
        got = await client.embed("openai:text-embedding-3-small", "x")
    assert got.vectors == [vector]


async def test_vectors_of_unequal_sizes_are_a_malformed_answer() -> None:
    answer = {
        "data": [
            {"index": 0, "embedding": b64([1.0, 2.0])},
            {"index": 1, "embedding": b64([1.0])},
        ]
    }

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=answer)

    async with client_with(handler, "openai") as client:
        with pytest.raises(lb.MalformedStreamError, match="one size"):
            await client.embed("openai:text-embedding-3-small", ["a", "b"])


@pytest.mark.parametrize(
    ("rest", "why"),
    [
        (b'"usage": {"prompt_tokens": NaN}', "NaN is not JSON"),
        (b'"usage": ' + b"[" * 100_000 + b"]" * 100_000, "nested too deep"),
        (b'"usage": {"prompt_tokens": 1,}', "trailing comma|Expecting property name"),
    ],
    ids=["nan", "deep", "trailing-comma"],
)
async def test_a_body_whose_vectors_scan_but_whose_rest_is_not_json_is_malformed(
    rest: bytes, why: str
) -> None:
    body = b'{"data": [{"index": 0, "embedding": "' + b64([1.0]).encode() + b'"}], ' + rest + b"}"
    assert scan_base64(body, b"embedding") is not None  # the vectors' scan takes it

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body)

    async with client_with(handler, "openai") as client:
        with pytest.raises(lb.MalformedStreamError, match=why) as caught:
            await client.embed("openai:text-embedding-3-small", "x")
    assert "expected a JSON answer" in str(caught.value)
