"""The whole batch lifecycle against a loopback server per provider, on every loop: submit,
poll until done (backing off), results with failed, expired and cancelled items, cancel, and a
job reopened from JSON (and by id) in a fresh client."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from anyio.abc import SocketStream

import llmbridge as lb
from tests.batch.servers import AnthropicServer, BatchServer, GeminiServer, OpenAIServer, running
from tests.loopback import read_request

pytestmark = [pytest.mark.anyio, pytest.mark.io]

IDS = ["a", "b-fail", "c-expire", "d", "e-cancel"]
SERVERS: dict[str, tuple[type[BatchServer], str, str]] = {
    "openai": (OpenAIServer, "openai:gpt-4.1-mini", "/v1"),
    "openai-responses": (OpenAIServer, "openai-responses:gpt-5-nano", "/v1"),
    "anthropic": (AnthropicServer, "anthropic:claude-haiku-4-5", ""),
    "gemini": (GeminiServer, "gemini:gemini-2.5-flash", ""),
}


def client(name: str, url: str) -> lb.Client:
    return lb.Client(providers={name: {"api_key": "sk-secret-test-key", "base_url": url}})


def requests() -> list[lb.BatchRequest]:
    return [lb.BatchRequest(i, [lb.ChatMessage.user(f"hi {i}")], max_tokens=20) for i in IDS]


@pytest.mark.parametrize("name", sorted(SERVERS))
async def test_submit_wait_and_read_every_kind_of_result(name: str) -> None:
    kind, model, path = SERVERS[name]
    server = kind()
    async with running(server) as url, client(name, url + path) as c:
        job = await c.batch(model, requests())
        assert job.status in ("queued", "running") and job.counts.total in (0, 5)
        assert job.provider == name and "sk-secret" not in repr(job) + job.to_json()
        heard: list[str] = []
        done = await c.batch_wait(
            job,
            poll_interval=0.001,
            max_interval=0.002,
            on_progress=lambda j: heard.append(j.status),
        )
        assert done.status == "completed" and heard[-1] == "completed"
        assert done.counts.total == 5 and done.counts.pending == 0
        results = {r.id: r async for r in c.batch_results(done)}
    assert set(results) == set(IDS)
    assert results["a"].status == "succeeded" and results["a"].response is not None
    assert results["a"].response.text == "echo: hi a"
    assert results["a"].response.usage is not None and results["a"].response.usage.input_tokens >= 5
    assert results["b-fail"].status == "errored"
    assert isinstance(results["b-fail"].error, lb.InvalidRequestError)
    if name != "gemini":  # Gemini reports every failed item alike
        assert results["c-expire"].status == "expired" and results["e-cancel"].status == "cancelled"
    for r in results.values():
        assert (r.response is None) == (r.status != "succeeded")
        assert (r.error is None) == (r.status == "succeeded")
        if r.error is not None:
            assert isinstance(r.error, lb.LLMBridgeError)


@pytest.mark.parametrize("name", sorted(SERVERS))
async def test_a_job_reopened_in_a_fresh_client_by_json_and_by_id(name: str) -> None:
    kind, model, path = SERVERS[name]
    server = kind()
    async with running(server) as url:
        async with client(name, url + path) as first:
            saved = (await first.batch(model, requests())).to_json()
        async with client(name, url + path) as second:
            job = lb.BatchJob.from_json(saved)
            job = await second.batch_wait(job, poll_interval=0.001, max_interval=0.001)
            again = await second.batch_status(second.batch_job(model, job.id))
            assert again.id == job.id and again.status == "completed"
            ids = sorted([r.id async for r in second.batch_results(again)])
    assert ids == sorted(IDS)


@pytest.mark.parametrize("name", sorted(SERVERS))
async def test_cancel(name: str) -> None:
    kind, model, path = SERVERS[name]
    server = kind()
    async with running(server) as url, client(name, url + path) as c:
        job = await c.batch(model, requests())
        job = await c.batch_cancel(job)
        assert job.status in ("cancelling", "running", "queued")
        job = await c.batch_wait(job, poll_interval=0.001, max_interval=0.001)
        assert job.status in ("cancelled", "completed") and job.done
    cancels = [s for s in server.seen if "cancel" in s.path]
    assert len(cancels) == 1 and cancels[0].method == "POST"


async def test_a_submission_over_the_limit_is_several_jobs_behind_one_handle() -> None:
    server = OpenAIServer()
    many = [lb.BatchRequest(f"r{i}", [lb.ChatMessage.user(f"q{i}")]) for i in range(7)]
    async with running(server) as url, client("openai", url + "/v1") as c:
        job = await c.batch("openai:gpt-4.1-mini", many, max_requests_per_job=3)
        assert len(job.parts) == 3 and job.id.count(",") == 2
        job = await c.batch_wait(job, poll_interval=0.001, max_interval=0.001)
        assert job.counts.total == 7
        ids = [r.id async for r in c.batch_results(lb.BatchJob.from_json(job.to_json()))]
    assert sorted(ids) == sorted(f"r{i}" for i in range(7))
    uploads = [s for s in server.seen if s.path.endswith("/files")]
    assert len(uploads) == 3 and all("content-length" in s.headers for s in uploads)


async def test_what_the_openai_server_was_sent() -> None:
    server = OpenAIServer()
    async with running(server) as url, client("openai", url + "/v1") as c:
        await c.batch("openai:gpt-4.1-mini", requests(), metadata={"run": "7"})
    create = next(s for s in server.seen if s.path.endswith("/batches"))
    body: dict[str, Any] = orjson.loads(create.body)
    assert body["endpoint"] == "/v1/chat/completions" and body["metadata"] == {"run": "7"}
    assert create.headers["authorization"] == "Bearer sk-secret-test-key"
    (job,) = server.jobs.values()
    line = job["lines"][0]
    assert line["method"] == "POST" and line["url"] == "/v1/chat/completions"
    assert "stream" not in line["body"] and line["body"]["model"] == "gpt-4.1-mini"


class FlakyUploads(OpenAIServer):
    """Answers the first upload 503 (after reading it whole), then as OpenAI does."""

    failed = False

    def route(self, method: str, target: str, headers: dict[str, str], body: bytes) -> bytes:
        if target.endswith("/files") and not self.failed:
            self.failed = True
            error = b'{"error": {"message": "try again", "type": "server_error"}}'
            head = f"HTTP/1.1 503 Unavailable\r\ncontent-type: application/json\r\ncontent-length: {len(error)}\r\nretry-after: 0\r\n\r\n"
            return head.encode() + error
        return super().route(method, target, headers, body)


async def test_a_failed_upload_is_sent_again_whole() -> None:
    server = FlakyUploads()
    async with running(server) as url, client("openai", url + "/v1") as c:
        job = await c.batch("openai:gpt-4.1-mini", requests())
    uploads = [s for s in server.seen if s.path.endswith("/files")]
    assert len(uploads) == 2 and uploads[0].body == uploads[1].body
    assert int(uploads[1].headers["content-length"]) == len(uploads[1].body)
    assert len(job.parts) == 1 and len(next(iter(server.jobs.values()))["lines"]) == len(IDS)


class CutResults(OpenAIServer):
    """Sends the output file's first line, then closes the connection midway."""

    cut = False

    async def handle(self, stream: SocketStream) -> None:
        while not self.cut:
            head, body = await read_request(stream)
            await stream.send(self.answer(head, body))

    def route(self, method: str, target: str, headers: dict[str, str], body: bytes) -> bytes:
        answer = super().route(method, target, headers, body)
        if target.endswith("/content") and b'"custom_id": "a"' in answer.replace(b'":"', b'": "'):
            head, _, content = answer.partition(b"\r\n\r\n")
            first = content.split(b"\n")[0] + b"\n"
            self.cut = True
            return head + b"\r\n\r\n" + first + content[len(first) : len(first) + 10]
        return answer


async def test_a_results_file_cut_midway_raises_after_the_lines_that_came() -> None:
    server = CutResults(polls_to_end=1)
    seen: list[str] = []
    async with running(server) as url, client("openai", url + "/v1") as c:
        job = await c.batch("openai:gpt-4.1-mini", requests())
        job = await c.batch_wait(job, poll_interval=0.001, max_interval=0.001)
        with pytest.raises(lb.LLMBridgeError):
            async for result in c.batch_results(job):
                seen.append(result.id)
    assert seen == ["a"]  # the first line once, never again from a retry
    downloads = [s for s in server.seen if s.path.endswith("/content")]
    assert len(downloads) == 1
