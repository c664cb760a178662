"""A loopback S3 (path-style PutObject / GetObject) and Bedrock control plane
(``/model-invocation-job``) on one socket, running batch inference's whole lifecycle.

Each job moves one step per status poll: ``Submitted`` → ``InProgress`` → its end
(``PartiallyCompleted`` when a record failed, else ``Completed``; ``end="Expired"`` expires it).
At the end the output object ``<output>/<job id>/<input name>.out`` is written: a record whose
id contains ``fail`` gets an ``error`` line; under an expiring job a record whose id contains
``expire`` gets no line; a stopped job (``/stop``) answers only its first record. The others
answer ``echo: <the last user text>`` in the job's invocation type (a Converse body or a
Claude InvokeModel body). Requests are kept (``seen``) for the shape tests.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

import orjson

from tests.batch.servers import BatchServer, _answer, _last_text

ACCOUNT_ARN = "arn:aws:bedrock:us-east-1:123456789012:model-invocation-job/"


def _converse(text: str) -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": [{"text": text}]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 5, "outputTokens": 3, "totalTokens": 8},
        "metrics": {"latencyMs": 12},
    }


def _claude(text: str) -> dict[str, Any]:
    return {
        "id": "msg_bdrk_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 3},
    }


class BedrockServer(BatchServer):
    """S3 and the control plane (see the module docstring)."""

    def __init__(self, end: str = "") -> None:
        super().__init__()
        self.objects: dict[str, bytes] = {}
        self.end = end

    def route(self, method: str, target: str, headers: dict[str, str], body: bytes) -> bytes:
        path = target.split("?")[0]
        if path.startswith("/model-invocation-job"):
            assert "/bedrock/aws4_request" in headers.get("authorization", "")
            return self.control(method, path, body)
        assert "/s3/aws4_request" in headers.get("authorization", ""), headers
        assert headers.get("x-amz-content-sha256") == "UNSIGNED-PAYLOAD"
        key = unquote(path.lstrip("/"))
        if method == "PUT":
            assert int(headers["content-length"]) == len(body)
            self.objects[key] = body
            return b'HTTP/1.1 200 OK\r\netag: "e"\r\ncontent-length: 0\r\n\r\n'
        if method == "GET" and key in self.objects:
            return _answer(self.objects[key], "binary/octet-stream")
        error = b"<Error><Code>NoSuchKey</Code><Message>The key does not exist</Message></Error>"
        return _answer(error, "application/xml", 404)

    def control(self, method: str, path: str, body: bytes) -> bytes:
        if method == "POST" and path == "/model-invocation-job":
            data = orjson.loads(body)
            arn = ACCOUNT_ARN + self.new_id("job")
            source = data["inputDataConfig"]["s3InputDataConfig"]["s3Uri"]
            lines = self.objects[source.removeprefix("s3://")].splitlines()
            job = {"create": data, "lines": lines, "status": "Submitted"}
            self.jobs[arn] = {**job, "arn_id": arn.rsplit("/", 1)[-1]}
            return _answer(orjson.dumps({"jobArn": arn}))
        arn, _, action = unquote(path.removeprefix("/model-invocation-job/")).partition("/stop")
        job = self.jobs[arn]
        if method == "POST" and action == "" and path.endswith("/stop"):
            job["status"] = "Stopping"
            return _answer(b"{}")
        self.advance(job)
        return _answer(orjson.dumps(self.describe(arn, job)))

    def advance(self, job: dict[str, Any]) -> None:
        super().advance(job)
        if job["status"] == "Stopping":
            self.finish(job, "Stopped", answered=job["lines"][:1])
        elif job["status"] == "Submitted":
            job["status"] = "InProgress"
        elif job["status"] == "InProgress" and job["polls"] >= self.polls_to_end:
            kept = [ln for ln in job["lines"] if not (self.end and b"expire" in ln)]
            failed = any(b"fail" in ln for ln in kept)
            end = self.end or ("PartiallyCompleted" if failed else "Completed")
            self.finish(job, end, answered=kept)

    def finish(self, job: dict[str, Any], status: str, answered: list[bytes]) -> None:
        create = job["create"]
        invoke = create.get("modelInvocationType", "InvokeModel") == "InvokeModel"
        out = []
        for line in answered:
            record = orjson.loads(line)
            item: dict[str, Any] = {
                "recordId": record["recordId"],
                "modelInput": record["modelInput"],
            }
            if "fail" in record["recordId"]:
                item["error"] = {"errorCode": 400, "errorMessage": "Malformed input request"}
            else:
                text = "echo: " + _last_text(record["modelInput"]["messages"])
                item["modelOutput"] = _claude(text) if invoke else _converse(text)
            out.append(orjson.dumps(item))
        source = create["inputDataConfig"]["s3InputDataConfig"]["s3Uri"]
        name = source.rsplit("/", 1)[-1]
        prefix = create["outputDataConfig"]["s3OutputDataConfig"]["s3Uri"].removeprefix("s3://")
        self.objects[f"{prefix}{job['arn_id']}/{name}.out"] = b"\n".join(out) + b"\n"
        errors = sum(1 for ln in out if b'"error"' in ln)
        job.update(status=status, success=len(out) - errors, errors=errors, processed=len(out))

    def describe(self, arn: str, job: dict[str, Any]) -> dict[str, Any]:
        create = job["create"]
        answer: dict[str, Any] = {
            "jobArn": arn,
            "jobName": create["jobName"],
            "modelId": create["modelId"],
            "roleArn": create["roleArn"],
            "status": job["status"],
            "submitTime": "2026-12-02T13:00:00Z",
            "inputDataConfig": create["inputDataConfig"],
            "outputDataConfig": create["outputDataConfig"],
            "modelInvocationType": create.get("modelInvocationType", "InvokeModel"),
        }
        if job["status"] not in ("Submitted", "Validating"):
            answer["totalRecordCount"] = len(job["lines"])
            answer["processedRecordCount"] = job.get("processed", 0)
            answer["successRecordCount"] = job.get("success", 0)
            answer["errorRecordCount"] = job.get("errors", 0)
        return answer
