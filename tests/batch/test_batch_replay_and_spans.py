"""A whole batch lifecycle recorded once (``llmbridge.testing.RecordingTransport`` in front of
the loopback server, saved as fixture folders with the key redacted) and replayed offline in a
fresh client (``ReplayTransport``: every request checked against the recorded one, no socket);
and the telemetry spans of a submit and of each poll."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

import llmbridge as lb
from llmbridge.batch.calls import probe_request
from llmbridge.testing import Fixture, RecordingTransport, ReplayTransport
from llmbridge.testing.record import recording_http, replayable_config
from llmbridge.usage_errors import provider_configs
from tests.batch.servers import AnthropicServer, running

pytestmark = [pytest.mark.anyio, pytest.mark.io]

MODEL = "anthropic:claude-haiku-4-5"
REQUESTS = [
    lb.BatchRequest(i, [lb.ChatMessage.user(f"q {i}")], max_tokens=10) for i in ("a", "b-fail")
]


async def _lifecycle(client: lb.Client) -> tuple[str, dict[str, str]]:
    job = await client.batch(MODEL, REQUESTS)
    job = await client.batch_wait(job, poll_interval=0.001, max_interval=0.001)
    results = {
        r.id: (r.response.text if r.response else type(r.error).__name__)
        async for r in client.batch_results(job)
    }
    return job.status, results


async def test_a_recorded_lifecycle_replays_offline(tmp_path: Path) -> None:
    server = AnthropicServer(polls_to_end=1)
    recorder = RecordingTransport()
    async with running(server) as url:
        options = {"api_key": "sk-ant-secret-key", "base_url": url}
        async with lb.Client(
            http_client=recording_http(recorder), providers={"anthropic": options}
        ) as c:
            recorded = await _lifecycle(c)
    assert recorded == ("completed", {"a": "echo: q a", "b-fail": "InvalidRequestError"})
    config = replayable_config(provider_configs({"anthropic": options})["anthropic"])
    steps = []
    for n, rec in enumerate(recorder.recordings):
        fixture = Fixture(
            path=tmp_path / f"step{n + 1}",
            model=MODEL,
            request=probe_request("claude-haiku-4-5"),
            provider_config=config,
            http_request=rec.request,
            status=rec.status,
            headers=rec.headers,
            body=b"".join(rec.chunks),
            chunks=[len(c) for c in rec.chunks],
            events=[],
        )
        fixture.save()
        steps.append(fixture.path)
    saved = "".join(p.read_text() for step in steps for p in step.iterdir() if p.is_file())
    assert "sk-ant-secret-key" not in saved
    replay = ReplayTransport(steps)
    providers = {"anthropic": {"api_key": "sk-ant-secret-key", "base_url": url}}
    async with lb.Client(http_client=httpx.AsyncClient(transport=replay), providers=providers) as c:
        assert await _lifecycle(c) == recorded
    replay.assert_all_played()


sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")


async def test_a_submit_and_each_poll_are_spans() -> None:
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    spans = InMemorySpanExporter()
    tracer = sdk_trace.TracerProvider()
    tracer.add_span_processor(SimpleSpanProcessor(spans))
    server = AnthropicServer(polls_to_end=2)
    async with running(server) as url:
        providers = {"anthropic": {"api_key": "k", "base_url": url}}
        async with lb.Client(
            providers=providers, telemetry=lb.Telemetry(tracer_provider=tracer)
        ) as c:
            job = await c.batch(MODEL, REQUESTS)
            await c.batch_wait(job, poll_interval=0.001, max_interval=0.001)
    names = [s.name for s in spans.get_finished_spans()]
    polls = sum(s.method == "GET" for s in server.seen)
    assert names[0] == "batch_submit claude-haiku-4-5"
    assert names[1:] == ["batch_poll claude-haiku-4-5"] * polls and polls >= 2
    attrs = spans.get_finished_spans()[0].attributes or {}
    assert attrs["gen_ai.operation.name"] == "batch_submit"
