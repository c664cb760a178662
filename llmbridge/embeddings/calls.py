"""The IO of embedding and rerank calls: split, sent concurrently, merged in input order.

Rules:

* Every request goes through ``llmbridge.stream.fetch.fetch_answer`` (the one attempt loop:
  auth on every attempt, retries per piece, ``Retry-After``, typed errors through the
  provider's ``map_error``); nothing here retries. The call's ``deadline`` (``timeout=``) is
  handed to every piece: it bounds the whole call, pieces, retries and their waits (a retry
  that would wait past it is a ``TimeoutError`` at once).
* A list longer than the family's per-request limit (``options.SUPPORT``, and few enough
  inputs that the answer fits ``MAX_JSON_BODY``: ``codecs.max_inputs``) is split into pieces
  sent at most ``max_concurrency`` at a time. One failed piece fails the call: the
  first error is raised with ``partial``, an ``EmbeddingResponse`` holding the vectors that
  arrived and ``None`` for each input of a failed piece; the other pieces still finish.
* ``embed_many`` reads any iterable or async iterable a window at a time (``max_concurrency``
  pieces) and yields ``(index, vector)`` in input order: memory is bounded by the window.
  Its deadline is the same one call's: each window's requests run within it (a scope never
  spans a ``yield``), so the whole iteration ends with ``TimeoutError`` once it passes; each
  window is one telemetry span (a span cannot stay open across the caller's ``yield``s).
* Usage is summed over the pieces when every piece reports it; float32 bytes (base64 on the
  wire) stay bytes across the merge.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable
from typing import Any, TypeVar

import anyio

from ..embedding_types import EmbeddingResponse, RerankResponse
from ..errors import LLMBridgeError, UsageError
from ..providers.base import Provider
from ..response_data import Usage
from ..stream.deadline import Deadline, within
from ..stream.fetch import fetch_answer
from ..stream.retry import RetryPolicy
from . import codecs, rerank
from .options import EmbedOptions
from .targets import target_for
from .vectors import Rows
from .wire import Input, Target

__all__ = ["DEFAULT_MAX_CONCURRENCY", "embed", "embed_many", "rerank_call"]

T = TypeVar("T")

DEFAULT_MAX_CONCURRENCY = 4
"""Pieces of one split call in flight at once."""


def inputs_of(inputs: Any) -> list[Input]:
    """``inputs`` as a list: one string, or a list of strings / ``ImagePart``s."""
    if isinstance(inputs, str):
        return [inputs]
    if isinstance(inputs, (list, tuple)):
        return list(inputs)
    raise UsageError(
        f"inputs is a string or a list of strings / ImagePart (got {type(inputs).__name__}); "
        "for an iterator use embed_many"
    )


class _Call:
    """One embedding call's fixed parts: where, what options, how to send."""

    def __init__(
        self,
        *,
        http: Any,
        provider: Provider,
        model: str,
        options: EmbedOptions,
        retry: RetryPolicy,
        timeout: Any,
        max_concurrency: int,
        deadline: Deadline | None = None,
    ) -> None:
        if not isinstance(max_concurrency, int) or max_concurrency < 1:
            raise UsageError(f"max_concurrency is a positive int (got {max_concurrency!r})")
        self.http, self.provider, self.model = http, provider, model
        self.options, self.retry, self.timeout = options, retry, timeout
        self.deadline = deadline
        self.target: Target = target_for(provider, model)
        self.warnings = codecs.prepare(self.target, options)
        self.size = codecs.max_inputs(self.target, options)
        self.limit = anyio.CapacityLimiter(max_concurrency)
        self.window = max_concurrency

    async def piece(
        self, inputs: list[Input], rows: Rows | None = None, start: int = 0
    ) -> EmbeddingResponse:
        request = codecs.encode(self.target, self.model, inputs, self.options)
        async with self.limit:
            answer = await fetch_answer(
                http=self.http,
                provider=self.provider,
                request=request,
                retry=self.retry,
                timeout=self.timeout,
                deadline=self.deadline,
                during="embedding",
            )
        return codecs.decode(
            answer,
            target=self.target,
            model=self.model,
            options=self.options,
            count=len(inputs),
            rows=rows,
            start=start,
        )

    async def pieces(self, inputs: list[Input]) -> EmbeddingResponse:
        """``inputs`` split, sent concurrently, merged (``partial`` on a failure)."""
        chunks = [inputs[i : i + self.size] for i in range(0, len(inputs), self.size)]
        if len(chunks) == 1:
            return self.finish([await self.piece(chunks[0])])
        rows = Rows(len(inputs))  # the float32 rows of every piece, filled in place
        results: dict[int, EmbeddingResponse | LLMBridgeError] = {}

        async def run(i: int) -> None:
            try:
                results[i] = await self.piece(chunks[i], rows, i * self.size)
            except LLMBridgeError as exc:
                results[i] = exc

        async with anyio.create_task_group() as group:
            for i in range(len(chunks)):
                group.start_soon(run, i)
        done = [results[i] for i in range(len(chunks))]
        arrived = [r for r in done if isinstance(r, EmbeddingResponse)]
        failed = next((r for r in done if isinstance(r, LLMBridgeError)), None)
        if failed is None:
            return self.finish(arrived, rows)
        vectors: list[Any] = []
        for chunk, result in zip(chunks, done, strict=True):
            if isinstance(result, EmbeddingResponse):
                vectors.extend(result.vectors)
            else:
                vectors.extend([None] * len(chunk))
        failed.partial = EmbeddingResponse(
            vectors,
            model=self.model,
            warnings=self.warnings,
            provider=self.provider.name,
            output_type=self.options.output_type,
        )
        raise failed

    async def within(self, work: Awaitable[T]) -> T:
        """``work`` inside the call's deadline (none: as is): the requests in flight are
        cancelled when it passes (``TimeoutError``)."""
        if self.deadline is None:
            return await work
        return await within(self.deadline, work, provider=self.provider.name, during="embedding")

    def finish(self, parts: list[EmbeddingResponse], rows: Rows | None = None) -> EmbeddingResponse:
        """One response of ``parts`` (in input order), the call's warnings on it (their float32
        bytes: ``rows``' buffer when each part is a view of it, else joined)."""
        first = parts[0]
        counts = [p.usage.input_tokens for p in parts if p.usage is not None]
        usage = Usage(input_tokens=sum(counts)) if len(counts) == len(parts) else None
        common: dict[str, Any] = {
            "model": first.model,
            "usage": usage,
            "request_id": first.request_id,
            "warnings": self.warnings,
            "provider": self.provider.name,
            "output_type": self.options.output_type,
        }
        raws = [p._raw for p in parts]
        blobs = [raw for raw in raws if raw is not None]
        if len(blobs) == len(raws) and first.dimensions:
            joined = _joined(blobs, rows)
            return EmbeddingResponse(raw=joined, dimensions=first.dimensions, **common)
        return EmbeddingResponse([v for p in parts for v in p.vectors], **common)


def _joined(
    blobs: list[bytes | bytearray | memoryview], rows: Rows | None
) -> bytes | bytearray | memoryview:
    """The float32 bytes of every piece: ``rows``' buffer when each is a view of it (filled in
    place), the one piece's, or the pieces' joined."""
    buffer = rows.buffer if rows is not None else None
    if buffer is not None and all(isinstance(b, memoryview) and b.obj is buffer for b in blobs):
        return buffer
    return blobs[0] if len(blobs) == 1 else bytearray().join(blobs)


async def embed(*, inputs: Any, **call: Any) -> EmbeddingResponse:
    """One ``client.embed`` call (``call``: ``_Call``'s arguments)."""
    items = inputs_of(inputs)
    work = _Call(**call)
    if not items:
        return EmbeddingResponse(
            [],
            model=work.model,
            warnings=work.warnings,
            provider=work.provider.name,
            output_type=work.options.output_type,
        )
    return await work.pieces(items)


async def embed_many(
    *,
    inputs: Iterable[Input] | AsyncIterable[Input],
    traced: Callable[[Awaitable[EmbeddingResponse]], Awaitable[EmbeddingResponse]] | None = None,
    **call: Any,
) -> AsyncIterator[tuple[int, Any]]:
    """``(index, vector)`` for every input, in input order, a window of pieces at a time
    (``traced``: what wraps each window's requests, e.g. in a telemetry span)."""
    work = _Call(**call)
    span = work.size * work.window
    index = 0
    async for batch in _batches(inputs, span):
        pieces = work.pieces(batch)
        response = await work.within(traced(pieces) if traced is not None else pieces)
        for vector in response.vectors:
            yield index, vector
            index += 1


async def _batches(
    inputs: Iterable[Input] | AsyncIterable[Input], size: int
) -> AsyncIterator[list[Input]]:
    batch: list[Input] = []
    if isinstance(inputs, str):
        inputs = [inputs]
    if isinstance(inputs, AsyncIterable):
        async for item in inputs:
            batch.append(item)
            if len(batch) == size:
                yield batch
                batch = []
    else:
        for item in inputs:
            batch.append(item)
            if len(batch) == size:
                yield batch
                batch = []
    if batch:
        yield batch


async def rerank_call(
    *,
    http: Any,
    provider: Provider,
    model: str,
    query: str,
    documents: list[str],
    top_n: int | None,
    retry: RetryPolicy,
    timeout: Any,
    deadline: Deadline | None = None,
) -> RerankResponse:
    """One ``client.rerank`` call."""
    if not isinstance(query, str):
        raise UsageError(f"query is a string (got {type(query).__name__})")
    if isinstance(documents, str) or not all(isinstance(d, str) for d in documents):
        raise UsageError("documents is a list of strings")
    if top_n is not None and (isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 1):
        raise UsageError(f"top_n is a positive int or None (got {top_n!r})")
    target = target_for(provider, model)
    request = rerank.encode(target, model, query, list(documents), top_n)
    answer = await fetch_answer(
        http=http,
        provider=provider,
        request=request,
        retry=retry,
        timeout=timeout,
        deadline=deadline,
        during="reranking",
    )
    response = rerank.decode(
        answer.json(), target=target, model=model, documents=list(documents), top_n=top_n
    )
    if response.request_id is None:
        response.request_id = answer.request_id
    if response.usage is None:
        response.usage = codecs.usage_of_head(answer.headers)
    return response
