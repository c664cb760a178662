"""Bedrock batch inference against a loopback S3 + control plane, on every loop: submit (the
input streamed to S3), poll until done, results with failed, expired and cancelled records, a
job reopened from JSON and by its ARN in a fresh client, cancel; the requests checked against
botocore's own service model."""

from __future__ import annotations

import re
from typing import Any

import orjson
import pytest

import llmbridge as lb
from llmbridge.batch import BatchCounts
from tests.batch.bedrock_server import BedrockServer
from tests.batch.servers import running

pytestmark = [pytest.mark.anyio, pytest.mark.io]

ROLE = "arn:aws:iam::123456789012:role/BedrockBatch"
MODELS = {
    "bedrock": "bedrock:us.amazon.nova-lite-v1:0",
    "anthropic-bedrock": "anthropic-bedrock:us.anthropic.claude-haiku-4-5-20251001-v1:0",
}
IDS = ["a", "b-fail", "c", "d-expire", "e"]


@pytest.fixture(autouse=True)
def _aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    for var in ("AWS_PROFILE", "AWS_BEARER_TOKEN_BEDROCK", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))


def client(name: str, url: str, monkeypatch: pytest.MonkeyPatch, **more: Any) -> lb.Client:
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", url)
    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK", url)
    options = {
        "region": "us-east-1",
        "aws_access_key_id": "AKIDEXAMPLE",
        "aws_secret_access_key": "wJalrXUtnFEMI-secret-test",
        "base_url": url,
        "batch_role_arn": ROLE,
        "batch_s3_uri": "s3://llmb-batches/jobs/",
        **more,
    }
    return lb.Client(providers={name: options})


def requests(ids: list[str] = IDS) -> list[lb.BatchRequest]:
    return [lb.BatchRequest(i, [lb.ChatMessage.user(f"hi {i}")], max_tokens=20) for i in ids]


@pytest.mark.parametrize("name", sorted(MODELS))
async def test_submit_wait_and_read_every_result(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = BedrockServer()
    async with running(server) as url, client(name, url, monkeypatch) as c:
        job = await c.batch(MODELS[name], requests(), min_records=1)
        assert job.status == "queued" and job.counts.total == 5 and job.id.startswith("arn:aws")
        assert "secret" not in repr(job) + job.to_json()
        heard: list[str] = []
        done = await c.batch_wait(
            job,
            poll_interval=0.001,
            max_interval=0.002,
            on_progress=lambda j: heard.append(j.status),
        )
        assert done.status == "completed" and done.raw_status == "PartiallyCompleted"
        assert "running" in heard and done.counts == BatchCounts(5, 4, 1, 0)
        results = {r.id: r async for r in c.batch_results(done)}
    assert set(results) == set(IDS)
    assert results["a"].response is not None and results["a"].response.text == "echo: hi a"
    usage = results["a"].response.usage
    assert usage is not None and (usage.input_tokens, usage.output_tokens) == (5, 3)
    assert results["b-fail"].status == "errored"
    assert isinstance(results["b-fail"].error, lb.InvalidRequestError)
    assert "Malformed input" in str(results["b-fail"].error)
    (put,) = [s for s in server.seen if s.method == "PUT"]
    assert put.path.startswith("/llmb-batches/jobs/llmbridge-") and put.path.endswith(".jsonl")
    lines = [orjson.loads(line) for line in put.body.splitlines()]
    assert [line["recordId"] for line in lines] == IDS
    model_input = lines[0]["modelInput"]
    if name == "bedrock":  # a Converse body
        assert model_input["messages"] == [{"role": "user", "content": [{"text": "hi a"}]}]
        assert model_input["inferenceConfig"] == {"maxTokens": 20}
    else:  # Claude's InvokeModel body: anthropic_version, no model, no stream
        assert model_input["anthropic_version"] and model_input["max_tokens"] == 20
        assert "model" not in model_input and "stream" not in model_input


async def test_an_expired_job_reports_its_unanswered_records(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = BedrockServer(end="Expired")
    async with running(server) as url, client("bedrock", url, monkeypatch) as c:
        job = await c.batch(MODELS["bedrock"], requests(), min_records=1)
        done = await c.batch_wait(job, poll_interval=0.001, max_interval=0.001)
        assert done.status == "expired" and done.counts.pending == 0
        results = {r.id: r async for r in c.batch_results(done)}
    assert results["d-expire"].status == "expired"
    assert isinstance(results["d-expire"].error, lb.APIError)
    assert [results[i].status for i in ("a", "c", "e")] == ["succeeded"] * 3


@pytest.mark.parametrize("name", sorted(MODELS))
async def test_a_job_reopened_from_json_and_by_its_arn(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = BedrockServer()
    async with running(server) as url:
        async with client(name, url, monkeypatch) as first:
            saved = (await first.batch(MODELS[name], requests(), min_records=1)).to_json()
        async with client(name, url, monkeypatch) as second:
            job = await second.batch_wait(lb.BatchJob.from_json(saved), poll_interval=0.001)
            arn = job.id
        async with client(name, url, monkeypatch) as third:  # by id alone: status fills it in
            again = third.batch_job(MODELS[name], arn)
            results = {r.id: r.status async for r in third.batch_results(again)}
    assert job.status == "completed"
    assert results == {"a": "succeeded", "b-fail": "errored", "c": "succeeded",
                       "d-expire": "succeeded", "e": "succeeded"}  # fmt: skip


async def test_cancel_stops_the_job_and_reports_what_never_ran(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = BedrockServer()
    async with running(server) as url, client("anthropic-bedrock", url, monkeypatch) as c:
        job = await c.batch(MODELS["anthropic-bedrock"], requests(), min_records=1)
        cancelling = await c.batch_cancel(job)
        assert cancelling.status in ("cancelling", "cancelled")
        done = await c.batch_wait(cancelling, poll_interval=0.001, max_interval=0.001)
        assert done.status == "cancelled" and done.raw_status == "Stopped"
        results = {r.id: r.status async for r in c.batch_results(done)}
    assert results == {"a": "succeeded", "b-fail": "cancelled", "c": "cancelled",
                       "d-expire": "cancelled", "e": "cancelled"}  # fmt: skip
    assert any(s.method == "POST" and s.path.endswith("/stop") for s in server.seen)


async def test_a_large_submission_is_split_into_jobs(monkeypatch: pytest.MonkeyPatch) -> None:
    server = BedrockServer()
    ids = [f"r{i}" for i in range(7)]
    async with running(server) as url, client("bedrock", url, monkeypatch) as c:
        job = await c.batch(MODELS["bedrock"], requests(ids), max_requests_per_job=3, min_records=1)
        assert len(job.parts) == 3 and job.counts.total == 7
        done = await c.batch_wait(job, poll_interval=0.001, max_interval=0.001)
        got = sorted([r.id async for r in c.batch_results(done)])
    assert got == sorted(ids) and len(server.jobs) == 3


async def test_a_named_job_names_its_file_and_token(monkeypatch: pytest.MonkeyPatch) -> None:
    server = BedrockServer()
    ids = [f"r{i}" for i in range(4)]
    async with running(server) as url, client("bedrock", url, monkeypatch) as c:
        options: dict[str, Any] = {"min_records": 1, "max_requests_per_job": 2}
        await c.batch(MODELS["bedrock"], requests(ids), job_name="evals-7", **options)
        with pytest.raises(lb.UsageError, match="job_name"):
            await c.batch(MODELS["bedrock"], requests(ids), job_name="no spaces", **options)
    creates = [orjson.loads(s.body) for s in server.seen if s.path == "/model-invocation-job"]
    assert [(b["jobName"], b["clientRequestToken"]) for b in creates] == [
        ("evals-7", "evals-7"),
        ("evals-7-2", "evals-7-2"),
    ]
    puts = [s.path for s in server.seen if s.method == "PUT"]
    assert puts == ["/llmb-batches/jobs/evals-7.jsonl", "/llmb-batches/jobs/evals-7-2.jsonl"]


async def test_the_minimum_and_missing_settings_are_refused_before_upload(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = BedrockServer()
    async with running(server) as url:
        async with client("bedrock", url, monkeypatch) as c:
            with pytest.raises(lb.UsageError, match="at least 100 records"):
                await c.batch(MODELS["bedrock"], requests())
            tools = [lb.ToolSpec.from_json_schema("f", "f", {"type": "object"})]
            tooled = [lb.BatchRequest("t", [lb.ChatMessage.user("x")], tools=tools)]
            with pytest.raises(lb.UnsupportedFeatureError, match="anthropic-bedrock"):
                await c.batch(MODELS["bedrock"], tooled, min_records=1)
        async with client("bedrock", url, monkeypatch, batch_role_arn=None) as c:
            with pytest.raises(lb.UsageError, match="role_arn"):
                await c.batch(MODELS["bedrock"], requests(), min_records=1)
    assert server.seen == []


async def test_the_requests_match_botocores_service_model(monkeypatch: pytest.MonkeyPatch) -> None:
    botocore_session = pytest.importorskip("botocore.session")
    from botocore.validate import ParamValidator

    model = botocore_session.get_session().get_service_model("bedrock")
    server = BedrockServer()
    async with running(server) as url, client("anthropic-bedrock", url, monkeypatch) as c:
        job = await c.batch(
            MODELS["anthropic-bedrock"], requests(), min_records=1, timeout_hours=24
        )
        await c.batch_status(job)
    (create,) = [s for s in server.seen if s.path == "/model-invocation-job"]
    body = orjson.loads(create.body)
    shape = model.operation_model("CreateModelInvocationJob").input_shape
    report = ParamValidator().validate(body, shape)
    assert not report.has_errors(), report.generate_report()
    for field, value in [  # the patterns botocore's validator leaves unchecked
        ("jobName", body["jobName"]),
        ("clientRequestToken", body["clientRequestToken"]),
        ("roleArn", body["roleArn"]),
        ("modelId", body["modelId"]),
    ]:
        assert re.fullmatch(shape.members[field].metadata["pattern"], value), field
    uri = shape.members["inputDataConfig"].members["s3InputDataConfig"].members["s3Uri"]
    for config in (
        body["inputDataConfig"]["s3InputDataConfig"],
        body["outputDataConfig"]["s3OutputDataConfig"],
    ):
        assert re.fullmatch(uri.metadata["pattern"], config["s3Uri"]), config
    assert body["modelInvocationType"] == "InvokeModel" and body["timeoutDurationInHours"] == 24
    assert body["clientRequestToken"] == body["jobName"] and body["roleArn"] == ROLE
    status_names = model.shape_for("ModelInvocationJobStatus").enum
    from llmbridge.batch.bedrock import STATUSES

    assert sorted(STATUSES) == sorted(status_names)
    get = model.operation_model("GetModelInvocationJob")
    (arn,) = server.jobs
    answer = server.describe(arn, server.jobs[arn])  # what the adapter reads, by botocore's names
    report = ParamValidator().validate(answer, get.output_shape)
    assert not report.has_errors(), report.generate_report()
    assert {"totalRecordCount", "successRecordCount", "errorRecordCount"} <= set(answer)
    assert get.http["requestUri"] == "/model-invocation-job/{jobIdentifier}"
    stop = model.operation_model("StopModelInvocationJob")
    assert stop.http["requestUri"] == "/model-invocation-job/{jobIdentifier}/stop"
