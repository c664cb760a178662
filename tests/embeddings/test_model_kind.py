"""``ModelInfo.kind`` (chat / embeddings / rerank) where the provider's model row says, and
``EmbeddingResponse.cost`` from the prices extra."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

import llmbridge as lb


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        (
            {"name": "models/gemini-embedding-001", "supportedGenerationMethods": ["embedContent"]},
            "embeddings",
        ),
        (
            {
                "name": "models/gemini-2.5-flash",
                "supportedGenerationMethods": ["generateContent", "countTokens"],
            },
            "chat",
        ),
        (
            {"modelId": "amazon.titan-embed-text-v2:0", "outputModalities": ["EMBEDDING"]},
            "embeddings",
        ),
        ({"modelId": "amazon.nova-lite-v1:0", "outputModalities": ["TEXT"]}, "chat"),
        ({"modelId": "cohere.rerank-v3-5:0", "outputModalities": ["TEXT"]}, "rerank"),
        ({"name": "rerank-v3.5", "endpoints": ["rerank"]}, "rerank"),
        ({"name": "embed-v4.0", "endpoints": ["embed", "embed_images"]}, "embeddings"),
        ({"id": "gpt-4.1", "object": "model"}, None),
    ],
)
def test_kind_is_read_from_the_providers_row(raw: dict[str, Any], kind: str | None) -> None:
    assert lb.ModelInfo(id="m", provider="p", raw=raw).kind == kind


def test_cost_of_an_embedding_call_with_the_prices_extra() -> None:
    pytest.importorskip("genai_prices")
    got = lb.EmbeddingResponse(
        [[0.1]],
        model="text-embedding-3-small",
        usage=lb.Usage(input_tokens=1_000_000),
        provider="openai",
    )
    assert got.cost == Decimal("0.02")
    assert lb.EmbeddingResponse([[0.1]], model="gemma", provider="llamacpp").cost is None
