"""Gemini Batch Mode (``models/{model}:batchGenerateContent``): inline requests or an input file.

Rules (https://ai.google.dev/gemini-api/docs/batch-mode): requests are written as the lines of
an input file, ``{"key": id, "request": body}`` (``request``: the prepared call's body). A
file of at most ``INLINE_BYTES`` (20 MB, the inline limit, its envelope counted) is sent
inline: ``{"batch": {"display_name", "input_config": {"requests": {"requests": [{"request",
"metadata": {"key": id}}]}}}}``; a larger one (or any, with ``input_file=True``; never, with
``input_file=False``) is uploaded through the Files API's resumable protocol (``gemini_files``)
and named by ``input_config.file_name``; a file holds at most 2 GB. The job is a long
running operation named ``batches/…`` (its ``metadata`` the ``GenerateContentBatch``), on the
``v1beta`` API. States ``BATCH_STATE_*`` (and the SDK's ``JOB_STATE_*``): pending → queued,
running, succeeded → completed, failed, cancelled, expired. Results are the job's inlined
responses (or the lines of its ``responsesFile``, read line by line): each a
``GenerateContentResponse`` decoded as ``complete()`` would, or a ``google.rpc.Status`` error
mapped through the Gemini error table (its gRPC code read as the HTTP status it stands for).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import urlsplit

import orjson

from ..errors import LLMBridgeError, UsageError
from ..providers.prepared import Prepared
from .calls import BatchCall
from .gemini_files import inline_chunk, upload_file
from .jsonl import Chunk
from .types import BatchCounts, BatchPart, BatchResult, BatchStatus

__all__ = ["INLINE_BYTES", "GeminiBatches", "gemini_status", "inlined", "result_of"]

INLINE_BYTES = 20 * 1000 * 1000
"""The largest inline ``batchGenerateContent`` body (its envelope counted)."""

_HEAD = b'{"batch":{"display_name":"llmbridge","input_config":{"requests":{"requests":['
_TAIL = b"]}}}}"
_STATES: dict[str, BatchStatus] = {
    "PENDING": "queued",
    "QUEUED": "queued",
    "RUNNING": "running",
    "SUCCEEDED": "completed",
    "FAILED": "failed",
    "CANCELLING": "cancelling",
    "CANCELLED": "cancelled",
    "EXPIRED": "expired",
}
_RPC_STATUS = {3: 400, 4: 504, 5: 404, 7: 403, 8: 429, 9: 400, 13: 500, 14: 503, 16: 401}
"""A ``google.rpc.Code`` → the HTTP status it maps to."""


def gemini_status(raw: str) -> BatchStatus:
    word = raw.removeprefix("BATCH_STATE_").removeprefix("JOB_STATE_")
    return _STATES.get(word, "running")


class GeminiBatches:
    """Gemini Batch Mode (module rules)."""

    max_requests = 100_000
    max_bytes = 2 * 1000 * 1000 * 1000
    sep = b"\n"
    inline_bytes = INLINE_BYTES

    def _root(self, call: BatchCall) -> str:
        parts = urlsplit(call.url)
        path = parts.path.split("/models/")[0]
        if path.endswith("/v1"):
            path = path[: -len("/v1")] + "/v1beta"
        return f"{parts.scheme}://{parts.netloc}{path}"

    def overhead(self) -> int:
        return 0  # an input file is the lines alone

    def line(self, call: BatchCall, custom_id: str, prepared: Prepared) -> bytes:
        return orjson.dumps({"key": custom_id, "request": call.body_of(prepared)})

    async def submit(self, call: BatchCall, chunk: Chunk, options: dict[str, Any]) -> BatchPart:
        """Inline when the chunk fits ``inline_bytes`` (module rules), else an input file."""
        choice = options.get("input_file")
        if choice is not True:
            inline = inline_chunk(chunk, self.inline_bytes - len(_HEAD) - len(_TAIL))
            if inline is not None:
                try:
                    return await self._inline(call, inline)
                finally:
                    inline.close()
            if choice is False:
                raise UsageError(
                    f"a Gemini batch over {self.inline_bytes:,} bytes cannot be sent inline "
                    "(input_file=False): leave input_file out to upload it as a file"
                )
        name = await upload_file(call, chunk, root=self._root(call))
        body = {"batch": {"display_name": "llmbridge", "input_config": {"file_name": name}}}
        url = f"{self._root(call)}/models/{call.model}:batchGenerateContent"
        return self.part(await call.json("POST", url, body), input_file=name)

    async def _inline(self, call: BatchCall, chunk: Chunk) -> BatchPart:
        answer = await call.upload(
            f"{self._root(call)}/models/{call.model}:batchGenerateContent",
            lambda: chunk.pieces(_HEAD, _TAIL),
            length=chunk.length(_HEAD, _TAIL),
            content_type="application/json",
        )
        return self.part(answer)

    def part(self, data: Mapping[str, Any], input_file: str | None = None) -> BatchPart:
        """A batch operation (``google.genai.types.BatchJob`` on the wire) as a ``BatchPart``."""
        meta = data.get("metadata") or data
        raw = str(meta.get("state") or "")
        stats = meta.get("batchStats") or {}
        total = int(stats.get("requestCount") or 0)
        ok, failed = (
            int(stats.get("successfulRequestCount") or 0),
            int(stats.get("failedRequestCount") or 0),
        )
        pending = int(stats.get("pendingRequestCount") or max(total - ok - failed, 0))
        output = meta.get("output") or data.get("response") or {}
        kept = {"responses_file": output.get("responsesFile"), "error": data.get("error")}
        if input_file is not None:
            kept["input_file"] = input_file
        return BatchPart(
            id=str(data.get("name") or meta["name"]),
            status=gemini_status(raw),
            raw_status=raw,
            counts=BatchCounts(total, ok, failed, pending),
            data=kept,
        )

    async def status(self, call: BatchCall, part: BatchPart) -> BatchPart:
        return self.part(await call.json("GET", f"{self._root(call)}/{part.id}"))

    async def cancel(self, call: BatchCall, part: BatchPart) -> BatchPart:
        await call.json("POST", f"{self._root(call)}/{part.id}:cancel")
        return await self.status(call, part)

    async def results(self, call: BatchCall, part: BatchPart) -> AsyncIterator[BatchResult]:
        name = part.data.get("responses_file")
        if name:
            parts = urlsplit(call.url)
            url = f"{parts.scheme}://{parts.netloc}/download/v1beta/{name}:download?alt=media"
            index = 0
            async for line in call.lines(url):
                yield result_of(call, orjson.loads(line), index)
                index += 1
            return
        data = await call.json("GET", f"{self._root(call)}/{part.id}")
        for index, item in enumerate(inlined(data)):
            yield result_of(call, item, index)


def inlined(data: Mapping[str, Any]) -> list[Any]:
    """The inlined responses of a batch operation that ended."""
    meta = data.get("metadata") or {}
    output = meta.get("output") or data.get("response") or {}
    return list((output.get("inlinedResponses") or {}).get("inlinedResponses") or ())


def result_of(call: BatchCall, item: Mapping[str, Any], index: int) -> BatchResult:
    """One inlined response (or responses-file line) as a result."""
    meta = item.get("metadata") or {}
    custom_id = str(item.get("key") or meta.get("key") or meta.get("custom_id") or index)
    error = item.get("error")
    try:
        if error is None:
            response = call.decode(item.get("response"))
            return BatchResult(custom_id, "succeeded", response)
        status = _RPC_STATUS.get(int(error.get("code") or 13), 500)
        body = orjson.dumps({"error": error})
        failure: LLMBridgeError = call.provider.map_error(status=status, headers={}, body=body)
    except LLMBridgeError as exc:
        failure = exc
    return BatchResult(custom_id, "errored", None, failure)
