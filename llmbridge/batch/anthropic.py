"""Anthropic's Message Batches API (``/v1/messages/batches``).

Rules (https://docs.anthropic.com/en/api/creating-message-batches): one JSON body
``{"requests": [{"custom_id", "params"}, ...]}`` (``params``: the prepared call's body without
``stream``), streamed from disk; limits 100,000 requests and 256 MB per batch. Statuses:
``in_progress`` → running, ``canceling`` → cancelling, ``ended`` → completed (cancelled when a
cancel ended it with nothing done, expired when every request expired). Results are the JSONL
at ``results_url``, read line by line: ``succeeded`` (the message, decoded as ``complete()``
would), ``errored`` (the error through the Anthropic error table), ``canceled``, ``expired``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import urlsplit

import orjson

from ..errors import LLMBridgeError, MalformedStreamError
from ..providers.anthropic.errors import stream_error
from ..providers.prepared import Prepared
from .calls import BatchCall
from .jsonl import Chunk
from .lines import ended_item
from .types import BatchCounts, BatchPart, BatchResult, BatchStatus

__all__ = ["AnthropicBatches", "anthropic_status"]

_HEAD = b'{"requests":['
_TAIL = b"]}"


def anthropic_status(data: Mapping[str, Any]) -> BatchStatus:
    raw = data.get("processing_status")
    counts = data.get("request_counts") or {}
    if raw == "in_progress":
        return "running"
    if raw == "canceling":
        return "cancelling"
    if raw != "ended":
        return "queued"
    if int(counts.get("succeeded") or 0) == 0 and int(counts.get("errored") or 0) == 0:
        if data.get("cancel_initiated_at") or int(counts.get("canceled") or 0):
            return "cancelled"
        if int(counts.get("expired") or 0):
            return "expired"
    return "completed"


class AnthropicBatches:
    """The Message Batches API (module rules)."""

    max_requests = 100_000
    max_bytes = 256 * 1024 * 1024
    sep = b","

    def _root(self, call: BatchCall) -> str:
        url = call.url.split("?")[0]
        return url[: -len("/messages")] if url.endswith("/messages") else url.rsplit("/", 1)[0]

    def overhead(self) -> int:
        return len(_HEAD) + len(_TAIL)

    def line(self, call: BatchCall, custom_id: str, prepared: Prepared) -> bytes:
        return orjson.dumps({"custom_id": custom_id, "params": call.body_of(prepared)})

    async def submit(self, call: BatchCall, chunk: Chunk, options: dict[str, Any]) -> BatchPart:
        answer = await call.upload(
            f"{self._root(call)}/messages/batches",
            lambda: chunk.pieces(_HEAD, _TAIL),
            length=chunk.length(_HEAD, _TAIL),
            content_type="application/json",
        )
        return self.part(answer)

    def part(self, data: Mapping[str, Any]) -> BatchPart:
        """A ``MessageBatch`` object as a ``BatchPart``."""
        counts = {k: int(v or 0) for k, v in (data.get("request_counts") or {}).items()}
        failed = counts.get("errored", 0) + counts.get("canceled", 0) + counts.get("expired", 0)
        pending, succeeded = counts.get("processing", 0), counts.get("succeeded", 0)
        kept = {k: data.get(k) for k in ("results_url", "expires_at", "cancel_initiated_at")}
        return BatchPart(
            id=str(data["id"]),
            status=anthropic_status(data),
            raw_status=str(data.get("processing_status") or ""),
            counts=BatchCounts(pending + succeeded + failed, succeeded, failed, pending),
            data=kept,
        )

    async def status(self, call: BatchCall, part: BatchPart) -> BatchPart:
        return self.part(await call.json("GET", f"{self._root(call)}/messages/batches/{part.id}"))

    async def cancel(self, call: BatchCall, part: BatchPart) -> BatchPart:
        url = f"{self._root(call)}/messages/batches/{part.id}/cancel"
        return self.part(await call.json("POST", url))

    async def results(self, call: BatchCall, part: BatchPart) -> AsyncIterator[BatchResult]:
        url = str(part.data.get("results_url") or f"/v1/messages/batches/{part.id}/results")
        if url.startswith("/"):  # a path: on the API's host
            parts = urlsplit(call.url)
            url = f"{parts.scheme}://{parts.netloc}{url}"
        async for line in call.lines(url):
            yield result_of_line(call, line)


def result_of_line(call: BatchCall, line: bytes) -> BatchResult:
    """One results line (``MessageBatchIndividualResponse``) as a result."""
    name = call.provider.name
    try:
        item = orjson.loads(line)
        custom_id, result = str(item["custom_id"]), item["result"]
        kind = result["type"]
    except (ValueError, KeyError, TypeError) as exc:
        raise MalformedStreamError(
            f"not a batch results line ({exc!r}): {line[:200]!r}", provider=name
        ) from None
    if kind in ("canceled", "expired"):
        return ended_item(name, custom_id, "cancelled" if kind == "canceled" else "expired")
    try:
        if kind == "succeeded":
            response = call.decode(result.get("message"))
            return BatchResult(custom_id, "succeeded", response)
        error = result.get("error") or {}
        failure: LLMBridgeError = stream_error(provider=name, error=error.get("error", error))
    except LLMBridgeError as exc:
        failure = exc
    return BatchResult(custom_id, "errored", None, failure)
