"""``Client.embed``, ``Client.embed_many`` and ``Client.rerank``: the model calls of retrieval.

A base class of ``Client`` (``llmbridge.client.async_client``), split from it by
responsibility; it uses only what the client declares below. Model strings use the chat
prefixes (``openai:``, ``cohere:``, ``bedrock:``…) plus ``voyage:``, ``jina:`` and ``tei:``;
the call goes through the client's pool, retry policy and default ``timeout`` like chat
(``llmbridge.embeddings.calls`` holds the IO).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ..embedding_types import EmbeddingResponse, InputType, OutputType, RerankResponse
from ..embeddings.calls import DEFAULT_MAX_CONCURRENCY, embed, embed_many, rerank_call
from ..embeddings.options import EmbedOptions
from ..embeddings.wire import Input
from ..model_refs import ModelRef
from ..providers.base import Provider
from ..stream.call import CallConfig
from ..stream.deadline import Deadline, within
from .call_options import UNSET

if TYPE_CHECKING:
    from ..stream import RetryPolicy
    from ..stream.clients import HttpPool
    from ..telemetry import Telemetry

__all__ = ["EmbedMethods"]

T = TypeVar("T")


class EmbedMethods:
    """``embed``, ``embed_many`` and ``rerank`` of ``Client``."""

    if TYPE_CHECKING:
        _http: HttpPool
        _defaults: CallConfig
        retry: RetryPolicy
        telemetry: Telemetry | None

        def _check_open(self) -> None: ...
        def resolve(self, model: ModelRef) -> tuple[Provider, str]: ...
        def _deadline(self, timeout: Any) -> Deadline | None: ...

    def _embed_call(
        self,
        model: ModelRef,
        options: EmbedOptions,
        max_concurrency: int,
        deadline: Deadline | None = None,
    ) -> dict[str, Any]:
        self._check_open()
        provider, model_name = self.resolve(model)
        return {
            "http": self._http,
            "provider": provider,
            "model": model_name,
            "options": options,
            "retry": self.retry,
            "timeout": self._defaults.timeout,
            "max_concurrency": max_concurrency,
            "deadline": deadline,
        }

    async def embed(
        self,
        model: ModelRef,
        inputs: str | Sequence[Input],
        *,
        dimensions: int | None = None,
        input_type: InputType | None = None,
        output_type: OutputType = "float",
        truncate: bool | None = None,
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
        timeout: Any = UNSET,
    ) -> EmbeddingResponse:
        """One vector per input, in input order (docs/embeddings.md). ``inputs``: a string,
        or a list of strings / ``ImagePart``s; a list longer than the provider takes in one
        request is split and sent ``max_concurrency`` pieces at a time. ``timeout``: the
        call's total seconds (retries and pieces included; not given: the client's)."""
        options = EmbedOptions(dimensions, input_type, output_type, truncate)
        deadline = self._deadline(timeout)
        call = self._embed_call(model, options, max_concurrency, deadline)
        work = self._traced(
            "embeddings",
            call["provider"],
            model_name=call["model"],
            work=embed(inputs=inputs, **call),
        )
        return await self._within(deadline, work, call["provider"], "embedding")

    async def embed_many(
        self,
        model: ModelRef,
        inputs: Iterable[Input] | AsyncIterable[Input],
        *,
        dimensions: int | None = None,
        input_type: InputType | None = None,
        output_type: OutputType = "float",
        truncate: bool | None = None,
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
        timeout: Any = UNSET,
    ) -> AsyncIterator[tuple[int, Any]]:
        """``(index, vector)`` for every input of ``inputs`` (any iterable or async
        iterable), in input order, with at most ``max_concurrency`` requests' inputs held.
        ``timeout``: the call's total seconds, from its first request to its last vector
        (every piece, retries and waits included; not given: the client's); the time the
        caller spends between two vectors counts too. With telemetry on, each window of
        requests is one ``embeddings`` span."""
        options = EmbedOptions(dimensions, input_type, output_type, truncate)
        deadline = self._deadline(timeout)
        call = self._embed_call(model, options, max_concurrency, deadline)
        provider, model_name = call["provider"], call["model"]

        def traced(work: Awaitable[EmbeddingResponse]) -> Awaitable[EmbeddingResponse]:
            return self._traced("embeddings", provider, model_name=model_name, work=work)

        async for item in embed_many(inputs=inputs, traced=traced, **call):
            yield item

    async def rerank(
        self,
        model: ModelRef,
        query: str,
        documents: list[str],
        *,
        top_n: int | None = None,
        timeout: Any = UNSET,
    ) -> RerankResponse:
        """``documents`` ranked against ``query``: ``results`` highest score first, each its
        ``index`` in ``documents``, its ``score`` and the document; ``top_n``: the best only."""
        self._check_open()
        provider, model_name = self.resolve(model)
        deadline = self._deadline(timeout)
        work = rerank_call(
            http=self._http,
            provider=provider,
            model=model_name,
            query=query,
            documents=documents,
            top_n=top_n,
            retry=self.retry,
            timeout=self._defaults.timeout,
            deadline=deadline,
        )
        traced = self._traced("rerank", provider, model_name=model_name, work=work)
        return await self._within(deadline, traced, provider, "reranking")

    def _traced(
        self, operation: str, provider: Provider, *, model_name: str, work: Awaitable[T]
    ) -> Awaitable[T]:
        """``work`` inside a GenAI span when the client has telemetry on."""
        if self.telemetry is None:
            return work
        from ..telemetry.embeddings import traced_call

        return traced_call(
            self.telemetry, operation=operation, provider=provider.name, model=model_name, work=work
        )

    async def _within(
        self, deadline: Deadline | None, work: Awaitable[T], provider: Provider, during: str
    ) -> T:
        """``work`` within the call's ``deadline`` (also handed to each request it sends, so a
        retry that would wait past it ends the call at once)."""
        if deadline is None:
            return await work
        return await within(deadline, work, provider=provider.name, during=during)
