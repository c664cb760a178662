"""Ollama's native ``/api/embed``: ``model``, ``input`` (a list), ``dimensions``, ``truncate``.

Rules: the answer is ``embeddings`` (one float list per input, in order) and
``prompt_eval_count`` (the input tokens). Ollama has no input types (a warning, not sent).
"""

from __future__ import annotations

from typing import Any

from ..embedding_types import EmbeddingResponse
from ..providers.base import HttpRequest
from .options import EmbedOptions
from .vectors import vector_list
from .wire import Input, Target, items_of, texts_of, usage_of

__all__ = ["decode", "encode"]


def encode(target: Target, model: str, inputs: list[Input], options: EmbedOptions) -> HttpRequest:
    """The ``/api/embed`` request of ``inputs``."""
    body: dict[str, Any] = {"model": model, "input": texts_of(inputs, target=target)}
    if options.dimensions is not None:
        body["dimensions"] = options.dimensions
    if options.truncate is not None:
        body["truncate"] = options.truncate
    return target.post("/api/embed", body)


def decode(data: Any, *, target: Target, model: str, options: EmbedOptions) -> EmbeddingResponse:
    """``embeddings`` in input order, ``prompt_eval_count`` as usage."""
    provider = target.provider
    vectors = [
        vector_list(v, provider=provider) for v in items_of(data, "embeddings", provider=provider)
    ]
    return EmbeddingResponse(
        vectors,
        model=str(data.get("model") or model),
        usage=usage_of(data.get("prompt_eval_count")),
        provider=provider,
        output_type=options.output_type,
    )
