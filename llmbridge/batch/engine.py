"""The batch lifecycle over any adapter: submit, status, wait, cancel, results.

Rules:

* ``submit`` encodes each request once (``client.build_request`` then the provider's own
  ``prepare``: the options ``complete()`` takes; for a plain request, the same bytes from a
  template prepared so once per shape and options: ``template``), writes its line to the
  streaming writer and, whenever a file reaches the provider's limits, submits it at once (one
  provider job per file): requests are held one at a time, files on disk. A submission of known
  size (a list) is split into even jobs (``even_limit``). Ids must be unique
  strings; an error a request's encoding raises names its id (its message begins so). A plain iterable is
  read without an ``await`` per request, yielding to the loop every ``YIELD_EVERY``.
* ``status`` asks every part still moving; ``wait`` polls until the job ended, the interval
  growing by ``BACKOFF`` up to ``max_interval`` (reset when the counts move), telling
  ``on_progress`` every fresh status; ``cancel`` cancels every part still moving.
* ``results`` yields every part's results, as the provider lists them (any order).
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable, Sized
from functools import partial
from typing import Any

import anyio
import anyio.lowlevel

from ..errors import LLMBridgeError, UsageError
from ..request import ChatRequest
from .adapter import BatchAdapter
from .calls import BatchCall
from .jsonl import Chunk, JsonlWriter
from .template import Lines
from .types import TERMINAL, BatchJob, BatchPart, BatchRequest, BatchResult

__all__ = ["BACKOFF", "YIELD_EVERY", "Requests", "cancel", "results", "status", "submit", "wait"]

BACKOFF = 1.5
YIELD_EVERY = 1000
"""Requests of a plain iterable encoded between two yields to the event loop."""
Requests = Iterable[BatchRequest] | AsyncIterable[BatchRequest]
Build = Callable[..., ChatRequest]
Progress = Callable[[BatchJob], Awaitable[None] | None]


async def submit(
    call: BatchCall,
    adapter: BatchAdapter,
    requests: Requests,
    build: Build,
    options: dict[str, Any],
    *,
    max_requests: int | None = None,
) -> BatchJob:
    """Encode, write and submit ``requests`` (module rules)."""
    limit = even_limit(requests, min(max_requests or adapter.max_requests, adapter.max_requests))
    writer = JsonlWriter(
        max_requests=limit,
        max_bytes=adapter.max_bytes,
        sep=adapter.sep,
        overhead=adapter.overhead(),
    )
    lines = Lines(call.model, build, call.prepared, partial(adapter.line, call))
    parts: list[BatchPart] = []
    seen: set[str] = set()

    def take(request: BatchRequest) -> Chunk | None:
        if not isinstance(request, BatchRequest):
            raise UsageError(
                f"client.batch() takes lb.BatchRequest items, not {type(request).__name__}"
            )
        if request.id in seen:
            raise UsageError(f"two batch requests have the id {request.id!r}: ids must be unique")
        seen.add(request.id)
        if "stream" in request.options:
            raise UsageError("a batch request is never streamed: leave out stream=")
        try:
            line, _ = lines.encode(request.id, request.messages, request.options)
        except LLMBridgeError as exc:  # named: one request of many
            exc.message = f"batch request {request.id!r}: {exc.message}"
            exc.args = (exc.message, *exc.args[1:])
            raise
        return writer.add(line)

    async def send(chunk: Chunk | None) -> None:
        if chunk is not None:
            try:
                parts.append(await adapter.submit(call, chunk, options))
            finally:
                chunk.close()

    if isinstance(requests, AsyncIterable):
        async for request in requests:
            await send(take(request))
    else:
        for n, request in enumerate(requests, 1):
            full = take(request)
            if full is not None:
                await send(full)
            elif not n % YIELD_EVERY:
                await anyio.lowlevel.checkpoint()
    await send(writer.finish())
    if not parts:
        raise UsageError("client.batch() was given no requests")
    return BatchJob(provider=call.provider.name, model=call.model, parts=tuple(parts))


def even_limit(requests: Requests, limit: int) -> int:
    """The requests per job for a submission of known size: its jobs made even (a list of 50,050
    at 50,000 per job is two jobs of 25,025, not one of 50 that Bedrock's 100-record minimum
    refuses); ``limit`` for an iterator."""
    total = len(requests) if isinstance(requests, Sized) else 0
    if total <= limit:
        return limit
    jobs = -(-total // limit)
    return -(-total // jobs)


async def status(call: BatchCall, adapter: BatchAdapter, job: BatchJob) -> BatchJob:
    """The job as the provider sees it now (parts that ended are not asked again)."""
    parts = [
        part if part.status in TERMINAL else await adapter.status(call, part) for part in job.parts
    ]
    return job.with_parts(parts)


async def cancel(call: BatchCall, adapter: BatchAdapter, job: BatchJob) -> BatchJob:
    parts = [
        part if part.status in TERMINAL else await adapter.cancel(call, part) for part in job.parts
    ]
    return job.with_parts(parts)


async def wait(
    poll: Callable[[BatchJob], Awaitable[BatchJob]],
    job: BatchJob,
    *,
    poll_interval: float,
    max_interval: float,
    on_progress: Progress | None,
    sleep: Callable[[float], Awaitable[Any]] = anyio.sleep,
) -> BatchJob:
    """Poll until the job ended (module rules); ``poll``: one status request (a span);
    ``sleep``: the client's (a replay's collapses the intervals)."""
    if poll_interval <= 0 or max_interval < poll_interval:
        raise UsageError("batch_wait: poll_interval > 0 and max_interval >= poll_interval")
    interval = poll_interval
    while True:
        before = job.counts
        job = await poll(job)
        if on_progress is not None:
            told = on_progress(job)
            if inspect.isawaitable(told):
                await told
        if job.done:
            return job
        interval = poll_interval if job.counts != before else min(interval * BACKOFF, max_interval)
        await sleep(interval)


async def results(
    call: BatchCall, adapter: BatchAdapter, job: BatchJob
) -> AsyncIterator[BatchResult]:
    for part in job.parts:
        async for result in adapter.results(call, part):
            yield result
