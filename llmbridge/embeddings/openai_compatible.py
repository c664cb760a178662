"""``/embeddings`` of OpenAI, Azure, every OpenAI-compatible preset, Mistral, Voyage and Jina.

Rules:

* One body shape (``model``, ``input``: a list of texts), with each family's own option names:
  OpenAI ``dimensions``; Mistral ``output_dimension`` / ``output_dtype``; Voyage
  ``input_type`` (query/document), ``output_dimension``, ``output_dtype``, ``truncation``;
  Jina ``task`` (retrieval.query / retrieval.passage / classification / separation),
  ``dimensions``, ``embedding_type``, ``truncate``.
* Voyage with an ``ImagePart`` among the inputs: ``/multimodalembeddings`` (``inputs`` of
  ``content`` segments: ``text``, ``image_url``, ``image_base64`` as a ``data:`` URL), floats
  only; the answer has the same shape.
* Floats travel as base64 (``encoding_format: base64``, as the openai SDK sends it) where the
  family takes it (not Jina), and are decoded to exactly the SDK's float32 values; the
  integer types come as JSON numbers. A server that answers floats as JSON is read too.
* ``data[].index`` orders the vectors; usage is ``prompt_tokens`` (else ``total_tokens``).
* ``decode_answer`` reads base64 vectors from the answer's bytes (``vectors.scan_base64``):
  each decoded into its row of one float32 buffer, the rest of the body parsed without them;
  a body of another shape is parsed whole (``decode``).
"""

from __future__ import annotations

from typing import Any

from ..embedding_types import EmbeddingResponse
from ..errors import MalformedStreamError, UsageError
from ..parts import ImagePart
from ..providers.base import HttpRequest
from ..stream.answer import Answer
from .options import EmbedOptions
from .vectors import Rows, decode_spans, float32_base64, scan_base64, skeleton_json, vector_list
from .wire import Input, Target, items_of, object_of, texts_of, usage_of

__all__ = ["decode", "decode_answer", "encode"]

_JINA_TASKS = {
    "query": "retrieval.query",
    "document": "retrieval.passage",
    "classification": "classification",
    "clustering": "separation",
}
_BASE64 = frozenset({"openai", "openai-compatible", "mistral", "voyage"})


def encode(target: Target, model: str, inputs: list[Input], options: EmbedOptions) -> HttpRequest:
    """The ``/embeddings`` request of ``inputs`` (Voyage with an image among them: its
    ``/multimodalembeddings``)."""
    family = target.family
    if family == "voyage" and any(isinstance(item, ImagePart) for item in inputs):
        return _voyage_multimodal(target, model, inputs, options)
    body: dict[str, Any] = {"model": model, "input": texts_of(inputs, target=target)}
    if family in _BASE64 and options.output_type == "float":
        body["encoding_format"] = "base64"
    if family == "voyage":
        if options.input_type in ("query", "document"):
            body["input_type"] = options.input_type
        if options.truncate is not None:
            body["truncation"] = options.truncate
    if family == "jina":
        if options.input_type is not None:
            body["task"] = _JINA_TASKS[options.input_type]
        if options.truncate is not None:
            body["truncate"] = options.truncate
        body["embedding_type"] = options.output_type
    if family in ("voyage", "mistral"):
        if options.dimensions is not None:
            body["output_dimension"] = options.dimensions
        if options.output_type != "float":
            body["output_dtype"] = options.output_type
    elif options.dimensions is not None:
        body["dimensions"] = options.dimensions
    if target.query:  # Azure's deployment URL names the model
        body.pop("model")
    return target.post("/embeddings", body)


def _voyage_multimodal(
    target: Target, model: str, inputs: list[Input], options: EmbedOptions
) -> HttpRequest:
    """Voyage's ``/multimodalembeddings``: one ``content`` list per input, an image as its URL
    or a ``data:`` URL, floats as base64 (``encoding_format``, as the voyageai SDK sends it)."""
    if options.output_type != "float":
        raise UsageError(
            f"{target.provider}: Voyage's multimodal embeddings are floats only "
            f"(output_type={options.output_type!r} is for texts)"
        )
    body: dict[str, Any] = {"model": model, "inputs": [{"content": [_segment(i)]} for i in inputs]}
    if options.input_type in ("query", "document"):
        body["input_type"] = options.input_type
    if options.truncate is not None:
        body["truncation"] = options.truncate
    if options.dimensions is not None:
        body["output_dimension"] = options.dimensions
    body["encoding_format"] = "base64"
    return target.post("/multimodalembeddings", body)


def _segment(item: Input) -> dict[str, Any]:
    if isinstance(item, str):
        return {"type": "text", "text": item}
    if item.url is not None:
        return {"type": "image_url", "image_url": item.url}
    data_url = f"data:{item.media_type};base64,{item.base64_data}"
    return {"type": "image_base64", "image_base64": data_url}


def decode(data: Any, *, target: Target, model: str, options: EmbedOptions) -> EmbeddingResponse:
    """The answer of ``/embeddings``: vectors by ``index``."""
    provider = target.provider
    items = items_of(data, "data", provider=provider)
    try:
        items = sorted(items, key=lambda item: int(item.get("index", 0)))
        values = [item["embedding"] for item in items]
    except (AttributeError, KeyError, TypeError, ValueError):
        raise MalformedStreamError(
            f"{provider}: an embedding item without 'embedding' / 'index': {str(items)[:200]!r}",
            provider=provider,
        ) from None
    common = _common(data, model=model, provider=provider, options=options)
    if values and all(isinstance(v, str) for v in values):
        raw, width = float32_base64(values, provider=provider)
        return EmbeddingResponse(raw=raw, dimensions=width, **common)
    return EmbeddingResponse([vector_list(v, provider=provider) for v in values], **common)


def _common(data: Any, *, model: str, provider: str, options: EmbedOptions) -> dict[str, Any]:
    usage = object_of(data, "usage")
    return {
        "model": str(data.get("model") or model),
        "usage": usage_of(usage.get("prompt_tokens"), usage.get("total_tokens")),
        "request_id": data.get("id") if isinstance(data.get("id"), str) else None,
        "provider": provider,
        "output_type": options.output_type,
    }


def decode_answer(
    answer: Answer,
    *,
    target: Target,
    model: str,
    options: EmbedOptions,
    rows: Rows | None = None,
    start: int = 0,
) -> EmbeddingResponse:
    """``decode`` of the answer's bytes, base64 vectors decoded straight from them (into
    ``rows`` from row ``start`` when given: the buffer of the whole split call)."""
    found = None
    if target.family in _BASE64 and options.output_type == "float":
        found = scan_base64(answer.body, b"embedding")
    if not found or not found[0]:
        return decode(answer.json(), target=target, model=model, options=options)
    spans, rest = found
    provider = target.provider
    try:
        data = skeleton_json(rest)
    except ValueError as exc:
        raise answer.malformed(str(exc)) from None
    items = items_of(data, "data", provider=provider)
    try:
        indices = [int(item.get("index", 0)) for item in items if item.get("embedding") == ""]
    except (AttributeError, TypeError, ValueError):
        indices = []
    if len(indices) != len(spans) or len(items) != len(spans):  # not the shape scanned for
        return decode(answer.json(), target=target, model=model, options=options)
    common = _common(data, model=model, provider=provider, options=options)
    del data, items  # a dict per vector, gone before the vectors are decoded (3.13: 1.39x → 1.36x)
    ranks = sorted(range(len(indices)), key=indices.__getitem__)
    order = [0] * len(ranks)
    for row, span in enumerate(ranks):
        order[span] = row
    raw, width = decode_spans(answer.body, spans, order, provider=provider, rows=rows, start=start)
    return EmbeddingResponse(raw=raw, dimensions=width, **common)
