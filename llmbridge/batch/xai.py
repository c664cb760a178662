"""xAI's native batch API: a named batch, requests added to it, results read a page at a time.

Rules (https://docs.x.ai/docs/guides/batch-api): ``POST /batches {"name"}`` makes the batch;
``POST /batches/{id}/requests`` adds ``{"batch_requests": [{"batch_request_id",
"batch_request": {"chat_get_completion": body}}]}`` (the prepared body without ``stream``,
streamed from disk; one add per file of at most 10,000 requests here); ``GET /batches/{id}``
says ``state`` (``num_requests``, ``num_pending``, ``num_success``, ``num_error``,
``num_cancelled``; a batch has no status word: pending requests → running, none → completed,
cancelled ones with ``cancel_time`` → cancelled); ``POST /batches/{id}:cancel``; ``GET
/batches/{id}/results?limit=&pagination_token=`` pages of ``{"batch_request_id",
"batch_result": {"response": {"chat_get_completion": completion}} | {"error": ...}}``, each
page one plain JSON request of the attempt loop.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import quote

import orjson

from ..errors import LLMBridgeError
from ..providers.openai.errors import stream_error
from ..providers.prepared import Prepared
from .calls import BatchCall
from .jsonl import Chunk
from .types import BatchCounts, BatchPart, BatchResult, BatchStatus

__all__ = ["XaiBatches", "xai_part"]

_HEAD = b'{"batch_requests":['
_TAIL = b"]}"
PAGE = 100


def xai_part(data: Mapping[str, Any]) -> BatchPart:
    """A batch object of xAI's API as a ``BatchPart`` (module rules)."""
    state = data.get("state") or {}
    total = int(state.get("num_requests") or 0)
    pending, ok = int(state.get("num_pending") or 0), int(state.get("num_success") or 0)
    errors, cancelled = int(state.get("num_error") or 0), int(state.get("num_cancelled") or 0)
    status: BatchStatus = "running" if pending else "completed"
    if data.get("cancel_time"):
        status = "cancelling" if pending else "cancelled"
    elif total == 0:
        status = "queued"
    raw = status if not data.get("cancel_time") else f"cancel requested ({status})"
    return BatchPart(
        id=str(data["batch_id"]),
        status=status,
        raw_status=raw,
        counts=BatchCounts(total, ok, errors + cancelled, pending),
        data={"name": data.get("name"), "expire_time": data.get("expire_time")},
    )


class XaiBatches:
    """xAI's native batches (module rules)."""

    max_requests = 10_000
    max_bytes = 100 * 1024 * 1024
    sep = b","

    def _root(self, call: BatchCall) -> str:
        return call.url.split("?")[0].removesuffix("/chat/completions")

    def overhead(self) -> int:
        return len(_HEAD) + len(_TAIL)

    def line(self, call: BatchCall, custom_id: str, prepared: Prepared) -> bytes:
        request = {"chat_get_completion": call.body_of(prepared)}
        return orjson.dumps({"batch_request_id": custom_id, "batch_request": request})

    async def submit(self, call: BatchCall, chunk: Chunk, options: dict[str, Any]) -> BatchPart:
        root = self._root(call)
        made = await call.json(
            "POST", f"{root}/batches", {"name": options.get("name") or "llmbridge"}
        )
        batch_id = quote(str(made["batch_id"]), safe="")
        await call.upload(
            f"{root}/batches/{batch_id}/requests",
            lambda: chunk.pieces(_HEAD, _TAIL),
            length=chunk.length(_HEAD, _TAIL),
            content_type="application/json",
        )
        return xai_part(await call.json("GET", f"{root}/batches/{batch_id}"))

    async def status(self, call: BatchCall, part: BatchPart) -> BatchPart:
        return xai_part(await call.json("GET", f"{self._root(call)}/batches/{part.id}"))

    async def cancel(self, call: BatchCall, part: BatchPart) -> BatchPart:
        return xai_part(await call.json("POST", f"{self._root(call)}/batches/{part.id}:cancel"))

    async def results(self, call: BatchCall, part: BatchPart) -> AsyncIterator[BatchResult]:
        token: str | None = None
        while True:
            url = f"{self._root(call)}/batches/{part.id}/results?limit={PAGE}"
            if token:
                url += f"&pagination_token={quote(token, safe='')}"
            page = await call.json("GET", url)
            for item in page.get("results") or page.get("batch_results") or ():
                yield result_of(call, item)
            token = page.get("pagination_token") or page.get("next_page_token")
            if not token:
                return


def result_of(call: BatchCall, item: Mapping[str, Any]) -> BatchResult:
    custom_id = str(item.get("batch_request_id"))
    result = item.get("batch_result") or {}
    try:
        response = (result.get("response") or {}).get("chat_get_completion")
        if response is not None:
            return BatchResult(custom_id, "succeeded", call.decode(response))
        error = result.get("error") or item.get("error_message") or "the request failed"
        failure: LLMBridgeError = stream_error(provider=call.provider.name, error=error)
    except LLMBridgeError as exc:
        failure = exc
    return BatchResult(custom_id, "errored", None, failure)
