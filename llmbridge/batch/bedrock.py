"""Bedrock batch inference (``CreateModelInvocationJob``): the input and output in S3.

Rules (https://docs.aws.amazon.com/bedrock/latest/userguide/batch-inference.html, botocore's
``bedrock`` service model):

* The input is a JSONL file of ``{"recordId": <the app's id>, "modelInput": <body>}`` lines, the
  body the prepared whole call sends: ``bedrock:`` models a ``Converse`` body (the job's
  ``modelInvocationType: "Converse"``; batch refuses ``toolConfig`` there, so a request with
  tools is an ``UnsupportedFeatureError`` naming ``anthropic-bedrock:``), ``anthropic-bedrock:``
  models the ``InvokeModel`` body (the Messages body with ``anthropic_version``; type
  ``InvokeModel``, tools allowed). It is streamed from disk to
  ``<s3_uri>/<job name>.jsonl`` (``batch.s3``), then ``POST /model-invocation-job`` (jobName,
  roleArn, modelId, input and output ``s3Uri``s, ``clientRequestToken`` = the job name, so a
  retried create makes one job; ``timeoutDurationInHours`` from ``timeout_hours=``).
* ``role_arn=`` / ``s3_uri=`` are ``client.batch``'s options, else the provider options
  ``batch_role_arn`` / ``batch_s3_uri`` (a ``UsageError`` names both when missing).
* Limits (Bedrock's default quotas): 50,000 records and 1 GB per input file (a larger
  submission is several jobs behind one handle); at least 100 records per job: a submission
  of fewer is a ``UsageError`` before anything is uploaded (``min_records=`` lowers it, for an
  account whose quota was changed). A list is split into even jobs (``engine.even_limit``); the
  last job of an async iterator's split may hold fewer: Bedrock then fails it at validation,
  reported as that part's ``failed`` status and its items' errors.
* A part's id is the job ARN (``GET /model-invocation-job/{arn}``, ``POST .../stop``). Statuses:
  ``Submitted`` / ``Validating`` / ``Scheduled`` → queued, ``InProgress`` → running, ``Stopping``
  → cancelling, ``Completed`` / ``PartiallyCompleted`` → completed, ``Failed``, ``Stopped`` →
  cancelled, ``Expired`` → expired; counts from ``totalRecordCount``, ``successRecordCount``,
  ``errorRecordCount``, ``processedRecordCount``.
* Results: ``<output s3Uri>/<job id>/<input file name>.out``, read line by line: ``modelOutput``
  decoded as ``complete(stream=False)`` decodes that body, ``error`` (``errorCode``,
  ``errorMessage``) through Bedrock's error table. Records a stopped, expired or failed job never
  answered are read back from the input file: ``cancelled`` / ``expired`` / ``errored`` items.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator, Mapping
from typing import Any, Literal
from urllib.parse import quote

import orjson

from ..errors import (
    APIError,
    LLMBridgeError,
    NotFoundError,
    UnsupportedFeatureError,
    UsageError,
)
from ..providers.base import HttpRequest
from ..providers.prepared import Prepared
from .calls import BatchCall
from .jsonl import Chunk
from .lines import ended_item, read_line
from .s3 import S3, S3Location, s3_of
from .types import BatchCounts, BatchPart, BatchResult, BatchStatus

__all__ = ["MIN_RECORDS", "STATUSES", "BedrockBatches"]

Invocation = Literal["Converse", "InvokeModel"]
MIN_RECORDS = 100
STATUSES: dict[str, BatchStatus] = {
    "Submitted": "queued",
    "Validating": "queued",
    "Scheduled": "queued",
    "InProgress": "running",
    "Stopping": "cancelling",
    "Completed": "completed",
    "PartiallyCompleted": "completed",
    "Failed": "failed",
    "Stopped": "cancelled",
    "Expired": "expired",
}
_NAME = re.compile(r"[a-zA-Z0-9](-*[a-zA-Z0-9])*")
"""A name that is both a valid ``jobName`` and ``clientRequestToken`` (botocore's patterns)."""
_UNANSWERED: dict[str, str] = {"cancelled": "cancelled", "expired": "expired", "failed": "errored"}


def _settings(call: BatchCall, options: Mapping[str, Any]) -> dict[str, str]:
    given: dict[str, str] = dict(getattr(call.provider, "batch_settings", {}) or {})
    given.update({k: str(options[k]) for k in ("role_arn", "s3_uri") if options.get(k)})
    return given


class BedrockBatches:
    """Bedrock batch inference of one invocation type (module rules)."""

    max_requests = 50_000
    max_bytes = 1024**3
    sep = b"\n"

    def __init__(self, invocation: Invocation) -> None:
        self.invocation: Invocation = invocation

    def overhead(self) -> int:
        return 0

    def line(self, call: BatchCall, custom_id: str, prepared: Prepared) -> bytes:
        body = call.body_of(prepared)
        if self.invocation == "Converse" and "toolConfig" in body:
            raise UnsupportedFeatureError(
                "Bedrock batch inference of Converse bodies takes no tools (toolConfig): "
                "batch Claude with tools as 'anthropic-bedrock:<model>' (InvokeModel bodies)",
                provider=call.provider.name,
            )
        return orjson.dumps({"recordId": custom_id, "modelInput": body})

    async def _s3(self, call: BatchCall, options: Mapping[str, Any] | None = None) -> S3:
        return await s3_of(call, _settings(call, options or {}))

    async def submit(self, call: BatchCall, chunk: Chunk, options: dict[str, Any]) -> BatchPart:
        settings = _settings(call, options)
        missing = [k for k in ("role_arn", "s3_uri") if not settings.get(k)]
        if missing:
            raise UsageError(
                f"Bedrock batch inference needs {' and '.join(missing)}: pass "
                f"client.batch(..., {', '.join(f'{k}=...' for k in missing)}) or the provider "
                f"options {', '.join(f'batch_{k}' for k in missing)}"
            )
        least = int(options.get("min_records", MIN_RECORDS))
        if not call.memo.get("bedrock_jobs") and chunk.count < least:
            raise UsageError(
                f"Bedrock batch inference takes at least {least} records per job (its default "
                f"quota), not {chunk.count}: send fewer with complete(), or pass min_records= "
                "if the account's quota is lower"
            )
        s3 = await self._s3(call, options)
        name = _job_name(options.get("job_name"), call.memo.get("bedrock_jobs", 0))
        prefix = S3Location.parse(settings["s3_uri"])
        source = prefix.child(f"{name}.jsonl")
        await s3.put(call, source, lambda: chunk.pieces(), length=chunk.length())
        body: dict[str, Any] = {
            "jobName": name,
            "roleArn": settings["role_arn"],
            "clientRequestToken": name,
            "modelId": call.model,
            "inputDataConfig": {
                "s3InputDataConfig": {"s3Uri": source.uri, "s3InputFormat": "JSONL"}
            },
            "outputDataConfig": {"s3OutputDataConfig": {"s3Uri": prefix.child("").uri}},
            "modelInvocationType": self.invocation,
        }
        if options.get("timeout_hours"):
            body["timeoutDurationInHours"] = int(options["timeout_hours"])
        answer = await call.json("POST", f"{s3.control}/model-invocation-job", body)
        call.memo["bedrock_jobs"] = call.memo.get("bedrock_jobs", 0) + 1
        data = {"input": source.uri, "output": prefix.child("").uri}
        counts = BatchCounts(chunk.count, 0, 0, chunk.count)
        return BatchPart(str(answer["jobArn"]), "queued", "Submitted", counts, data)

    def part(self, data: Mapping[str, Any], before: BatchPart | None = None) -> BatchPart:
        """A ``GetModelInvocationJob`` answer as a ``BatchPart``."""
        raw = str(data.get("status") or "")
        status = STATUSES.get(raw, "running")
        counts = before.counts if before is not None else BatchCounts()
        if data.get("totalRecordCount") is not None:
            total = int(data["totalRecordCount"])
            done = int(data.get("successRecordCount") or 0)
            failed = int(data.get("errorRecordCount") or 0)
            pending = max(total - int(data.get("processedRecordCount") or done + failed), 0)
            counts = BatchCounts(total, done, failed, pending)
        if status in _UNANSWERED and counts.pending:  # what never ran ended with the job
            counts = BatchCounts(counts.total, counts.succeeded, counts.total - counts.succeeded)
        kept = dict(before.data) if before is not None else {}
        source = (data.get("inputDataConfig") or {}).get("s3InputDataConfig") or {}
        target = (data.get("outputDataConfig") or {}).get("s3OutputDataConfig") or {}
        kept.update(
            {
                k: v
                for k, v in (("input", source.get("s3Uri")), ("output", target.get("s3Uri")))
                if v
            }
        )
        if data.get("message"):
            kept["message"] = str(data["message"])
        return BatchPart(
            str(data.get("jobArn") or (before.id if before else "")), status, raw, counts, kept
        )

    def _job_url(self, s3: S3, part: BatchPart) -> str:
        return f"{s3.control}/model-invocation-job/{quote(part.id, safe='')}"

    async def status(self, call: BatchCall, part: BatchPart) -> BatchPart:
        s3 = await self._s3(call)
        return self.part(await call.json("GET", self._job_url(s3, part)), part)

    async def cancel(self, call: BatchCall, part: BatchPart) -> BatchPart:
        s3 = await self._s3(call)
        url, auth = self._job_url(s3, part) + "/stop", call.probe.http.auth
        headers = call.headers(**{"content-type": "application/json"})
        await s3.send(call, HttpRequest("POST", url, headers=headers, json={}, auth=auth))
        return await self.status(call, part)

    async def results(self, call: BatchCall, part: BatchPart) -> AsyncIterator[BatchResult]:
        s3 = await self._s3(call)
        source = S3Location.parse(str(part.data["input"]))
        name = source.key.rsplit("/", 1)[-1]
        job_id = part.id.rsplit("/", 1)[-1]
        output = S3Location.parse(str(part.data["output"])).child(f"{job_id}/{name}.out")
        seen: set[str] = set()
        try:
            async for line in s3.lines(call, output):
                result = result_of_line(call, line)
                seen.add(result.id)
                yield result
        except NotFoundError:
            if part.status == "completed":
                raise
        ended = _UNANSWERED.get(part.status)
        if ended is None:
            return
        async for line in s3.lines(call, source):
            record = str(orjson.loads(line)["recordId"])
            if record not in seen:
                yield _unanswered(call, record, ended, part)


def _job_name(given: Any, index: int) -> str:
    """``job_name=`` (``-2``, ``-3``... after a split's first job), else a fresh unique one."""
    if not given:
        return f"llmbridge-{uuid.uuid4().hex[:24]}"
    name = str(given) if index == 0 else f"{given}-{index + 1}"
    if len(name) > 63 or not _NAME.fullmatch(name):
        raise UsageError(f"job_name={given!r}: Bedrock takes letters, digits and '-', 1-63 long")
    return name


def _unanswered(call: BatchCall, record: str, ended: str, part: BatchPart) -> BatchResult:
    if ended != "errored":
        return ended_item(call.provider.name, record, ended)
    why = str(part.data.get("message") or "the batch job failed")
    error = APIError(why, provider=call.provider.name, error_type="batch_failed")
    return BatchResult(record, "errored", None, error)


def result_of_line(call: BatchCall, line: bytes) -> BatchResult:
    """One output line (``recordId`` with ``modelOutput`` or ``error``) as a result."""
    name = call.provider.name
    item, record = read_line(line, "recordId", name)
    error = item.get("error")
    try:
        if error is None:
            return BatchResult(record, "succeeded", call.decode(item.get("modelOutput")))
        error = error if isinstance(error, dict) else {"errorMessage": str(error)}
        code, message = error.get("errorCode"), str(error.get("errorMessage") or error)
        if isinstance(code, int) or (isinstance(code, str) and code.isdigit()):
            body = orjson.dumps({"message": message})
            failure: LLMBridgeError = call.provider.map_error(
                status=int(code), headers={}, body=body
            )
        else:
            failure = APIError(message, provider=name, error_type=str(code or "batch_error"))
    except LLMBridgeError as exc:  # a body that cannot be read fails its item alone
        failure = exc
    return BatchResult(record, "errored", None, failure)
