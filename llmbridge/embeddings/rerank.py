"""Reranking: each family's request, and one reader for every answer.

Rules:

* Cohere ``/v2/rerank`` (``model``, ``query``, ``documents``, ``top_n``); Voyage ``/rerank``
  (``top_k``); Jina ``/rerank`` (``top_n``, ``return_documents: false``); the ``/rerank`` of
  OpenAI-compatible servers (llama.cpp, vLLM: Jina's shape); Bedrock InvokeModel of Cohere
  Rerank (``api_version: 2``) and Amazon Rerank (``query``, ``documents``, ``top_n``).
  Other families have no rerank endpoint: a ``ConfigurationError`` naming those that do.
* The answer's results are read from ``results`` (Cohere, Jina, llama.cpp, Bedrock) or
  ``data`` (Voyage), each an ``index`` and a ``relevance_score`` (``relevanceScore`` on
  Bedrock's Rerank API); the document is the one given at that index. Highest score first;
  usage from ``usage.prompt_tokens`` / ``total_tokens`` where sent.
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigurationError, MalformedStreamError
from ..providers.base import HttpRequest
from .types import RerankResponse, RerankResult
from .wire import Target, object_of, usage_of

__all__ = ["RERANK_PROVIDERS", "decode", "encode"]

RERANK_PROVIDERS = (
    "cohere, voyage, jina, bedrock (cohere.rerank-*, amazon.rerank-*), and OpenAI-compatible "
    "servers with /rerank (llamacpp, vllm, openai-compatible)"
)


def encode(
    target: Target, model: str, query: str, documents: list[str], top_n: int | None
) -> HttpRequest:
    """The rerank request of ``documents`` against ``query``."""
    family = target.family
    body: dict[str, Any] = {"model": model, "query": query, "documents": documents}
    if family == "cohere":
        path = "/v2/rerank"
    elif family in ("voyage", "jina", "openai-compatible"):
        path = "/rerank"
        if family == "jina":
            body["return_documents"] = False
    elif family == "bedrock-rerank":
        del body["model"]
        path = "/invoke"
        if "cohere." in model:
            body["api_version"] = 2
    else:
        raise ConfigurationError(
            f"provider {target.provider!r} has no rerank endpoint; these do: {RERANK_PROVIDERS}",
            provider=target.provider,
        )
    if top_n is not None:
        body["top_k" if family == "voyage" else "top_n"] = top_n
    return target.post(path, body)


def decode(data: Any, *, target: Target, model: str, documents: list[str]) -> RerankResponse:
    """The ranked results, highest score first."""
    provider = target.provider
    items = data if isinstance(data, list) else None
    if isinstance(data, dict):
        items = data.get("results", data.get("data"))
    if not isinstance(items, list):
        raise MalformedStreamError(
            f"{provider}: expected rerank results, got {str(data)[:200]!r}", provider=provider
        )
    results = []
    try:
        for item in items:
            index = int(item["index"])
            score = item.get("relevance_score", item.get("relevanceScore", item.get("score")))
            document = documents[index] if 0 <= index < len(documents) else None
            results.append(RerankResult(index=index, score=float(score), document=document))
    except (AttributeError, KeyError, TypeError, ValueError):
        raise MalformedStreamError(
            f"{provider}: a rerank result without index / score: {str(items)[:200]!r}",
            provider=provider,
        ) from None
    results.sort(key=lambda r: -r.score)
    body = data if isinstance(data, dict) else {}
    usage = object_of(body, "usage")
    return RerankResponse(
        results,
        model=str(body.get("model") or model),
        usage=usage_of(usage.get("prompt_tokens"), usage.get("total_tokens")),
        request_id=body.get("id") if isinstance(body.get("id"), str) else None,
        provider=provider,
    )
