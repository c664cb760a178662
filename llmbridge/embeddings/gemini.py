"""Gemini embeddings: ``batchEmbedContents`` of the Gemini API, ``:predict`` on Vertex AI.

Rules:

* Gemini API: one ``batchEmbedContents`` call for any number of inputs (up to 100), each
  request naming the model (``models/…``), its ``content`` (a text part, or an image as
  ``inlineData``), ``taskType`` (query → ``RETRIEVAL_QUERY``, document →
  ``RETRIEVAL_DOCUMENT``, ``CLASSIFICATION``, ``CLUSTERING``) and ``outputDimensionality``.
  The answer: ``embeddings[].values`` (``embedding.values`` from ``embedContent``); it
  reports no token count.
* Vertex AI (``vertex``), as google-genai sends it: a Gemini model (``gemini`` or ``maas`` in
  its id: ``gemini-embedding-001``, ``gemini-embedding-2…``) through ``:batchEmbedContents``
  (``requests[]``, each a ``content`` with ``role: "user"`` and its one part, a text or an
  image as ``inlineData``, and ``embedContentConfig``: ``taskType``, ``outputDimensionality``,
  ``autoTruncate``); the answer: ``embeddings[].values``, tokens from
  ``usageMetadata.promptTokenCount``. Any other model (``text-embedding-005``,
  ``text-multilingual-embedding-002``) through ``:predict`` with ``instances[]``
  (``content``, ``task_type``) and ``parameters`` (``outputDimensionality``,
  ``autoTruncate``); the answer: ``predictions[].embeddings.values``, tokens from
  ``statistics.token_count``. Those models embed texts only: an image is a ``UsageError``
  naming the models that take one.
"""

from __future__ import annotations

from typing import Any

from ..embedding_types import EmbeddingResponse
from ..errors import MalformedStreamError, UsageError
from ..parts import ImagePart
from ..providers.base import HttpRequest
from ..response_data import Usage
from .options import EmbedOptions
from .vectors import vector_list
from .wire import Input, Target, items_of, object_of, texts_of, usage_of

__all__ = ["decode", "encode"]

TASK_TYPES = {
    "query": "RETRIEVAL_QUERY",
    "document": "RETRIEVAL_DOCUMENT",
    "classification": "CLASSIFICATION",
    "clustering": "CLUSTERING",
}


def _part(item: Input, *, target: Target) -> dict[str, Any]:
    if isinstance(item, str):
        return {"text": item}
    if isinstance(item, ImagePart) and item.data is not None:
        return {"inlineData": {"mimeType": item.media_type, "data": item.base64_data}}
    raise UsageError(
        f"{target.provider}: an image to embed is given as bytes (ImagePart(data=..., "
        "media_type=...)); a URL is not fetched for it"
    )


def encode(target: Target, model: str, inputs: list[Input], options: EmbedOptions) -> HttpRequest:
    """The ``batchEmbedContents`` (Gemini API) or ``:predict`` (Vertex) request."""
    if target.family == "vertex":
        if _is_gemini(model):
            return _vertex_batch(target, inputs, options)
        if any(isinstance(item, ImagePart) for item in inputs):
            raise UsageError(
                f"{target.provider}: {model} embeds texts only; on Vertex AI the Gemini "
                "embedding models (gemini-embedding-2...) take images, and so do cohere "
                "(embed-v4.0), voyage (multimodal models) and bedrock (Cohere Embed v4, Nova)"
            )
        return _vertex(target, texts_of(inputs, target=target), options)
    requests = []
    for item in inputs:
        request: dict[str, Any] = {
            "model": target.model_path,
            "content": {"parts": [_part(item, target=target)]},
        }
        if options.input_type is not None:
            request["taskType"] = TASK_TYPES[options.input_type]
        if options.dimensions is not None:
            request["outputDimensionality"] = options.dimensions
        requests.append(request)
    return target.post(":batchEmbedContents", {"requests": requests})


def _is_gemini(model: str) -> bool:
    """Whether Vertex serves ``model``'s embeddings by ``embedContent`` (google-genai's test)."""
    name = model.rsplit("/", 1)[-1]
    return "gemini" in name or "maas" in name


def _vertex_batch(target: Target, inputs: list[Input], options: EmbedOptions) -> HttpRequest:
    config: dict[str, Any] = {}
    if options.input_type is not None:
        config["taskType"] = TASK_TYPES[options.input_type]
    if options.dimensions is not None:
        config["outputDimensionality"] = options.dimensions
    if options.truncate is not None:
        config["autoTruncate"] = options.truncate
    requests = []
    for item in inputs:
        request: dict[str, Any] = {
            "content": {"parts": [_part(item, target=target)], "role": "user"}
        }
        if config:
            request["embedContentConfig"] = config
        requests.append(request)
    return target.post(":batchEmbedContents", {"requests": requests})


def _vertex(target: Target, texts: list[str], options: EmbedOptions) -> HttpRequest:
    instances: list[dict[str, Any]] = []
    for text in texts:
        instance: dict[str, Any] = {"content": text}
        if options.input_type is not None:
            instance["task_type"] = TASK_TYPES[options.input_type]
        instances.append(instance)
    body: dict[str, Any] = {"instances": instances}
    parameters: dict[str, Any] = {}
    if options.dimensions is not None:
        parameters["outputDimensionality"] = options.dimensions
    if options.truncate is not None:
        parameters["autoTruncate"] = options.truncate
    if parameters:
        body["parameters"] = parameters
    return target.post(":predict", body)


def decode(data: Any, *, target: Target, model: str, options: EmbedOptions) -> EmbeddingResponse:
    """``embeddings[].values`` (Gemini API, Vertex's Gemini models) or
    ``predictions[].embeddings`` (Vertex's ``:predict``)."""
    provider = target.provider
    usage = None
    try:
        if target.family == "vertex" and "predictions" in data:
            found = [p["embeddings"] for p in items_of(data, "predictions", provider=provider)]
            counts = [e.get("statistics", {}).get("token_count") for e in found]
            if counts and all(isinstance(c, (int, float)) for c in counts):
                usage = Usage(input_tokens=int(sum(counts)))
        else:
            if isinstance(data, dict) and "embedding" in data:  # embedContent: one input
                found = [data["embedding"]]
            else:
                found = items_of(data, "embeddings", provider=provider)
            usage = usage_of(object_of(data, "usageMetadata").get("promptTokenCount"))
        vectors = [vector_list(e["values"], provider=provider) for e in found]
    except (AttributeError, KeyError, TypeError):
        raise MalformedStreamError(
            f"{provider}: an embedding without 'values': {str(data)[:200]!r}", provider=provider
        ) from None
    return EmbeddingResponse(
        vectors, model=model, usage=usage, provider=provider, output_type=options.output_type
    )
