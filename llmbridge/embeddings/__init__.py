"""Embeddings and reranking: the other model calls of a retrieval app, on the same client.

Layout: ``types`` (the results), ``options`` (the portable options and what each provider
family takes), one codec module per provider family (``openai_compatible``, ``gemini``,
``cohere``, ``ollama``, ``bedrock``, ``rerank``: pure, options → ``HttpRequest`` and JSON →
result), ``targets`` (where a provider's embeddings go, from the provider itself), ``calls``
(the IO: split, concurrent, merged; through ``llmbridge.stream.fetch``). ``Client.embed`` /
``embed_many`` / ``rerank`` are in ``llmbridge.client.embed_methods``. Only the result types
are re-exported here (``llmbridge.errors`` names ``EmbeddingResponse`` as a ``partial``).
"""

from .types import EmbeddingResponse, RerankResponse, RerankResult

__all__ = ["EmbeddingResponse", "RerankResponse", "RerankResult"]
