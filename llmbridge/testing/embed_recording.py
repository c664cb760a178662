"""The plug-in's recording client, for embeddings: ``Recorded`` notes the recordings of each
``embed`` / ``embed_many`` / ``rerank`` call (``embed_cassettes`` pairs them and says the rules).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from ..client.async_client import Client
from ..embedding_types import EmbeddingResponse, RerankResponse
from ..model_refs import ModelRef
from ..providers.base import Provider
from .embed_cassettes import ModelCall

if TYPE_CHECKING:
    from .record import RecordingTransport

__all__ = ["Recorded"]


class Recorded(Client):
    """A ``Client`` noting each embedding and rerank call's recordings (see the rules)."""

    recorder: RecordingTransport | None = None
    calls: list[tuple[Provider, Any, Any]]

    def _note(self, operation: str, model: ModelRef, first: int) -> None:
        provider, name = self.resolve(model)
        end = len(self.recorder.recordings) if self.recorder is not None else first
        self.calls.append((provider, ModelCall(operation, name, first, end), None))

    def _count(self) -> int:
        return len(self.recorder.recordings) if self.recorder is not None else 0

    async def embed(self, model: ModelRef, inputs: Any, **options: Any) -> EmbeddingResponse:
        first = self._count()
        try:
            return await super().embed(model, inputs, **options)
        finally:
            self._note("embeddings", model, first)

    async def embed_many(
        self, model: ModelRef, inputs: Any, **options: Any
    ) -> AsyncIterator[tuple[int, Any]]:
        first = self._count()
        try:
            async for item in super().embed_many(model, inputs, **options):
                yield item
        finally:
            self._note("embeddings", model, first)

    async def rerank(
        self, model: ModelRef, query: str, documents: list[str], **options: Any
    ) -> RerankResponse:
        first = self._count()
        try:
            return await super().rerank(model, query, documents, **options)
        finally:
            self._note("rerank", model, first)
