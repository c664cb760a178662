"""``SyncClient.embed``, ``embed_many`` and ``rerank``: ``Client``'s, blocking.

A base class of ``SyncClient`` (``llmbridge.sync``): it runs the async client's methods in
the client's portal through the two helpers ``SyncClient`` declares (``_blocking_call``,
``_blocking_iter``), so Ctrl-C cancels the work there as for chat. ``embed_many`` is a plain
iterator; leaving it early closes the async one in the portal.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Awaitable, Callable, Iterable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from .embedding_types import EmbeddingResponse, InputType, OutputType, RerankResponse
from .embeddings.calls import DEFAULT_MAX_CONCURRENCY
from .embeddings.wire import Input
from .model_refs import ModelRef

if TYPE_CHECKING:
    from .client import Client

__all__ = ["SyncEmbedMethods"]


class SyncEmbedMethods:
    """The blocking ``embed``, ``embed_many`` and ``rerank``."""

    if TYPE_CHECKING:
        _client: Client

        def _check_open(self) -> None: ...
        def _blocking_call(self, work: Callable[[], Awaitable[Any]]) -> Any: ...
        def _blocking_iter(self, items: Any) -> Iterator[Any]: ...

    def embed(
        self,
        model: ModelRef,
        inputs: str | Sequence[Input],
        *,
        dimensions: int | None = None,
        input_type: InputType | None = None,
        output_type: OutputType = "float",
        truncate: bool | None = None,
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
        **options: Any,
    ) -> EmbeddingResponse:
        """``Client.embed``, blocking."""
        self._check_open()
        work = partial(
            self._client.embed,
            model,
            inputs,
            dimensions=dimensions,
            input_type=input_type,
            output_type=output_type,
            truncate=truncate,
            max_concurrency=max_concurrency,
            **options,
        )
        response: EmbeddingResponse = self._blocking_call(work)
        return response

    def embed_many(
        self,
        model: ModelRef,
        inputs: Iterable[Input] | AsyncIterable[Input],
        *,
        dimensions: int | None = None,
        input_type: InputType | None = None,
        output_type: OutputType = "float",
        truncate: bool | None = None,
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
        **options: Any,
    ) -> Iterator[tuple[int, Any]]:
        """``Client.embed_many``, as a blocking iterator (``options``: ``timeout=``)."""
        self._check_open()
        results = self._client.embed_many(
            model,
            inputs,
            dimensions=dimensions,
            input_type=input_type,
            output_type=output_type,
            truncate=truncate,
            max_concurrency=max_concurrency,
            **options,
        )
        yield from self._blocking_iter(results)

    def rerank(
        self,
        model: ModelRef,
        query: str,
        documents: list[str],
        *,
        top_n: int | None = None,
        **options: Any,
    ) -> RerankResponse:
        """``Client.rerank``, blocking."""
        self._check_open()
        work = partial(self._client.rerank, model, query, documents, top_n=top_n, **options)
        response: RerankResponse = self._blocking_call(work)
        return response
