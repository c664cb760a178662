"""Gemini Batch Mode with an input file, on every loop: a submission over the inline limit (or
any, with ``input_file=True``) goes up through the Files API's resumable protocol and the job
names it by ``input_config.file_name``; its results are the ``responsesFile``'s lines, read line
by line. What was sent is held against google-genai's own types and headers."""

from __future__ import annotations

import orjson
import pytest

import llmbridge as lb
from llmbridge.batch.gemini import GeminiBatches
from llmbridge.batch.gemini_files import inline_chunk
from llmbridge.batch.jsonl import JsonlWriter
from tests.batch.gemini_files_server import GeminiFileServer
from tests.batch.servers import running

pytestmark = [pytest.mark.anyio, pytest.mark.io]

MODEL = "gemini:gemini-2.5-flash"
IDS = ["a", "b-fail", "c", 'd"quoted\\id']


def requests() -> list[lb.BatchRequest]:
    return [lb.BatchRequest(i, [lb.ChatMessage.user(f"hi {i}")], max_tokens=20) for i in IDS]


def client(url: str) -> lb.Client:
    return lb.Client(providers={"gemini": {"api_key": "sk-gemini-secret", "base_url": url}})


async def _lifecycle(server: GeminiFileServer, **options: object) -> dict[str, lb.BatchResult]:
    async with running(server) as url, client(url) as c:
        job = await c.batch(MODEL, requests(), **options)
        assert "sk-gemini-secret" not in job.to_json()
        job = await c.batch_wait(job, poll_interval=0.001, max_interval=0.001)
        assert job.status == "completed" and job.counts.total == len(IDS)
        reopened = lb.BatchJob.from_json(job.to_json())
        return {r.id: r async for r in c.batch_results(reopened)}


async def test_a_file_input_runs_the_whole_lifecycle() -> None:
    server = GeminiFileServer(polls_to_end=1)
    results = await _lifecycle(server, input_file=True)
    assert set(results) == set(IDS)
    assert results["a"].response is not None and results["a"].response.text == "echo: hi a"
    assert results['d"quoted\\id'].status == "succeeded"
    assert results["b-fail"].status == "errored"
    assert isinstance(results["b-fail"].error, lb.InvalidRequestError)
    start, upload, create = server.seen[0], server.seen[1], server.seen[2]
    assert start.method == "POST" and start.path == "/upload/v1beta/files"
    assert start.headers["x-goog-upload-protocol"] == "resumable"
    assert start.headers["x-goog-upload-command"] == "start"
    assert start.headers["x-goog-upload-header-content-type"] == "application/jsonl"
    assert int(start.headers["x-goog-upload-header-content-length"]) == len(upload.body)
    assert start.headers["x-goog-api-key"] == "sk-gemini-secret"
    assert upload.path.startswith("/upload/v1beta/files?upload_id=")  # on the API's own host
    assert int(upload.headers["content-length"]) == len(upload.body)
    lines = [orjson.loads(x) for x in upload.body.split(b"\n")]
    assert [x["key"] for x in lines] == IDS and all("contents" in x["request"] for x in lines)
    body = orjson.loads(create.body)
    assert create.path == "/v1beta/models/gemini-2.5-flash:batchGenerateContent"
    name = body["batch"]["input_config"]["file_name"]
    assert (
        body["batch"]["input_config"] == {"file_name": name} and server.files[name] == upload.body
    )
    downloads = [s for s in server.seen if s.path.startswith("/download/")]
    assert len(downloads) == 1 and downloads[0].path.endswith(":download?alt=media")


async def test_the_choice_is_by_size(monkeypatch: pytest.MonkeyPatch) -> None:
    small = GeminiFileServer(polls_to_end=1)
    await _lifecycle(small)
    assert not any(s.path.startswith("/upload/") for s in small.seen)  # inline
    create = next(s for s in small.seen if s.path.endswith(":batchGenerateContent"))
    inline = orjson.loads(create.body)["batch"]["input_config"]["requests"]["requests"]
    assert [i["metadata"]["key"] for i in inline] == IDS
    monkeypatch.setattr(GeminiBatches, "inline_bytes", 400)  # these four are over 400 bytes
    large = GeminiFileServer(polls_to_end=1)
    results = await _lifecycle(large)
    assert sum(s.path == "/upload/v1beta/files" for s in large.seen) == 1
    assert results["c"].response is not None and results["c"].response.text == "echo: hi c"


async def test_input_file_false_refuses_what_is_over_the_inline_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(GeminiBatches, "inline_bytes", 400)
    server = GeminiFileServer()
    async with running(server) as url, client(url) as c:
        with pytest.raises(lb.UsageError, match="inline"):
            await c.batch(MODEL, requests(), input_file=False)
    assert server.seen == []


genai_types = pytest.importorskip("google.genai.types")


async def test_the_file_job_matches_the_sdk_types() -> None:
    server = GeminiFileServer(polls_to_end=1)
    await _lifecycle(server, input_file=True)
    create = next(s for s in server.seen if s.path.endswith(":batchGenerateContent"))
    source = orjson.loads(create.body)["batch"]["input_config"]
    assert genai_types.BatchJobSource.model_validate(source).file_name == source["file_name"]
    start = next(s for s in server.seen if s.path == "/upload/v1beta/files")
    genai_types.File.model_validate(orjson.loads(start.body)["file"])  # what the SDK sends
    upload = next(s for s in server.seen if "upload_id=" in s.path)
    finalized = orjson.loads(server.answer_of(upload))["file"]
    assert genai_types.File.model_validate(finalized).name == source["file_name"]
    for raw in upload.body.split(b"\n"):
        line = orjson.loads(raw)
        genai_types.InlinedRequest.model_validate(
            {"contents": line["request"]["contents"], "metadata": {"key": line["key"]}}
        )
    (job_id,) = server.jobs
    answer = server.batch(job_id)
    name = answer["metadata"]["output"]["responsesFile"]
    assert genai_types.BatchJobDestination.model_validate({"file_name": name}).file_name == name
    for raw in server.files[name].splitlines():
        row = orjson.loads(raw)
        if "response" in row:
            genai_types.GenerateContentResponse.model_validate(row["response"])


def test_inline_chunk_rewrites_each_line_and_gives_up_past_the_limit() -> None:
    writer = JsonlWriter(max_requests=10, max_bytes=10_000, sep=b"\n")
    for key in ("x", "y"):
        writer.add(
            orjson.dumps({"key": key, "request": {"contents": [{"parts": [{"text": key}]}]}})
        )
    chunk = writer.finish()
    assert chunk is not None
    inline = inline_chunk(chunk, 10_000)
    assert inline is not None and inline.count == 2
    inline.file.seek(0)
    items = orjson.loads(b"[" + inline.file.read() + b"]")
    assert [i["metadata"]["key"] for i in items] == ["x", "y"] and inline.size == len(
        orjson.dumps(items)
    ) - 2
    assert inline_chunk(chunk, inline.size - 1) is None
    assert inline_chunk(chunk, chunk.size - 1) is None
