"""Cohere Embed: ``/v2/embed`` of Cohere's API, and the same body through Bedrock InvokeModel.

Rules:

* ``texts`` (or ``inputs``, each a ``content`` list, when an ``ImagePart`` is among them:
  an image as its URL or a ``data:`` URL), ``input_type`` (query → ``search_query``, document → ``search_document``,
  ``classification``, ``clustering``; none given: ``search_document``, as the API requires
  one), ``embedding_types`` (the one output type asked), ``output_dimension``, ``truncate``
  (True → ``END``, False → ``NONE``). On Bedrock the model is in the URL, not the body.
* The answer: ``embeddings`` by type (``embeddings_by_type``: ``{"float": [[...]]}``) or, from
  older models on Bedrock, a bare list (``embeddings_floats``). ``binary`` / ``ubinary`` are
  packed bits as Cohere sends them. Usage: ``meta.billed_units.input_tokens``; the request id
  is the answer's ``id``.
"""

from __future__ import annotations

from typing import Any

from ..embedding_types import EmbeddingResponse
from ..errors import MalformedStreamError
from ..providers.base import HttpRequest
from .options import EmbedOptions
from .vectors import vector_list
from .wire import Input, Target, object_of, usage_of

__all__ = ["INPUT_TYPES", "body_of", "decode", "encode"]

INPUT_TYPES = {
    "query": "search_query",
    "document": "search_document",
    "classification": "classification",
    "clustering": "clustering",
}


def _content(item: Input) -> dict[str, Any]:
    if isinstance(item, str):
        return {"type": "text", "text": item}
    url = item.url if item.url is not None else f"data:{item.media_type};base64,{item.base64_data}"
    return {"type": "image_url", "image_url": {"url": url}}


def body_of(inputs: list[Input], options: EmbedOptions) -> dict[str, Any]:
    """The Cohere Embed body (no ``model``) of ``inputs``: ``texts``, or, when an image is
    among them, ``inputs`` (Embed v4: one ``content`` list per input)."""
    given: dict[str, Any]
    if all(isinstance(item, str) for item in inputs):
        given = {"texts": inputs}
    else:
        given = {"inputs": [{"content": [_content(item)]} for item in inputs]}
    body: dict[str, Any] = {
        **given,
        "input_type": INPUT_TYPES[options.input_type or "document"],
        "embedding_types": [options.output_type],
    }
    if options.dimensions is not None:
        body["output_dimension"] = options.dimensions
    if options.truncate is not None:
        body["truncate"] = "END" if options.truncate else "NONE"
    return body


def encode(target: Target, model: str, inputs: list[Input], options: EmbedOptions) -> HttpRequest:
    """The ``/v2/embed`` request of ``inputs``."""
    body = {"model": model, **body_of(inputs, options)}
    return target.post("/v2/embed", body)


def decode(data: Any, *, target: Target, model: str, options: EmbedOptions) -> EmbeddingResponse:
    """Cohere's answer (by type, or a bare float list)."""
    provider = target.provider
    embeddings = data.get("embeddings") if isinstance(data, dict) else None
    if isinstance(embeddings, dict):
        embeddings = embeddings.get(options.output_type)
    if not isinstance(embeddings, list):
        raise MalformedStreamError(
            f"{provider}: no {options.output_type!r} embeddings in the answer: {str(data)[:200]!r}",
            provider=provider,
        )
    meta = object_of(data, "meta")
    billed = object_of(meta, "billed_units")
    return EmbeddingResponse(
        [vector_list(v, provider=provider) for v in embeddings],
        model=model,
        usage=usage_of(billed.get("input_tokens")),
        request_id=data.get("id") if isinstance(data.get("id"), str) else None,
        provider=provider,
        output_type=options.output_type,
    )
