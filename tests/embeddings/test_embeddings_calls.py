"""Split, concurrent and streamed embedding calls, and reranking: what a user of a long input
list sees (order kept, at most ``max_concurrency`` requests in flight, ``partial`` on a failed
piece, retries per piece, bounded memory in ``embed_many``), on every loop."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import httpx
import orjson
import pytest

import llmbridge as lb

pytestmark = [pytest.mark.anyio, pytest.mark.loops]


class CohereServer:
    """A Cohere ``/v2/embed``: each text ``"t<n>"`` embeds to ``[n]``, after a short wait;
    the pieces whose first text is in ``fail`` answer ``status`` (once, when ``once``)."""

    def __init__(
        self, *, fail: set[str] = frozenset(), status: int = 400, once: bool = False
    ) -> None:  # type: ignore[assignment]
        self.fail, self.status, self.once = set(fail), status, once
        self.bodies: list[dict[str, Any]] = []
        self.in_flight = self.most_in_flight = 0

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        body = orjson.loads(request.content)
        self.bodies.append(body)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await anyio.sleep(0.01)
        finally:
            self.in_flight -= 1
        texts = body.get("texts") or []
        if texts and texts[0] in self.fail:
            if self.once:
                self.fail.discard(texts[0])
            return httpx.Response(self.status, json={"message": "bad piece"})
        if "query" in body:
            scores = [1.0 / (1 + i) for i in range(len(body["documents"]))][::-1]
            results = [{"index": i, "relevance_score": s} for i, s in enumerate(scores)]
            return httpx.Response(200, json={"id": "r1", "results": results[: body.get("top_n")]})
        vectors = [[float(t[1:])] for t in texts]
        return httpx.Response(
            200,
            json={
                "embeddings": {"float": vectors},
                "meta": {"billed_units": {"input_tokens": len(texts)}},
            },
        )


def client_for(server: CohereServer, **options: Any) -> lb.Client:
    return lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),
        providers={"cohere": {"api_key": "k"}},
        retry=lb.RetryPolicy(max_attempts=2, initial_delay=0.001, jitter=0),
        **options,
    )


TEXTS = [f"t{i}" for i in range(250)]


async def test_a_long_list_is_split_by_the_providers_limit_and_merged_in_order() -> None:
    server = CohereServer()
    async with client_for(server) as client:
        got = await client.embed("cohere:embed-v4.0", TEXTS, max_concurrency=2)
    assert [len(b["texts"]) for b in server.bodies] == [96, 96, 58] or sorted(
        len(b["texts"]) for b in server.bodies
    ) == [58, 96, 96]
    assert got.vectors == [[float(i)] for i in range(250)]
    assert got.usage is not None and got.usage.input_tokens == 250
    assert server.most_in_flight == 2


async def test_max_concurrency_bounds_the_requests_in_flight() -> None:
    server = CohereServer()
    async with client_for(server) as client:
        await client.embed("cohere:embed-v4.0", TEXTS * 4, max_concurrency=3)
    assert len(server.bodies) == 11 and server.most_in_flight == 3
    with pytest.raises(lb.UsageError, match="max_concurrency"):
        await lb.Client(providers={"cohere": {"api_key": "k"}}).embed(
            "cohere:embed-v4.0", "a", max_concurrency=0
        )


async def test_one_failed_piece_fails_the_call_with_the_vectors_that_arrived() -> None:
    server = CohereServer(fail={"t96"})
    async with client_for(server) as client:
        with pytest.raises(lb.APIError) as info:
            await client.embed("cohere:embed-v4.0", TEXTS)
    partial = info.value.partial
    assert isinstance(partial, lb.EmbeddingResponse)
    assert partial.vectors[:96] == [[float(i)] for i in range(96)]
    assert partial.vectors[96:192] == [None] * 96
    assert partial.vectors[192:] == [[float(i)] for i in range(192, 250)]
    assert info.value.status == 400 and info.value.provider == "cohere"


async def test_a_retryable_failure_is_retried_for_that_piece_only() -> None:
    server = CohereServer(fail={"t96"}, status=503, once=True)
    async with client_for(server) as client:
        got = await client.embed("cohere:embed-v4.0", TEXTS)
    assert got.vectors == [[float(i)] for i in range(250)]
    firsts = [b["texts"][0] for b in server.bodies]
    assert sorted(firsts) == ["t0", "t192", "t96", "t96"]


async def test_embed_many_streams_in_order_with_bounded_reads_ahead() -> None:
    server = CohereServer()
    read = 0

    def source() -> Iterator[str]:
        nonlocal read
        for i in range(1000):
            read += 1
            yield f"t{i}"

    seen: list[tuple[int, Any]] = []
    async with client_for(server) as client:
        async for index, vector in client.embed_many(
            "cohere:embed-v4.0", source(), max_concurrency=2
        ):
            if not seen:
                assert read <= 2 * 96  # one window of pieces, not the whole corpus
            seen.append((index, vector))
    assert seen == [(i, [float(i)]) for i in range(1000)]


async def test_embed_many_takes_an_async_iterator() -> None:
    async def source() -> AsyncIterator[str]:
        for i in range(130):
            yield f"t{i}"

    async with client_for(CohereServer()) as client:
        got = [pair async for pair in client.embed_many("cohere:embed-v4.0", source())]
    assert got == [(i, [float(i)]) for i in range(130)]


async def test_the_calls_timeout_bounds_the_whole_split_call() -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await anyio.sleep(5)
        return httpx.Response(200, json={})

    client = lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(slow)),
        providers={"cohere": {"api_key": "k"}},
    )
    async with client:
        with anyio.fail_after(3), pytest.raises(lb.TimeoutError):
            await client.embed("cohere:embed-v4.0", TEXTS, timeout=0.05)


async def test_embed_many_timeout_bounds_every_piece() -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await anyio.sleep(5)
        return httpx.Response(200, json={})

    client = lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(slow)),
        providers={"cohere": {"api_key": "k"}},
    )
    seen: list[Any] = []
    async with client:
        with anyio.fail_after(3), pytest.raises(lb.TimeoutError, match="0.05 s"):
            async for pair in client.embed_many("cohere:embed-v4.0", TEXTS, timeout=0.05):
                seen.append(pair)
    assert seen == []


async def test_embed_many_timeout_is_one_budget_for_the_whole_iteration() -> None:
    """The deadline runs from the first request to the last vector: a window that starts
    after it has passed (the caller dawdled over the vectors already here) is not sent."""
    server = CohereServer()
    seen: list[int] = []
    async with client_for(server) as client:
        with pytest.raises(lb.TimeoutError):
            async for index, _ in client.embed_many(
                "cohere:embed-v4.0", TEXTS, max_concurrency=1, timeout=0.3
            ):
                if index == 0:
                    await anyio.sleep(0.4)
                seen.append(index)
        assert seen == list(range(96)) and len(server.bodies) == 1  # one window, then none
        # no timeout (None): the client's default, none here, and every vector comes
        got = [i async for i, _ in client.embed_many("cohere:embed-v4.0", TEXTS, timeout=None)]
    assert got == list(range(250))


async def test_rerank_sends_cohere_v2_rerank_and_returns_highest_score_first() -> None:
    server = CohereServer()
    documents = ["a", "b", "c", "d"]
    async with client_for(server) as client:
        got = await client.rerank("cohere:rerank-v3.5", "q", documents, top_n=3)
    body = server.bodies[0]
    assert body == {"model": "rerank-v3.5", "query": "q", "documents": documents, "top_n": 3}
    import inspect

    cohere = pytest.importorskip("cohere")
    assert body.keys() <= inspect.signature(cohere.ClientV2.rerank).parameters.keys()
    assert [r.score for r in got.results] == sorted((r.score for r in got.results), reverse=True)
    assert got.results[0].document == documents[got.results[0].index]
    assert got.request_id == "r1" and isinstance(got.results[0], lb.RerankResult)


@pytest.mark.parametrize(
    ("name", "model", "path", "extra"),
    [
        ("voyage", "rerank-2.5", "/v1/rerank", {"top_k": 2}),
        ("jina", "jina-reranker-v2", "/v1/rerank", {"top_n": 2, "return_documents": False}),
        ("llamacpp", "bge", "/v1/rerank", {"top_n": 2}),
    ],
)
async def test_rerank_of_each_provider(
    name: str, model: str, path: str, extra: dict[str, Any]
) -> None:
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(
            200,
            json={
                "results": [
                    {"index": 1, "relevance_score": 0.9},
                    {"index": 0, "relevance_score": 0.1},
                ]
            },
        )

    config: dict[str, Any] = {"api_key": "k"}
    if name == "bedrock":
        config = {
            "aws_access_key_id": "AKIAIOSFODNN7EXAMPLE",
            "aws_secret_access_key": "s",
            "region": "us-east-1",
        }
    if name == "llamacpp":
        config = {"base_url": "http://127.0.0.1:9/v1"}
    client = lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(answer)),
        providers={name: config},
    )
    async with client:
        got = await client.rerank(f"{name}:{model}", "q", ["x", "y"], top_n=2)
    assert sent[0].url.raw_path.decode() == path
    body = orjson.loads(sent[0].content)
    assert body == {
        **({} if name == "bedrock" else {"model": model}),
        "query": "q",
        "documents": ["x", "y"],
        **extra,
    }
    assert [(r.index, r.document) for r in got.results] == [(1, "y"), (0, "x")]


async def test_a_provider_without_rerank_says_which_have_it() -> None:
    async with lb.Client(providers={"openai": {"api_key": "k"}}) as client:
        with pytest.raises(lb.ConfigurationError, match="voyage, jina"):
            await client.rerank("openai:text-embedding-3-small", "q", ["a"])


def test_the_sync_client_embeds_streams_and_reranks() -> None:
    server = CohereServer()
    with lb.SyncClient(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),
        providers={"cohere": {"api_key": "k"}},
    ) as client:
        got = client.embed("cohere:embed-v4.0", ["t1", "t2"])
        streamed = list(client.embed_many("cohere:embed-v4.0", (f"t{i}" for i in range(100))))
        ranked = client.rerank("cohere:rerank-v3.5", "q", ["a", "b"])
        with pytest.raises(lb.TimeoutError):  # the deadline ends the blocking iterator too
            list(client.embed_many("cohere:embed-v4.0", ["t1"], timeout=1e-9))
    assert got.vectors == [[1.0], [2.0]]
    assert streamed == [(i, [float(i)]) for i in range(100)]
    assert len(ranked.results) == 2


async def test_a_full_openai_batch_is_split_so_each_answer_fits_the_body_limit() -> None:
    """2,048 inputs of an unknown width: base64 answers of 4,096 dimensions would pass
    ``MAX_JSON_BODY`` (16 MB), so the list goes in pieces; with ``dimensions`` given, fewer."""
    sizes: list[int] = []

    def answer(request: httpx.Request) -> httpx.Response:
        count = len(orjson.loads(request.content)["input"])
        sizes.append(count)
        data = [{"index": i, "embedding": "AACAPw=="} for i in range(count)]
        return httpx.Response(200, json={"data": data, "model": "m"})

    client = lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(answer)),
        providers={"openai": {"api_key": "k"}},
    )
    async with client:
        got = await client.embed("openai:text-embedding-3-large", ["x"] * 2048)
        assert len(got.vectors) == 2048 and got.vectors[0] == [1.0]
        assert max(sizes) * 4096 * 4 * 4 / 3 < 16 * 1024 * 1024 and sum(sizes) == 2048
        sizes.clear()
        await client.embed("openai:text-embedding-3-small", ["x"] * 2048, dimensions=256)
    assert sizes == [2048]
