"""A Bedrock batch lifecycle (S3 upload, create, polls, the ``.out`` download) recorded once in
front of the loopback server and replayed offline in a fresh client: ``job_name=`` makes the
requests the same twice, and no AWS secret reaches the saved fixtures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

import llmbridge as lb
from llmbridge.batch.calls import probe_request
from llmbridge.testing import Fixture, RecordingTransport, ReplayTransport
from llmbridge.testing.record import recording_http, replayable_config
from llmbridge.usage_errors import provider_configs
from tests.batch.bedrock_server import BedrockServer
from tests.batch.servers import running

pytestmark = [pytest.mark.anyio, pytest.mark.io]

MODEL = "bedrock:amazon.nova-lite-v1:0"
SECRET = "wJalrXUtnFEMI-secret-replay"
REQUESTS = [
    lb.BatchRequest(i, [lb.ChatMessage.user(f"q {i}")], max_tokens=10) for i in ("a", "b-fail")
]


async def _lifecycle(client: lb.Client) -> tuple[str, dict[str, str]]:
    job = await client.batch(
        MODEL, REQUESTS, job_name="replayed", min_records=1, role_arn="arn:aws:iam::1:role/r"
    )
    job = await client.batch_wait(job, poll_interval=0.001, max_interval=0.001)
    results = {
        r.id: (r.response.text if r.response else type(r.error).__name__)
        async for r in client.batch_results(job)
    }
    return job.status, results


async def test_a_recorded_bedrock_lifecycle_replays_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    server = BedrockServer()
    server.polls_to_end = 1
    recorder = RecordingTransport()
    async with running(server) as url:
        for var in ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL_BEDROCK"):
            monkeypatch.setenv(var, url)
        options: dict[str, Any] = {
            "region": "us-east-1",
            "aws_access_key_id": "AKIDEXAMPLE",
            "aws_secret_access_key": SECRET,
            "batch_s3_uri": "s3://bucket/runs/",
        }
        async with lb.Client(
            http_client=recording_http(recorder), providers={"bedrock": options}
        ) as c:
            recorded = await _lifecycle(c)
    assert recorded == ("completed", {"a": "echo: q a", "b-fail": "InvalidRequestError"})
    methods = [(r.request["method"], r.request["url"].split("/")[3]) for r in recorder.recordings]
    assert methods[:2] == [("PUT", "bucket"), ("POST", "model-invocation-job")]
    assert ("GET", "bucket") in methods  # the .out file, read back
    config = replayable_config(provider_configs({"bedrock": options})["bedrock"])
    steps = []
    for n, rec in enumerate(recorder.recordings):
        fixture = Fixture(
            path=tmp_path / f"step{n + 1}",
            model=MODEL,
            request=probe_request("amazon.nova-lite-v1:0"),
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
    assert SECRET not in saved and "Signature=" not in saved
    replay = ReplayTransport(steps)
    async with lb.Client(
        http_client=httpx.AsyncClient(transport=replay), providers={"bedrock": options}
    ) as c:
        assert await _lifecycle(c) == recorded
    replay.assert_all_played()
