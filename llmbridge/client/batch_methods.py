"""``Client.batch`` and its lifecycle (``batch_job``, ``batch_status``, ``batch_wait``,
``batch_cancel``, ``batch_results``): the providers' own batch engines (docs/batch.md).

A base class of ``Client`` (``llmbridge.client.async_client``), split from it by
responsibility; it uses only what the client declares below. Requests are built as
``complete()`` builds them (``Client.build_request``) and prepared by the provider; the IO is
``llmbridge.batch``'s, through the client's pool, retry policy and default ``timeout``, inside
a telemetry span per submit, poll and results file when telemetry is on.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar, cast

from ..batch import engine
from ..batch.adapter import BatchAdapter, adapter_for
from ..batch.calls import BatchCall
from ..batch.embed_calls import EmbedBatchCall, build_inputs, embeddings_adapter, is_embeddings
from ..batch.engine import Progress, Requests
from ..batch.parsing import Formats, noted, parsed
from ..batch.types import BatchJob, BatchPart, BatchResult, ResponseT
from ..embedding_types import EmbeddingResponse, InputType, OutputType
from ..embeddings.options import EmbedOptions
from ..errors import UsageError
from ..model_refs import ModelRef
from ..providers.base import Provider

if TYPE_CHECKING:
    from ..stream.call import CallConfig
    from ..stream.deadline import Deadline

__all__ = ["BatchMethods"]

T = TypeVar("T")


def _plain(job: BatchJob[Any]) -> BatchJob:
    """``job`` as the engine takes it (its response type is the caller's alone)."""
    return cast(BatchJob, job)


class BatchMethods:
    """The batch methods of ``Client``."""

    if TYPE_CHECKING:
        _defaults: CallConfig

        def _check_open(self) -> None: ...
        def resolve(self, model: ModelRef) -> tuple[Provider, str]: ...
        def _deadline(self, timeout: Any) -> Deadline | None: ...
        def _config(self, call: Any, deadline: Deadline | None) -> CallConfig: ...

        build_request: Any

        def _traced(
            self, operation: str, provider: Provider, *, model_name: str, work: Awaitable[T]
        ) -> Awaitable[T]: ...

    def _batch_call(self, model: ModelRef) -> tuple[BatchCall, BatchAdapter]:
        self._check_open()
        provider, model_name = self.resolve(model)
        adapter = adapter_for(provider)
        config = self._config(None, None)
        return BatchCall.of(provider, model_name, config), adapter

    def _job_call(self, job: BatchJob[Any]) -> tuple[BatchCall, BatchAdapter]:
        if not isinstance(job, BatchJob):
            raise UsageError(f"expected an lb.BatchJob, not {type(job).__name__}")
        return self._batch_call(f"{job.provider}:{job.model}")

    def _embed_batch_call(
        self, model: ModelRef, options: EmbedOptions | None = None
    ) -> tuple[EmbedBatchCall, BatchAdapter]:
        call, adapter = self._batch_call(model)
        adapter = embeddings_adapter(adapter, call.provider)
        embed = EmbedBatchCall.embedding(
            call.provider, call.model, call.config, options or EmbedOptions()
        )
        return embed, adapter

    async def batch(
        self,
        model: ModelRef,
        requests: Requests,
        *,
        max_requests_per_job: int | None = None,
        **options: Any,
    ) -> BatchJob:
        """Submit ``requests`` (``lb.BatchRequest``s, a list or any (async) iterable) as a batch
        job of ``model``'s provider and return its handle. A submission over the provider's
        limits (or ``max_requests_per_job``) becomes several jobs behind one handle.
        ``options``: the provider's own (``metadata=``; Gemini's ``input_file=``; Bedrock's
        ``role_arn=``, ``s3_uri=``). The handle remembers each request's ``response_format``
        (in this process) so that ``batch_results`` fills in ``parsed``."""
        call, adapter = self._batch_call(model)
        formats = Formats()
        work = engine.submit(
            call,
            adapter,
            noted(requests, formats),
            self.build_request,
            options,
            max_requests=max_requests_per_job,
        )
        job = await self._traced("batch_submit", call.provider, model_name=call.model, work=work)
        return replace(job, formats=formats) if formats else job

    async def batch_embed(
        self,
        model: ModelRef,
        requests: Requests,
        *,
        dimensions: int | None = None,
        input_type: InputType | None = None,
        output_type: OutputType = "float",
        truncate: bool | None = None,
        max_requests_per_job: int | None = None,
        **options: Any,
    ) -> BatchJob[EmbeddingResponse]:
        """Submit embeddings requests as a batch job (OpenAI and Azure: ``/v1/embeddings``
        lines): each ``lb.BatchRequest(id, inputs)`` holds a string or a list of strings to
        embed; ``batch_results`` gives each id's ``EmbeddingResponse`` (docs/batch.md). The
        options are ``embed()``'s, for every request."""
        embed = EmbedOptions(dimensions, input_type, output_type, truncate)
        call, adapter = self._embed_batch_call(model, embed)
        work = engine.submit(
            call, adapter, requests, build_inputs, options, max_requests=max_requests_per_job
        )
        job = await self._traced("batch_submit", call.provider, model_name=call.model, work=work)
        embeddings: BatchJob[EmbeddingResponse] = BatchJob(job.provider, job.model, job.parts)
        return embeddings

    def batch_job(self, model: ModelRef, job_id: str) -> BatchJob:
        """A handle on the job ``job_id`` (a ``BatchJob.id``) of ``model``'s provider, made in
        another process; ``batch_status`` fills in its status."""
        call, _ = self._batch_call(model)
        ids = [part for part in str(job_id).split(",") if part]
        if not ids:
            raise UsageError(f"not a batch job id: {job_id!r}")
        parts = tuple(BatchPart(id=i, status="queued", raw_status="") for i in ids)
        return BatchJob(provider=call.provider.name, model=call.model, parts=parts)

    async def batch_status(self, job: BatchJob[ResponseT]) -> BatchJob[ResponseT]:
        """The job as its provider sees it now."""
        call, adapter = self._job_call(job)
        work = engine.status(call, adapter, _plain(job))
        now = await self._traced("batch_poll", call.provider, model_name=call.model, work=work)
        return job.with_parts(now.parts)

    async def batch_wait(
        self,
        job: BatchJob[ResponseT],
        *,
        poll_interval: float = 10.0,
        max_interval: float = 300.0,
        on_progress: Callable[[BatchJob[ResponseT]], Awaitable[None] | None] | None = None,
    ) -> BatchJob[ResponseT]:
        """Poll until the job ended (completed, failed, cancelled or expired): every
        ``poll_interval`` seconds at first, backing off to ``max_interval`` while nothing moves;
        ``on_progress(job)`` (sync or async) hears each status."""
        self._job_call(job)  # refuses what is no job before the first poll
        done = await engine.wait(
            self.batch_status,
            _plain(job),
            poll_interval=poll_interval,
            max_interval=max_interval,
            on_progress=cast("Progress | None", on_progress),
            sleep=self._defaults.sleep,
        )
        return job.with_parts(done.parts)

    async def batch_cancel(self, job: BatchJob[ResponseT]) -> BatchJob[ResponseT]:
        """Ask the provider to cancel the job; the updated handle (``cancelling`` at first)."""
        call, adapter = self._job_call(job)
        return job.with_parts((await engine.cancel(call, adapter, _plain(job))).parts)

    async def batch_results(
        self, job: BatchJob[ResponseT], *, response_format: Any = None
    ) -> AsyncIterator[BatchResult[ResponseT]]:
        """Every request's ``BatchResult`` (any order), read line by line: ``succeeded`` with
        its ``ChatResponse``, or ``errored`` / ``cancelled`` / ``expired`` with a typed error.
        A request submitted with a ``response_format`` (or every one, given
        ``response_format=`` here: for a job reopened in another process) has ``parsed`` set
        as ``complete()`` sets it; a reply that does not validate is ``errored`` with the
        ``StructuredOutputError``. An embeddings job's results hold ``EmbeddingResponse``s."""
        call, adapter = self._job_call(job)
        formats = job.formats
        if response_format is not None:  # every request's, as the app says
            formats = Formats()
            formats.add("", response_format)
        if not job.done:
            job = job.with_parts((await engine.status(call, adapter, _plain(job))).parts)
        if is_embeddings(job):
            call, adapter = self._embed_batch_call(f"{job.provider}:{job.model}")
            formats = None
        name = call.provider.name
        async for result in engine.results(call, adapter, _plain(job)):
            if formats is not None:
                result = parsed(result, formats.of(result.id), provider=name)
            yield cast("BatchResult[ResponseT]", result)  # chat's or (embeddings) its own
