"""Reranking: each family's request, and one reader for every answer.

Rules:

* Cohere ``/v2/rerank`` (``model``, ``query``, ``documents``, ``top_n``); Voyage ``/rerank``
  (``top_k``); Jina ``/rerank`` (``top_n``, ``return_documents: false``); the ``/rerank`` of
  OpenAI-compatible servers (llama.cpp, vLLM: Jina's shape); TEI's ``/rerank`` (``query``,
  ``texts``; no ``top_n``: the best are kept here); Bedrock's ``Rerank`` of the agent runtime
  (``POST bedrock-agent-runtime.{region}…/rerank``, SigV4 as ``bedrock``, the shapes of
  botocore's ``bedrock-agent-runtime`` model: ``queries``, inline text ``sources``, the model
  as its foundation-model ARN, ``numberOfResults``), for Cohere Rerank and Amazon Rerank.
  Other families have no rerank endpoint: a ``ConfigurationError`` naming those that do.
* The answer's results are read from ``results`` (Cohere, Jina, llama.cpp, Bedrock), ``data``
  (Voyage) or a bare list (TEI), each an ``index`` and a ``relevance_score``
  (``relevanceScore`` on Bedrock, ``score`` on TEI); the document is the one given at that
  index. Highest score first, at most ``top_n``; usage from ``usage.prompt_tokens`` /
  ``total_tokens`` where sent.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..embedding_types import RerankResponse, RerankResult
from ..errors import ConfigurationError, MalformedStreamError
from ..providers.base import HttpRequest
from .wire import Target, object_of, usage_of

__all__ = ["RERANK_PROVIDERS", "decode", "encode"]

RERANK_PROVIDERS = (
    "cohere, voyage, jina, tei, bedrock (cohere.rerank-*, amazon.rerank-*), and "
    "OpenAI-compatible servers with /rerank (llamacpp, vllm, openai-compatible)"
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
        return _bedrock(target, model, query, documents, top_n)
    elif family == "tei":
        return target.post("/rerank", {"query": query, "texts": documents})
    else:
        raise ConfigurationError(
            f"provider {target.provider!r} has no rerank endpoint; these do: {RERANK_PROVIDERS}",
            provider=target.provider,
        )
    if top_n is not None:
        body["top_k" if family == "voyage" else "top_n"] = top_n
    return target.post(path, body)


def _bedrock(
    target: Target, model: str, query: str, documents: list[str], top_n: int | None
) -> HttpRequest:
    """The agent runtime's ``Rerank`` request (its host beside the runtime's, same region)."""
    region = target.region
    arn = f"arn:aws:bedrock:{region}::foundation-model/{model}"
    configuration: dict[str, Any] = {"modelConfiguration": {"modelArn": arn}}
    configuration["numberOfResults"] = top_n if top_n is not None else len(documents)
    body = {
        "queries": [{"type": "TEXT", "textQuery": {"text": query}}],
        "sources": [
            {
                "type": "INLINE",
                "inlineDocumentSource": {"type": "TEXT", "textDocument": {"text": d}},
            }
            for d in documents
        ],
        "rerankingConfiguration": {
            "type": "BEDROCK_RERANKING_MODEL",
            "bedrockRerankingConfiguration": configuration,
        },
    }
    origin = target.prefix.split("/model/", 1)[0]
    if origin.startswith("https://bedrock-runtime."):
        origin = origin.replace("https://bedrock-runtime.", "https://bedrock-agent-runtime.", 1)
    return replace(target, prefix=origin, query="").post("/rerank", body)


def decode(
    data: Any, *, target: Target, model: str, documents: list[str], top_n: int | None = None
) -> RerankResponse:
    """The ranked results, highest score first (at most ``top_n``)."""
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
    if top_n is not None:
        del results[top_n:]
    body = data if isinstance(data, dict) else {}
    usage = object_of(body, "usage")
    return RerankResponse(
        results,
        model=str(body.get("model") or model),
        usage=usage_of(usage.get("prompt_tokens"), usage.get("total_tokens")),
        request_id=body.get("id") if isinstance(body.get("id"), str) else None,
        provider=provider,
    )
