"""The plug-in's recording client, for batch jobs: ``BatchRecorded`` notes the recordings of
each ``batch`` / ``batch_embed`` / ``batch_status`` (so each poll of ``batch_wait``) / ``batch_cancel`` /
``batch_results`` call as one call of operation ``batch`` (``embed_cassettes`` pairs them with
the recordings and saves each request as a fixture folder, as for embeddings).

Rules: a replayed lifecycle is the recorded requests in their order (the job ids, file ids
and result files come from the recording, so they match); the plug-in's replaying client
collapses the poll intervals (``collapsed_sleep``: ``batch_wait`` waits through the client's
one ``sleep``), so a replay of a job that was polled for an hour takes no time.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio.lowlevel

from ..batch.types import BatchJob, BatchResult, ResponseT
from ..embedding_types import EmbeddingResponse
from ..model_refs import ModelRef
from .embed_recording import Recorded

__all__ = ["BATCH", "BatchRecorded", "collapsed_sleep"]

BATCH = "batch"
"""The ``operation`` of a batch call's fixtures."""


async def collapsed_sleep(seconds: float) -> None:
    """A replay's poll interval: no wait (a checkpoint, so cancellation still lands)."""
    await anyio.lowlevel.checkpoint()


class BatchRecorded(Recorded):
    """A ``Client`` noting each batch call's recordings (see the rules)."""

    def _job_ref(self, job: Any) -> ModelRef:
        return f"{job.provider}:{job.model}" if isinstance(job, BatchJob) else str(job)

    async def batch(self, model: ModelRef, requests: Any, **options: Any) -> BatchJob:
        first = self._count()
        try:
            return await super().batch(model, requests, **options)
        finally:
            self._note(BATCH, model, first)

    async def batch_embed(
        self, model: ModelRef, requests: Any, **options: Any
    ) -> BatchJob[EmbeddingResponse]:
        first = self._count()
        try:
            return await super().batch_embed(model, requests, **options)
        finally:
            self._note(BATCH, model, first)

    async def batch_status(self, job: BatchJob[ResponseT]) -> BatchJob[ResponseT]:
        first = self._count()
        try:
            return await super().batch_status(job)
        finally:
            self._note(BATCH, self._job_ref(job), first)

    async def batch_cancel(self, job: BatchJob[ResponseT]) -> BatchJob[ResponseT]:
        first = self._count()
        try:
            return await super().batch_cancel(job)
        finally:
            self._note(BATCH, self._job_ref(job), first)

    async def batch_results(
        self, job: BatchJob[ResponseT], *, response_format: Any = None
    ) -> AsyncIterator[BatchResult[ResponseT]]:
        first = self._count()
        try:
            async for result in super().batch_results(job, response_format=response_format):
                yield result
        finally:
            self._note(BATCH, self._job_ref(job), first)
