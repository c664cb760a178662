"""``parsed`` on batch results, as ``complete()`` gives it: a request with a
``response_format`` (a pydantic model, a JSON schema) has its result validated, a reply that
does not validate is an ``errored`` item with the ``StructuredOutputError``, requests without
one are left alone, and a job reopened in another process is parsed with
``batch_results(job, response_format=...)``; the sync client the same."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

import llmbridge as lb
from llmbridge.batch.parsing import Formats
from tests.batch.servers import OpenAIServer, _last_text, running
from tests.loopback import ThreadedServer

MODEL = "openai:gpt-4.1-mini"


class Number(pydantic.BaseModel):
    n: int


class JsonServer(OpenAIServer):
    """Answers each request with its last user text verbatim (a JSON text here)."""

    def body(self, line: dict[str, Any]) -> dict[str, Any]:
        answer = super().body(line)
        answer["choices"][0]["message"]["content"] = _last_text(line["body"]["messages"])
        return answer


def requests() -> list[lb.BatchRequest]:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    return [
        lb.BatchRequest("good", [lb.ChatMessage.user('{"n": 3}')], response_format=Number),
        lb.BatchRequest("bad", [lb.ChatMessage.user('{"n": "x"}')], response_format=Number),
        lb.BatchRequest("schema", [lb.ChatMessage.user('{"n": 4}')], response_format=schema),
        lb.BatchRequest("plain", [lb.ChatMessage.user("just text")]),
    ]


def client(url: str) -> lb.Client:
    return lb.Client(providers={"openai": {"api_key": "k", "base_url": url + "/v1"}})


@pytest.mark.anyio
@pytest.mark.io
async def test_results_are_parsed_as_complete_parses_them() -> None:
    server = JsonServer(polls_to_end=1)
    async with running(server) as url, client(url) as c:
        job = await c.batch(MODEL, requests())
        job = await c.batch_wait(job, poll_interval=0.001, max_interval=0.001)
        results = {r.id: r async for r in c.batch_results(job)}
    good = results["good"].response
    assert good is not None and good.parsed == Number(n=3)
    bad = results["bad"]
    assert bad.status == "errored" and bad.response is None
    assert isinstance(bad.error, lb.StructuredOutputError)
    assert bad.error.raw_text == '{"n": "x"}'
    schema = results["schema"].response
    assert schema is not None and schema.parsed == {"n": 4}
    plain = results["plain"].response
    assert plain is not None and plain.parsed is None and plain.text == "just text"
    line = next(x for x in next(iter(server.jobs.values()))["lines"] if x["custom_id"] == "good")
    assert line["body"]["response_format"]["type"] == "json_schema"  # as complete() sends it


@pytest.mark.anyio
@pytest.mark.io
async def test_a_reopened_job_is_parsed_with_the_format_given_to_batch_results() -> None:
    server = JsonServer(polls_to_end=1)
    only = [r for r in requests() if r.id in ("good", "bad")]
    async with running(server) as url:
        async with client(url) as first:
            saved = (await first.batch(MODEL, only)).to_json()
        async with client(url) as second:
            job = lb.BatchJob.from_json(saved)
            assert job.formats is None
            job = await second.batch_wait(job, poll_interval=0.001, max_interval=0.001)
            unparsed = {r.id: r async for r in second.batch_results(job)}
            results = {r.id: r async for r in second.batch_results(job, response_format=Number)}
    assert unparsed["bad"].status == "succeeded" and unparsed["good"].response is not None
    assert unparsed["good"].response.parsed is None
    assert results["good"].response is not None and results["good"].response.parsed == Number(n=3)
    assert isinstance(results["bad"].error, lb.StructuredOutputError)


def test_the_sync_client_parses_too() -> None:
    server = JsonServer(polls_to_end=1)
    url = ThreadedServer(server.handle_socket).url
    with lb.SyncClient(providers={"openai": {"api_key": "k", "base_url": url + "/v1"}}) as c:
        job = c.batch_wait(c.batch(MODEL, requests()), poll_interval=0.001, max_interval=0.001)
        results = {r.id: r for r in c.batch_results(job)}
        again = {r.id: r for r in c.batch_results(job, response_format=Number)}
    assert results["good"].response is not None and results["good"].response.parsed == Number(n=3)
    assert isinstance(again["schema"].response, lb.ChatResponse)
    assert again["plain"].status == "errored"  # "just text" is no Number


def test_formats_keep_one_entry_for_requests_that_share_a_format() -> None:
    formats = Formats()
    assert not formats
    for i in range(1000):
        formats.add(f"r{i}", Number)
    formats.add("other", {"type": "object"})
    formats.add("none", None)
    assert formats and len(formats._by_id) == 2
    fmt = formats.of("r7")
    assert fmt is not None and fmt is formats.of("r999") and fmt.name == "Number"
    assert formats.of("none") is None and formats.of("other") is not fmt
    same = Formats()
    for i in range(10):
        same.add(f"s{i}", {"type": "object"})  # equal dicts, not the same object
    assert len(same._by_id) == 0
