"""Bedrock embeddings through InvokeModel (SigV4 by the chat provider's auth): the body of
each model family.

Rules:

* The family is read from the model id (a region prefix such as ``us.`` allowed):
  ``amazon.titan-embed…`` (Titan Text Embeddings), ``cohere.embed…`` (Cohere Embed, the body
  of ``llmbridge.embeddings.cohere`` without ``model``), ``amazon.nova…`` (Nova multimodal
  embeddings). Titan and Nova embed one input per call (the caller splits the list).
* Cohere images: Bedrock fetches no URL, so an image is given as bytes and sent as a
  ``data:`` URL. Embed v4 (``cohere.embed-v4…``) takes them in ``inputs`` (one ``content``
  list per input, as the cohere SDK's Bedrock client sends the v2 body); Embed v3 takes one
  image alone per call (``images`` with ``input_type: "image"``); anything else with an image
  is a ``UsageError`` saying so.
* Titan v2: ``inputText``, ``dimensions``, ``embeddingTypes: ["binary"]`` for the bit types;
  its one-0/1-per-dimension ``binary`` answer is packed 8 to a byte like Cohere's.
  Usage: ``inputTextTokenCount``.
* Nova: ``SINGLE_EMBEDDING`` with ``embeddingPurpose`` (query → ``GENERIC_RETRIEVAL``, document
  or none → ``GENERIC_INDEX``, ``CLASSIFICATION``, ``CLUSTERING``), ``embeddingDimension``,
  ``text.truncationMode`` (True or None → ``END``, which Nova requires; False → ``NONE``),
  or an image as bytes (``image.format`` + ``source.bytes``).
"""

from __future__ import annotations

from typing import Any

from ..embedding_types import EmbeddingResponse
from ..errors import MalformedStreamError, UsageError
from ..parts import ImagePart
from ..providers.base import HttpRequest
from . import cohere
from .options import EmbedOptions
from .vectors import pack_bits, vector_list
from .wire import Input, Target, texts_of, usage_of

__all__ = ["decode", "encode", "family_of"]

_NOVA_PURPOSES = {
    "query": "GENERIC_RETRIEVAL",
    "document": "GENERIC_INDEX",
    "classification": "CLASSIFICATION",
    "clustering": "CLUSTERING",
}


def family_of(model: str, *, provider: str) -> str:
    """``bedrock-titan``, ``-cohere``, ``-nova`` or ``-rerank`` for ``model``."""
    bare = model.split(".", 1)[1] if model.split(".", 1)[0] in _REGIONS else model
    for prefix, family in _FAMILIES:
        if bare.startswith(prefix):
            return family
    raise UsageError(
        f"{provider}: {model!r} is not a Bedrock embedding or rerank model llmbridge knows "
        "(amazon.titan-embed-*, cohere.embed-*, amazon.nova-*-embeddings-*, cohere.rerank-*, "
        "amazon.rerank-*)"
    )


_REGIONS = frozenset({"us", "eu", "apac", "global", "jp", "au", "ca", "us-gov"})
_FAMILIES = (
    ("amazon.titan-embed", "bedrock-titan"),
    ("cohere.embed", "bedrock-cohere"),
    ("amazon.nova", "bedrock-nova"),
    ("cohere.rerank", "bedrock-rerank"),
    ("amazon.rerank", "bedrock-rerank"),
)


def encode(target: Target, model: str, inputs: list[Input], options: EmbedOptions) -> HttpRequest:
    """The InvokeModel request of ``inputs`` (one input for Titan and Nova)."""
    if target.family == "bedrock-cohere":
        return target.post("/invoke", _cohere_body(target, model, inputs, options))
    (item,) = inputs
    if target.family == "bedrock-titan":
        (text,) = texts_of([item], target=target)
        body: dict[str, Any] = {"inputText": text}
        if options.dimensions is not None:
            body["dimensions"] = options.dimensions
        if options.output_type != "float":
            body["embeddingTypes"] = ["binary"]
        return target.post("/invoke", body)
    params: dict[str, Any] = {
        "embeddingPurpose": _NOVA_PURPOSES[options.input_type or "document"],
    }
    if options.dimensions is not None:
        params["embeddingDimension"] = options.dimensions
    if isinstance(item, ImagePart):
        if item.data is None:
            raise UsageError(
                f"{target.provider}: Nova embeds an image given as bytes "
                "(ImagePart(data=..., media_type=...)); a URL is not fetched for it"
            )
        fmt = (item.media_type or "image/png").removeprefix("image/")
        params["image"] = {"format": fmt, "source": {"bytes": item.base64_data}}
    else:
        (text,) = texts_of([item], target=target)
        mode = "NONE" if options.truncate is False else "END"
        params["text"] = {"truncationMode": mode, "value": text}
    return target.post("/invoke", {"taskType": "SINGLE_EMBEDDING", "singleEmbeddingParams": params})


def _cohere_body(
    target: Target, model: str, inputs: list[Input], options: EmbedOptions
) -> dict[str, Any]:
    """Cohere Embed's InvokeModel body: images as ``data:`` URLs (see the module rules)."""
    images = [item for item in inputs if isinstance(item, ImagePart)]
    if not images:
        return cohere.body_of(inputs, options)
    if any(image.data is None for image in images):
        raise UsageError(
            f"{target.provider}: Cohere Embed on Bedrock embeds an image given as bytes "
            "(ImagePart(data=..., media_type=...)); Bedrock fetches no URL"
        )
    if "embed-v4" in model:
        return cohere.body_of(inputs, options)
    if len(inputs) > 1:
        raise UsageError(
            f"{target.provider}: {model} (Cohere Embed v3) embeds one image per call and "
            "no text with it: embed each image on its own, or use cohere.embed-v4:0, which "
            "takes texts and images in one list"
        )
    body = cohere.body_of([], options)
    del body["texts"]
    return {**body, "images": [images[0].data_url], "input_type": "image"}


def decode(data: Any, *, target: Target, model: str, options: EmbedOptions) -> EmbeddingResponse:
    """The model family's answer as an ``EmbeddingResponse``."""
    provider = target.provider
    if target.family == "bedrock-cohere":
        return cohere.decode(data, target=target, model=model, options=options)
    usage = None
    try:
        if target.family == "bedrock-titan":
            usage = usage_of(data.get("inputTextTokenCount"))
            if options.output_type == "float":
                vector = vector_list(data["embedding"], provider=provider)
            else:
                bits = vector_list(data["embeddingsByType"]["binary"], provider=provider)
                vector = pack_bits(bits, signed=options.output_type == "binary")
        else:
            vector = vector_list(data["embeddings"][0]["embedding"], provider=provider)
    except (AttributeError, KeyError, IndexError, TypeError):
        raise MalformedStreamError(
            f"{provider}: no embedding in the answer: {str(data)[:200]!r}", provider=provider
        ) from None
    return EmbeddingResponse(
        [vector], model=model, usage=usage, provider=provider, output_type=options.output_type
    )
