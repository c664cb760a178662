"""Mistral's batch API: files of ``purpose=batch`` and ``/v1/batch/jobs``.

Rules (https://docs.mistral.ai/capabilities/batch/): the input file is JSONL of
``{"custom_id", "body"}`` (the prepared body, without ``model`` and ``stream``: the job names the
model), uploaded as OpenAI's is; ``POST /batch/jobs`` with ``input_files``, ``endpoint`` and
``model`` makes the job. Statuses: ``QUEUED``, ``RUNNING``, ``SUCCESS`` → completed, ``FAILED``,
``TIMEOUT_EXCEEDED`` → expired, ``CANCELLATION_REQUESTED`` → cancelling, ``CANCELLED``; counts
``total_requests``, ``succeeded_requests``, ``failed_requests``. Output and error files have
OpenAI's line shape (``openai.result_of_line``). Limit: 1,000,000 requests per job (the file
taken as OpenAI's 200 MB here).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

import orjson

from ..providers.prepared import Prepared
from .calls import BatchCall
from .jsonl import Chunk
from .openai import OpenAIBatches, result_of_line
from .types import BatchCounts, BatchPart, BatchResult, BatchStatus

__all__ = ["MistralBatches"]

STATUSES: dict[str, BatchStatus] = {
    "QUEUED": "queued",
    "RUNNING": "running",
    "SUCCESS": "completed",
    "FAILED": "failed",
    "TIMEOUT_EXCEEDED": "expired",
    "CANCELLATION_REQUESTED": "cancelling",
    "CANCELLED": "cancelled",
}


class MistralBatches(OpenAIBatches):
    """Mistral's ``/batch/jobs`` (module rules)."""

    max_requests = 1_000_000

    def line(self, call: BatchCall, custom_id: str, prepared: Prepared) -> bytes:
        body = call.body_of(prepared)
        body.pop("model", None)
        return orjson.dumps({"custom_id": custom_id, "body": body})

    async def submit(self, call: BatchCall, chunk: Chunk, options: dict[str, Any]) -> BatchPart:
        file_id = await self.upload(call, chunk)
        root, query, endpoint = self._split(call)
        body: dict[str, Any] = {"input_files": [file_id], "endpoint": endpoint, "model": call.model}
        if options.get("metadata"):
            body["metadata"] = options["metadata"]
        return self.part(await call.json("POST", f"{root}/batch/jobs{query}", body))

    def part(self, data: Mapping[str, Any]) -> BatchPart:
        raw = str(data.get("status") or "")
        total = int(data.get("total_requests") or 0)
        ok, failed = int(data.get("succeeded_requests") or 0), int(data.get("failed_requests") or 0)
        kept = {k: data.get(k) for k in ("output_file", "error_file", "endpoint", "errors")}
        return BatchPart(
            id=str(data["id"]),
            status=STATUSES.get(raw.upper(), "running"),
            raw_status=raw,
            counts=BatchCounts(total, ok, failed, max(total - ok - failed, 0)),
            data=kept,
        )

    async def status(self, call: BatchCall, part: BatchPart) -> BatchPart:
        root, query, _ = self._split(call)
        return self.part(await call.json("GET", f"{root}/batch/jobs/{part.id}{query}"))

    async def cancel(self, call: BatchCall, part: BatchPart) -> BatchPart:
        root, query, _ = self._split(call)
        return self.part(await call.json("POST", f"{root}/batch/jobs/{part.id}/cancel{query}"))

    async def results(self, call: BatchCall, part: BatchPart) -> AsyncIterator[BatchResult]:
        root, query, _ = self._split(call)
        for key in ("output_file", "error_file"):
            file_id = part.data.get(key)
            if file_id:
                async for line in call.lines(f"{root}/files/{file_id}/content{query}"):
                    yield result_of_line(call, line)
