"""``SyncClient.batch`` and its lifecycle: ``Client``'s batch methods, blocking.

A base class of ``SyncClient`` (``llmbridge.sync``): it runs the async client's methods in the
client's portal through the helpers ``SyncClient`` declares (``_blocking_call``,
``_blocking_iter``), so Ctrl-C cancels the work there as for chat. ``batch_results`` is a plain
iterator; leaving it early closes the async one in the portal. ``batch_job`` needs no IO.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any

from .batch.types import BatchJob, BatchRequest, BatchResult, ResponseT
from .embedding_types import EmbeddingResponse
from .model_refs import ModelRef

if TYPE_CHECKING:
    from .client import Client

__all__ = ["SyncBatchMethods"]


class SyncBatchMethods:
    """The blocking ``batch``, ``batch_job``, ``batch_status``, ``batch_wait``,
    ``batch_cancel`` and ``batch_results``."""

    if TYPE_CHECKING:
        _client: Client

        def _check_open(self) -> None: ...
        def _blocking_call(self, work: Callable[[], Awaitable[Any]]) -> Any: ...
        def _blocking_iter(self, items: Any) -> Iterator[Any]: ...

    def batch(self, model: ModelRef, requests: Iterable[BatchRequest], **options: Any) -> BatchJob:
        """``Client.batch``, blocking (``requests``: any iterable, read once)."""
        self._check_open()
        job: BatchJob = self._blocking_call(partial(self._client.batch, model, requests, **options))
        return job

    def batch_embed(
        self, model: ModelRef, requests: Iterable[BatchRequest], **options: Any
    ) -> BatchJob[EmbeddingResponse]:
        """``Client.batch_embed``, blocking."""
        self._check_open()
        work = partial(self._client.batch_embed, model, requests, **options)
        job: BatchJob[EmbeddingResponse] = self._blocking_call(work)
        return job

    def batch_job(self, model: ModelRef, job_id: str) -> BatchJob:
        """``Client.batch_job``: a handle on a job made elsewhere."""
        self._check_open()
        return self._client.batch_job(model, job_id)

    def batch_status(self, job: BatchJob[ResponseT]) -> BatchJob[ResponseT]:
        """``Client.batch_status``, blocking."""
        self._check_open()
        updated: BatchJob[ResponseT] = self._blocking_call(partial(self._client.batch_status, job))
        return updated

    def batch_wait(
        self,
        job: BatchJob[ResponseT],
        *,
        poll_interval: float = 10.0,
        max_interval: float = 300.0,
        on_progress: Callable[[BatchJob[ResponseT]], Any] | None = None,
    ) -> BatchJob[ResponseT]:
        """``Client.batch_wait``, blocking (``on_progress`` runs in the client's loop thread)."""
        self._check_open()
        work = partial(
            self._client.batch_wait,
            job,
            poll_interval=poll_interval,
            max_interval=max_interval,
            on_progress=on_progress,
        )
        updated: BatchJob[ResponseT] = self._blocking_call(work)
        return updated

    def batch_cancel(self, job: BatchJob[ResponseT]) -> BatchJob[ResponseT]:
        """``Client.batch_cancel``, blocking."""
        self._check_open()
        updated: BatchJob[ResponseT] = self._blocking_call(partial(self._client.batch_cancel, job))
        return updated

    def batch_results(
        self, job: BatchJob[ResponseT], *, response_format: Any = None
    ) -> Iterator[BatchResult[ResponseT]]:
        """``Client.batch_results``, as a blocking iterator."""
        self._check_open()
        results = self._client.batch_results(job, response_format=response_format)
        yield from self._blocking_iter(results)
