"""The sans-IO pieces of batches: the writer's cuts at the limits, the job handle's JSON and
merged status, misuse refused as ``UsageError``, the batch price."""

from __future__ import annotations

import anyio
import orjson
import pytest

import llmbridge as lb
from llmbridge.batch.jsonl import JsonlWriter
from llmbridge.batch.types import BatchCounts, BatchPart, merged_status
from llmbridge.response_data import Usage


def _read(chunk: object, head: bytes = b"", tail: bytes = b"") -> bytes:
    async def collect() -> bytes:
        return b"".join([p async for p in chunk.pieces(head, tail)])  # type: ignore[attr-defined]

    return anyio.run(collect)


def test_the_writer_cuts_files_at_the_request_and_byte_limits() -> None:
    writer = JsonlWriter(max_requests=3, max_bytes=40, sep=b",", overhead=4)
    lines = [orjson.dumps({"n": i}) for i in range(10)]  # 7-8 bytes each
    chunks = [c for c in (writer.add(line) for line in lines) if c is not None]
    last = writer.finish()
    assert last is not None and writer.finish() is None
    chunks.append(last)
    bodies = [_read(c, b"[", b"]") for c in chunks]
    assert next(orjson.loads(b) for b in bodies) == [{"n": 0}, {"n": 1}, {"n": 2}]
    assert sum(len(orjson.loads(b)) for b in bodies) == 10
    assert all(c.count <= 3 and c.length(b"[", b"]") <= 40 for c in chunks)
    assert [c.length(b"[", b"]") for c in chunks] == [len(b) for b in bodies]


def test_the_writer_refuses_a_line_larger_than_a_file() -> None:
    with pytest.raises(lb.UsageError, match="bytes"):
        JsonlWriter(max_requests=10, max_bytes=10).add(b"x" * 11)


def test_a_job_round_trips_through_json() -> None:
    parts = (
        BatchPart(
            "b1", "running", "in_progress", BatchCounts(3, 1, 1, 1), {"output_file_id": None}
        ),
        BatchPart("b2", "completed", "completed", BatchCounts(2, 2, 0, 0), {"output_file_id": "f"}),
    )
    job = lb.BatchJob(provider="openai", model="gpt-4.1-mini", parts=parts)
    again = lb.BatchJob.from_json(job.to_json())
    assert again == job and again.id == "b1,b2" and again.status == "running"
    assert again.counts == BatchCounts(5, 3, 1, 1) and again.raw_status == "in_progress,completed"
    for bad in ("{}", "not json", '{"provider": "x", "model": "m", "parts": []}'):
        with pytest.raises(lb.UsageError):
            lb.BatchJob.from_json(bad)


@pytest.mark.parametrize(
    ("statuses", "merged"),
    [
        (["completed", "completed"], "completed"),
        (["completed", "running"], "running"),
        (["queued", "queued"], "queued"),
        (["queued", "completed"], "running"),
        (["cancelling", "running"], "cancelling"),
        (["completed", "failed"], "completed"),
        (["failed", "expired"], "failed"),
        (["cancelled", "expired"], "expired"),
    ],
)
def test_the_status_of_several_jobs(statuses: list[str], merged: str) -> None:
    assert merged_status(statuses) == merged  # type: ignore[arg-type]


def test_misuse_is_a_usage_error() -> None:
    with pytest.raises(lb.UsageError):
        lb.BatchRequest("", [lb.ChatMessage.user("x")])

    async def go() -> None:
        async with lb.Client(providers={"openai": {"api_key": "k"}}) as c:
            same = [lb.BatchRequest("a", "x"), lb.BatchRequest("a", "y")]
            with pytest.raises(lb.UsageError, match="unique"):
                await c.batch("openai:gpt-4.1-mini", same)
            with pytest.raises(lb.UsageError, match="no requests"):
                await c.batch("openai:gpt-4.1-mini", [])
            with pytest.raises(lb.UsageError, match="BatchRequest"):
                await c.batch("openai:gpt-4.1-mini", ["a prompt"])  # type: ignore[list-item]
            with pytest.raises(lb.UnsupportedFeatureError, match="batch"):
                await c.batch("ollama:llama3", [lb.BatchRequest("a", "x")])

    anyio.run(go)


def test_a_batch_result_costs_the_batch_price() -> None:
    pytest.importorskip("genai_prices")
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000)
    message = lb.ChatMessage.assistant("hi")
    response = lb.ChatResponse(
        message=message, usage=usage, model="claude-haiku-4-5", provider="anthropic"
    )
    result = lb.BatchResult("a", "succeeded", response)
    assert result.cost is not None and response.cost is not None
    assert result.cost * 2 == response.cost
    assert lb.BatchResult("b", "expired").cost is None
