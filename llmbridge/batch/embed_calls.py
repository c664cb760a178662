"""Embedding batches (``client.batch_embed``): the ``/v1/embeddings`` lines of OpenAI's and
Azure's Batch API, each request's body built and each result's body read by
``llmbridge.embeddings``, as ``client.embed`` builds and reads them.

Rules: an ``EmbedBatchCall`` is a ``BatchCall`` whose ``url`` is the model's embeddings URL
(so the adapter's lines name ``/v1/embeddings``, Azure's ``/embeddings``), whose ``prepared``
encodes one request's inputs (``embeddings.codecs.prepare`` checks the options once per job,
``encode`` per request; a request holds at most ``max_inputs`` of the family: one
embeddings request each) and whose ``decode`` gives an ``EmbeddingResponse``. A job is an
embeddings job when its parts' ``endpoint`` ends in ``/embeddings`` (the provider says so on
every status, so a job reopened by id is read right). Only OpenAI and Azure take them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..embedding_types import EmbeddingResponse
from ..embeddings import codecs
from ..embeddings.calls import inputs_of
from ..embeddings.openai_compatible import decode as decode_embeddings
from ..embeddings.options import EmbedOptions
from ..embeddings.targets import target_for
from ..embeddings.wire import Target
from ..errors import UnsupportedFeatureError, UsageError
from ..providers.adapter import prepared_of
from ..providers.base import Provider
from ..providers.prepared import Prepared
from ..stream.call import CallConfig
from .adapter import BatchAdapter
from .calls import BatchCall, probe_request
from .openai import AzureBatches, OpenAIBatches
from .types import BatchJob

__all__ = ["EmbedBatchCall", "embeddings_adapter", "is_embeddings"]


def _no_decoder() -> Any:  # pragma: no cover - a batch line is never sent on its own
    raise AssertionError("a batch line has no decoder")


def embeddings_adapter(adapter: BatchAdapter, provider: Provider) -> BatchAdapter:
    """``adapter`` when it takes embeddings batches (OpenAI's, Azure's), else refused."""
    if type(adapter) not in (OpenAIBatches, AzureBatches):
        raise UnsupportedFeatureError(
            f"provider {provider.name!r}: embeddings batches are OpenAI's and Azure's "
            "(client.batch_embed with an openai: or azure: model)",
            provider=provider.name,
        )
    return adapter


def is_embeddings(job: BatchJob[Any]) -> bool:
    """Whether ``job``'s parts run ``/embeddings`` requests (module rules)."""
    return any(str(p.data.get("endpoint") or "").endswith("/embeddings") for p in job.parts)


@dataclass(frozen=True, slots=True)
class EmbedBatchCall(BatchCall):
    """A ``BatchCall`` for embeddings lines (module rules)."""

    target: Target | None = field(default=None, repr=False)
    options: EmbedOptions = field(default_factory=EmbedOptions)

    @classmethod
    def embedding(
        cls, provider: Provider, model: str, config: CallConfig, options: EmbedOptions
    ) -> EmbedBatchCall:
        template = probe_request(model)
        target = target_for(provider, model)
        codecs.prepare(target, options)  # the options' checks, once per job
        probe = prepared_of(provider, template)
        return cls(provider, model, config, probe, template, target=target, options=options)

    def _target(self) -> Target:
        assert self.target is not None  # made by ``embedding``
        return self.target

    @property
    def url(self) -> str:
        target = self._target()
        return f"{target.prefix}/embeddings{target.query}"

    def prepared(self, request: Any) -> Prepared:
        """One request's inputs (what ``build`` gave) as its embeddings request."""
        inputs = inputs_of(request)
        target = self._target()
        limit = codecs.max_inputs(target, self.options)
        if not inputs or len(inputs) > limit:
            raise UsageError(
                f"a batch_embed request holds 1 to {limit:,} inputs (got {len(inputs):,})"
            )
        http = codecs.encode(target, self.model, inputs, self.options)
        return Prepared(http=http, new_decoder=_no_decoder, framing="json")

    def decode(self, body: Any) -> Any:
        """One result's body as the ``EmbeddingResponse`` ``client.embed`` gives."""
        if not isinstance(body, Mapping):
            body = {}
        response: EmbeddingResponse = decode_embeddings(
            body, target=self._target(), model=self.model, options=self.options
        )
        return response


def build_inputs(model: str, messages: Any, **options: Any) -> Any:
    """The ``build`` of an embeddings job: a request's inputs as they are (no options)."""
    options.pop("stream", None)
    if options:
        raise UsageError(
            f"a batch_embed request takes no options ({sorted(options)}): pass dimensions= "
            "and the others to batch_embed"
        )
    return messages
