"""Bedrock batch inference on the blocking twin, against the loopback S3 + control plane
(plain threads, outside every loop): submit, wait, results, reopen by ARN, cancel."""

from __future__ import annotations

from typing import Any

import pytest

import llmbridge as lb
from tests.batch.bedrock_server import BedrockServer
from tests.loopback import ThreadedServer

MODEL = "bedrock:us.amazon.nova-lite-v1:0"


def test_the_sync_client_runs_bedrocks_lifecycle(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    server = BedrockServer()
    server.polls_to_end = 1
    threaded = ThreadedServer(server.handle_socket)
    for var in ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL_BEDROCK"):
        monkeypatch.setenv(var, threaded.url)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    options = {
        "region": "us-east-1",
        "aws_access_key_id": "AKIDEXAMPLE",
        "aws_secret_access_key": "secret-test",
    }
    requests = [lb.BatchRequest(i, [lb.ChatMessage.user(i)]) for i in ("x", "y-fail", "z")]
    with lb.SyncClient(providers={"bedrock": options}) as c:
        job = c.batch(
            MODEL,
            requests,
            role_arn="arn:aws:iam::123456789012:role/B",
            s3_uri="s3://bucket",
            min_records=1,
        )
        job = c.batch_wait(job, poll_interval=0.001, max_interval=0.001)
        results = {r.id: r for r in c.batch_results(c.batch_job(MODEL, job.id))}
        other = c.batch(MODEL, requests, role_arn="arn:r", s3_uri="s3://bucket/p", min_records=1)
        stopped = c.batch_wait(c.batch_cancel(other), poll_interval=0.001, max_interval=0.001)
        kinds = sorted(r.status for r in c.batch_results(stopped))
    assert job.status == "completed" and results["x"].response is not None
    assert results["x"].response.text == "echo: x"
    assert isinstance(results["y-fail"].error, lb.InvalidRequestError)
    assert stopped.status == "cancelled" and kinds == ["cancelled", "cancelled", "succeeded"]
    (first, second) = [s.path for s in server.seen if s.method == "PUT"]
    assert first.startswith("/bucket/llmbridge-") and second.startswith("/bucket/p/llmbridge-")
