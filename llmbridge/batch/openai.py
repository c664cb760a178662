"""OpenAI's Batch API (``/files`` + ``/batches``) and the hosts that serve it: Azure OpenAI,
Groq, Together, and the Responses API on OpenAI and Azure.

Rules (https://platform.openai.com/docs/api-reference/batch): the input is a JSONL file of
``{"custom_id", "method": "POST", "url", "body"}`` lines (the body is the prepared call's,
without ``stream``), uploaded as ``multipart/form-data`` (``purpose=batch``, a fixed boundary so
a recording replays) and streamed from disk; ``POST /batches`` makes the job (``endpoint``: the
line's url, ``completion_window: 24h``). Limits: 50,000 requests and 200 MB per file. Results
are the output file's lines (and the error file's: failed, expired and cancelled requests),
read line by line; a line's body is decoded as ``complete()`` would, a failed line's error
mapped through the provider's error table. The statuses: ``validating`` → queued,
``in_progress`` / ``finalizing`` → running, then ``completed``, ``failed``, ``expired``,
``cancelling``, ``cancelled`` (Together's capitals read alike).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import urlsplit

import orjson

from ..errors import LLMBridgeError
from ..providers.openai.errors import stream_error
from ..providers.prepared import Prepared
from .calls import BatchCall
from .jsonl import Chunk
from .lines import ended_item, read_line
from .types import BatchCounts, BatchPart, BatchResult, BatchStatus

__all__ = [
    "AzureBatches",
    "GroqBatches",
    "OpenAIBatches",
    "TogetherBatches",
    "openai_status",
    "result_of_line",
]

BOUNDARY = "llmbridge-batch-5f0c1b7e"
STATUSES: dict[str, BatchStatus] = {
    "validating": "queued",
    "queued": "queued",
    "in_progress": "running",
    "finalizing": "running",
    "completed": "completed",
    "failed": "failed",
    "expired": "expired",
    "cancelling": "cancelling",
    "cancelled": "cancelled",
}
ENDED_CODES = {"batch_expired": "expired", "batch_cancelled": "cancelled"}
_SUFFIXES = ("/chat/completions", "/responses", "/embeddings")


def openai_status(raw: str) -> BatchStatus:
    return STATUSES.get(raw.lower(), "running")


class OpenAIBatches:
    """The ``/files`` + ``/batches`` API (module rules)."""

    max_requests = 50_000
    max_bytes = 200 * 1024 * 1024
    sep = b"\n"
    purpose = "batch"
    full_line_url = True
    """Lines name the endpoint by its whole path (``/v1/chat/completions``); Azure's by the
    path after the API root (``/chat/completions``)."""

    def _split(self, call: BatchCall) -> tuple[str, str, str]:
        """``(root, query, endpoint)`` of the job's chat URL (derived once per job)."""
        split: tuple[str, str, str] | None = call.memo.get("openai")
        if split is None:
            split = call.memo["openai"] = self._derive(call)
        return split

    def _derive(self, call: BatchCall) -> tuple[str, str, str]:
        parts = urlsplit(call.url)
        path = parts.path.rstrip("/")
        suffix = next((s for s in _SUFFIXES if path.endswith(s)), "")
        root = path[: len(path) - len(suffix)]
        root = root.split("/deployments/")[0]
        query = f"?{parts.query}" if parts.query else ""
        endpoint = path if self.full_line_url else suffix
        return f"{parts.scheme}://{parts.netloc}{root}", query, endpoint

    def _head(self) -> bytes:
        return (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\n'
            f"{self.purpose}\r\n--{BOUNDARY}\r\nContent-Disposition: form-data; "
            'name="file"; filename="batch.jsonl"\r\nContent-Type: application/jsonl\r\n\r\n'
        ).encode()

    _tail = f"\r\n--{BOUNDARY}--\r\n".encode()

    def overhead(self) -> int:
        return len(self._head()) + len(self._tail)

    def line(self, call: BatchCall, custom_id: str, prepared: Prepared) -> bytes:
        _, _, endpoint = self._split(call)
        body = call.body_of(prepared)
        return orjson.dumps(
            {"custom_id": custom_id, "method": "POST", "url": endpoint, "body": body}
        )

    async def upload(self, call: BatchCall, chunk: Chunk) -> str:
        root, query, _ = self._split(call)
        head, tail = self._head(), self._tail
        answer = await call.upload(
            f"{root}/files{query}",
            lambda: chunk.pieces(head, tail),
            length=chunk.length(head, tail),
            content_type=f"multipart/form-data; boundary={BOUNDARY}",
        )
        return str(answer["id"])

    async def submit(self, call: BatchCall, chunk: Chunk, options: dict[str, Any]) -> BatchPart:
        file_id = await self.upload(call, chunk)
        root, query, endpoint = self._split(call)
        body = {"input_file_id": file_id, "endpoint": endpoint, "completion_window": "24h"}
        if options.get("metadata"):
            body["metadata"] = options["metadata"]
        return self.part(await call.json("POST", f"{root}/batches{query}", body))

    def part(self, data: Mapping[str, Any]) -> BatchPart:
        """A batch object (``openai.types.Batch``) as a ``BatchPart``."""
        data = data.get("job", data)  # Together wraps it
        raw = str(data.get("status") or "")
        counts = data.get("request_counts") or {}
        total = int(counts.get("total") or 0)
        done, failed = int(counts.get("completed") or 0), int(counts.get("failed") or 0)
        kept = {
            k: data.get(k)
            for k in ("input_file_id", "output_file_id", "error_file_id", "endpoint", "errors")
        }
        return BatchPart(
            id=str(data["id"]),
            status=openai_status(raw),
            raw_status=raw,
            counts=BatchCounts(total, done, failed, max(total - done - failed, 0)),
            data=kept,
        )

    async def status(self, call: BatchCall, part: BatchPart) -> BatchPart:
        root, query, _ = self._split(call)
        return self.part(await call.json("GET", f"{root}/batches/{part.id}{query}"))

    async def cancel(self, call: BatchCall, part: BatchPart) -> BatchPart:
        root, query, _ = self._split(call)
        return self.part(await call.json("POST", f"{root}/batches/{part.id}/cancel{query}"))

    async def results(self, call: BatchCall, part: BatchPart) -> AsyncIterator[BatchResult]:
        root, query, _ = self._split(call)
        for key in ("output_file_id", "error_file_id"):
            file_id = part.data.get(key)
            if not file_id:
                continue
            async for line in call.lines(f"{root}/files/{file_id}/content{query}"):
                yield result_of_line(call, line)


def result_of_line(call: BatchCall, line: bytes) -> BatchResult:
    """One output or error file line (``openai.types.BatchRequestOutput``) as a result."""
    name = call.provider.name
    item, custom_id = read_line(line, "custom_id", name)
    error, response = item.get("error"), item.get("response") or {}
    if isinstance(error, dict) and error.get("code") in ENDED_CODES:
        return ended_item(name, custom_id, ENDED_CODES[error["code"]])
    status = response.get("status_code")
    body = response.get("body")
    try:
        if error is None and isinstance(status, int) and 200 <= status < 300:
            return BatchResult(custom_id, "succeeded", call.decode(body))
        if isinstance(status, int) and status >= 400:
            failure: LLMBridgeError = call.provider.map_error(
                status=status, headers={}, body=orjson.dumps(body)
            )
            failure.request_id = failure.request_id or response.get("request_id")
        else:
            failure = stream_error(provider=name, error=error or body)
    except LLMBridgeError as exc:  # a body that cannot be read fails its item alone
        failure = exc
    return BatchResult(custom_id, "errored", None, failure)


class AzureBatches(OpenAIBatches):
    """Azure OpenAI: the same API under ``/openai`` (``?api-version=`` kept); lines name
    ``/chat/completions``, the model a deployment."""

    full_line_url = False


class TogetherBatches(OpenAIBatches):
    """Together: files of purpose ``batch-api``; the job object inside ``job``."""

    purpose = "batch-api"
    max_requests = 50_000
    max_bytes = 100 * 1024 * 1024


class GroqBatches(OpenAIBatches):
    """Groq: OpenAI's API; 50,000 requests and 200 MB per file."""
