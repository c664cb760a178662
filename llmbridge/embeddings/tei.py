"""Hugging Face text-embeddings-inference (``tei:``): its native ``/embed`` and ``/rerank``.

Rules:

* ``/embed``: ``inputs`` (a list of texts), ``truncate`` (True / False; None: the server's
  default), ``dimensions`` (Matryoshka models); the answer is a bare list of float lists, in
  input order. TEI has no input types (a warning, not sent). The server's batch limit is 32
  inputs by default (``--max-client-batch-size``): longer lists are split.
* Usage is the ``x-compute-tokens`` header TEI sets on every answer (the body has none).
* ``/rerank`` (``llmbridge.embeddings.rerank``): ``query`` and ``texts``; the answer is a
  bare list of ``{index, score}``.
"""

from __future__ import annotations

from typing import Any

from ..embedding_types import EmbeddingResponse
from ..errors import MalformedStreamError
from ..providers.base import HttpRequest
from ..stream.answer import Answer
from .options import EmbedOptions
from .vectors import Rows, vector_list
from .wire import Input, Target, texts_of, usage_of

__all__ = ["TOKENS_HEADER", "decode", "decode_answer", "encode"]

TOKENS_HEADER = "x-compute-tokens"


def encode(target: Target, model: str, inputs: list[Input], options: EmbedOptions) -> HttpRequest:
    """The ``/embed`` request of ``inputs`` (the model is the server's own: not sent)."""
    body: dict[str, Any] = {"inputs": texts_of(inputs, target=target)}
    if options.truncate is not None:
        body["truncate"] = options.truncate
    if options.dimensions is not None:
        body["dimensions"] = options.dimensions
    return target.post("/embed", body)


def decode(data: Any, *, target: Target, model: str, options: EmbedOptions) -> EmbeddingResponse:
    """The bare list of vectors."""
    provider = target.provider
    if not isinstance(data, list):
        raise MalformedStreamError(
            f"{provider}: expected a list of embeddings, got {str(data)[:200]!r}", provider=provider
        )
    return EmbeddingResponse(
        [vector_list(v, provider=provider) for v in data],
        model=model,
        provider=provider,
        output_type=options.output_type,
    )


def decode_answer(
    answer: Answer,
    *,
    target: Target,
    model: str,
    options: EmbedOptions,
    rows: Rows | None = None,
    start: int = 0,
) -> EmbeddingResponse:
    """``decode``, with the token count of the head."""
    response = decode(answer.json(), target=target, model=model, options=options)
    tokens = answer.headers.get(TOKENS_HEADER)
    if tokens is not None and tokens.isdigit():
        response.usage = usage_of(int(tokens))
    return response
