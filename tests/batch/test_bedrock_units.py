"""Bedrock batch inference's pure parts: S3 locations and addressing, botocore's endpoint
settings, the status and count mapping, output lines, and the S3 signer (an unsigned payload:
the streamed body is never read to sign it)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

import llmbridge as lb
from llmbridge.batch.bedrock import STATUSES, BedrockBatches, result_of_line
from llmbridge.batch.calls import BatchCall
from llmbridge.batch.s3 import S3, S3Location, configured_endpoint
from llmbridge.batch.types import BatchCounts, BatchPart
from llmbridge.stream.call import CallConfig

pytest.importorskip("botocore")

ARN = "arn:aws:bedrock:us-east-1:123456789012:model-invocation-job/abc123"


def test_s3_locations_parse_and_join() -> None:
    where = S3Location.parse("s3://bucket/some/prefix/")
    assert (where.bucket, where.key) == ("bucket", "some/prefix/")
    assert where.child("x.jsonl").uri == "s3://bucket/some/prefix/x.jsonl"
    assert S3Location.parse("s3://bucket").child("").uri == "s3://bucket/"
    for bad in ("https://bucket/x", "s3://", "bucket/x"):
        with pytest.raises(lb.UsageError, match="S3 location"):
            S3Location.parse(bad)


def test_aws_hosts_are_virtual_hosted_and_configured_ones_path_style() -> None:
    auth: Any = None
    aws = S3("https://s3.eu-west-1.amazonaws.com", True, auth, "")
    local = S3("http://127.0.0.1:9000", False, auth, "")
    where = S3Location("b", "p/a b+c.jsonl")
    assert aws.url(where) == "https://b.s3.eu-west-1.amazonaws.com/p/a%20b%2Bc.jsonl"
    assert local.url(where) == "http://127.0.0.1:9000/b/p/a%20b%2Bc.jsonl"
    dotted = S3Location("my.bucket", "k")
    assert aws.url(dotted) == "https://s3.eu-west-1.amazonaws.com/my.bucket/k"


def test_endpoints_follow_botocores_settings(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    for var in (
        "AWS_ENDPOINT_URL",
        "AWS_ENDPOINT_URL_S3",
        "AWS_ENDPOINT_URL_BEDROCK",
        "AWS_PROFILE",
    ):
        monkeypatch.delenv(var, raising=False)
    assert configured_endpoint("s3", provider="bedrock") is None
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://everything:1/")
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", "http://minio:9000/")
    assert configured_endpoint("s3", provider="bedrock") == "http://minio:9000"
    assert configured_endpoint("bedrock", provider="bedrock") == "http://everything:1"
    monkeypatch.setenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true")
    assert configured_endpoint("s3", provider="bedrock") is None


def _status(raw: str, **counts: int) -> BatchPart:
    before = BatchPart(ARN, "queued", "Submitted", BatchCounts(10, 0, 0, 10), {"input": "s3://b/i"})
    return BedrockBatches("Converse").part({"jobArn": ARN, "status": raw, **counts}, before)


def test_every_status_word_is_normalized_and_counts_add_up() -> None:
    expected = {
        "Submitted": "queued", "Validating": "queued", "Scheduled": "queued",
        "InProgress": "running", "Stopping": "cancelling", "Completed": "completed",
        "PartiallyCompleted": "completed", "Failed": "failed", "Stopped": "cancelled",
        "Expired": "expired",
    }  # fmt: skip
    assert STATUSES == expected
    assert _status("Submitted").counts == BatchCounts(10, 0, 0, 10)  # no counts yet: kept
    running = _status(
        "InProgress",
        totalRecordCount=10,
        processedRecordCount=4,
        successRecordCount=3,
        errorRecordCount=1,
    )
    assert running.counts == BatchCounts(10, 3, 1, 6) and running.data["input"] == "s3://b/i"
    stopped = _status(
        "Stopped",
        totalRecordCount=10,
        processedRecordCount=4,
        successRecordCount=3,
        errorRecordCount=1,
    )
    assert stopped.counts == BatchCounts(10, 3, 7, 0)  # what never ran ended with it
    assert _status("Whatever").status == "running"


def _call() -> BatchCall:
    provider = lb.Client(
        providers={"bedrock": {"region": "us-east-1", "api_key": "bedrock-api-key-test"}}
    ).resolve("bedrock:amazon.nova-lite-v1:0")[0]
    config = CallConfig(http=None, retry=lb.RetryPolicy())
    return BatchCall.of(provider, "amazon.nova-lite-v1:0", config)


def test_output_lines_become_results_and_errors_are_typed() -> None:
    call = _call()
    ok = (
        b'{"recordId":"a","modelInput":{},"modelOutput":{"output":{"message":{"role":"assistant",'
        b'"content":[{"text":"hi"}]}},"stopReason":"max_tokens","usage":{"inputTokens":1,'
        b'"outputTokens":2,"totalTokens":3}}}'
    )
    result = result_of_line(call, ok)
    assert result.status == "succeeded" and result.response is not None
    assert result.response.text == "hi" and result.response.finish_reason == "length"
    throttled = result_of_line(
        call, b'{"recordId":"b","error":{"errorCode":429,"errorMessage":"slow"}}'
    )
    assert throttled.status == "errored" and isinstance(throttled.error, lb.RateLimitError)
    named = result_of_line(
        call, b'{"recordId":"c","error":{"errorCode":"Timeout","errorMessage":"t"}}'
    )
    assert isinstance(named.error, lb.APIError) and named.error.error_type == "Timeout"
    broken = result_of_line(call, b'{"recordId":"d","modelOutput":7}')
    assert broken.status == "errored" and isinstance(broken.error, lb.LLMBridgeError)
    with pytest.raises(lb.MalformedStreamError):
        result_of_line(call, b'{"modelOutput":{}}')


@pytest.mark.anyio
async def test_the_s3_signer_signs_a_streamed_body_unread() -> None:
    from botocore.credentials import Credentials

    from llmbridge.auth.aws_s3 import S3Auth

    class Shared:
        async def get(self) -> Any:
            return Credentials("AKIDEXAMPLE", "secret-test-key-xyz").get_frozen_credentials()

    class Holder:
        shared = Shared()

    async def body() -> AsyncIterator[bytes]:
        yield b"x" * 10

    request = httpx.Request("PUT", "https://b.s3.us-east-1.amazonaws.com/k", content=body())
    auth = S3Auth(Holder(), region="us-east-1", provider="bedrock")
    flow = auth.async_auth_flow(request)
    signed = await flow.__anext__()
    assert signed.headers["x-amz-content-sha256"] == "UNSIGNED-PAYLOAD"
    authorization = signed.headers["authorization"]
    assert (
        "Credential=AKIDEXAMPLE/" in authorization and "/us-east-1/s3/aws4_request" in authorization
    )
    assert "host;x-amz-content-sha256;x-amz-date" in authorization
    assert not hasattr(signed, "_content")  # the stream was never read
    assert "secret" not in repr(auth)
