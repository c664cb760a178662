"""Embeddings batches (``client.batch_embed``) on OpenAI and Azure, on every loop: each
``BatchRequest(id, inputs)`` becomes a ``/v1/embeddings`` line (Azure's ``/embeddings``) whose
body is ``embed()``'s, and each result an ``EmbeddingResponse`` read by ``embed()``'s decoder;
failed and expired items are typed errors; a job reopened by id is read as embeddings; the
lines, the job and the answers match the openai SDK's types."""

from __future__ import annotations

import orjson
import pytest
from pydantic import TypeAdapter

import llmbridge as lb
from tests.batch.servers import OpenAIServer, running

pytestmark = [pytest.mark.anyio, pytest.mark.io]

IDS = {"a": "one two", "b-fail": "x", "c": ["first text", "second"], "d-expire": "y"}


def requests() -> list[lb.BatchRequest]:
    return [lb.BatchRequest(i, inputs) for i, inputs in IDS.items()]


async def test_an_embeddings_batch_runs_the_whole_lifecycle() -> None:
    server = OpenAIServer(polls_to_end=1)
    providers = {"openai": {"api_key": "k", "base_url": ""}}
    async with running(server) as url:
        providers["openai"]["base_url"] = url + "/v1"
        async with lb.Client(providers=providers) as c:
            job = await c.batch_embed("openai:text-embedding-3-small", requests(), dimensions=2)
            job = await c.batch_wait(job, poll_interval=0.001, max_interval=0.001)
            results = {r.id: r async for r in c.batch_results(job)}
        async with lb.Client(providers=providers) as fresh:  # reopened by id alone
            again = fresh.batch_job("openai:text-embedding-3-small", job.id)
            reread = {r.id: r async for r in fresh.batch_results(again)}
    a, c2 = results["a"].response, results["c"].response
    assert isinstance(a, lb.EmbeddingResponse) and a.vectors == [[7.0, 0.0]]
    assert isinstance(c2, lb.EmbeddingResponse) and c2.vectors == [[10.0, 0.0], [6.0, 1.0]]
    assert a.usage is not None and a.usage.input_tokens == 2
    assert isinstance(results["b-fail"].error, lb.InvalidRequestError)
    assert results["d-expire"].status == "expired"
    assert isinstance(reread["c"].response, lb.EmbeddingResponse)
    assert reread["c"].response.vectors == c2.vectors
    (state,) = server.jobs.values()
    assert state["request"]["endpoint"] == "/v1/embeddings"
    line = next(x for x in state["lines"] if x["custom_id"] == "c")
    assert line["url"] == "/v1/embeddings" and line["method"] == "POST"
    assert line["body"] == {
        "model": "text-embedding-3-small",
        "input": ["first text", "second"],
        "encoding_format": "base64",
        "dimensions": 2,
    }


async def test_azure_lines_name_the_path_after_the_api_root() -> None:
    server = OpenAIServer(polls_to_end=1)
    async with running(server) as url:
        options = {"api_key": "k", "base_url": url, "api_version": "2024-10-21"}
        async with lb.Client(providers={"azure": options}) as c:
            job = await c.batch_embed("azure:embed-deployment", requests()[:1])
            job = await c.batch_wait(job, poll_interval=0.001, max_interval=0.001)
            (result,) = [r async for r in c.batch_results(job)]
    assert isinstance(result.response, lb.EmbeddingResponse) and result.response.vectors
    create = next(s for s in server.seen if s.path.startswith("/openai/batches"))
    assert orjson.loads(create.body)["endpoint"] == "/embeddings"
    assert "api-version=2024-10-21" in create.path
    (state,) = server.jobs.values()
    assert state["lines"][0]["url"] == "/embeddings"


async def test_what_batch_embed_refuses() -> None:
    async with lb.Client(
        providers={"anthropic": {"api_key": "k"}, "openai": {"api_key": "k"}}
    ) as c:
        with pytest.raises(lb.UnsupportedFeatureError, match="OpenAI's and Azure's"):
            await c.batch_embed("anthropic:claude-haiku-4-5", requests())
        with pytest.raises(lb.UsageError, match="takes no options"):
            await c.batch_embed(
                "openai:text-embedding-3-small", [lb.BatchRequest("a", "t", dimensions=3)]
            )
        with pytest.raises(lb.UsageError, match="1 to"):
            await c.batch_embed("openai:text-embedding-3-small", [lb.BatchRequest("a", [])])


openai = pytest.importorskip("openai")


async def test_the_lines_and_answers_match_the_sdk_types() -> None:
    from openai.types import Batch, BatchCreateParams, CreateEmbeddingResponse
    from openai.types.embedding_create_params import EmbeddingCreateParams

    server = OpenAIServer(polls_to_end=1)
    async with (
        running(server) as url,
        lb.Client(providers={"openai": {"api_key": "k", "base_url": url + "/v1"}}) as c,
    ):
        job = await c.batch_embed("openai:text-embedding-3-small", requests())
        await c.batch_wait(job, poll_interval=0.001, max_interval=0.001)
    create = next(s for s in server.seen if s.path.endswith("/batches"))
    TypeAdapter(BatchCreateParams).validate_python(orjson.loads(create.body))
    (state,) = server.jobs.values()
    for line in state["lines"]:
        TypeAdapter(EmbeddingCreateParams).validate_python(line["body"])
    for job_id in server.jobs:
        Batch.model_validate(server.batch(job_id))
    for raw in server.files[state["output_file_id"]].splitlines():
        body = orjson.loads(raw)["response"]["body"]
        for item in body["data"]:  # the SDK decodes base64 before it validates
            item["embedding"] = [0.0, 0.0]
        CreateEmbeddingResponse.model_validate(body)


def test_the_sync_client_runs_an_embeddings_batch() -> None:
    from tests.loopback import ThreadedServer

    server = OpenAIServer(polls_to_end=1)
    url = ThreadedServer(server.handle_socket).url
    with lb.SyncClient(providers={"openai": {"api_key": "k", "base_url": url + "/v1"}}) as c:
        job = c.batch_embed("openai:text-embedding-3-small", requests())
        job = c.batch_wait(job, poll_interval=0.001, max_interval=0.001)
        results = {r.id: r for r in c.batch_results(job)}
    assert isinstance(results["a"].response, lb.EmbeddingResponse)
    assert results["a"].response.vectors == [[7.0, 0.0]]
    assert results["b-fail"].status == "errored"
