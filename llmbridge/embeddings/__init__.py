"""Embeddings and reranking: the other model calls of a retrieval app, on the same client.

Layout: the results are ``llmbridge.embedding_types`` (a ground-floor module, so that
``llmbridge.errors`` can name ``EmbeddingResponse`` as a ``partial``), ``options`` (the portable options and what each provider
family takes), one codec module per provider family (``openai_compatible``, ``gemini``,
``cohere``, ``ollama``, ``bedrock``, ``rerank``: pure, options → ``HttpRequest`` and JSON →
result), ``targets`` (where a provider's embeddings go, from the provider itself), ``calls``
(the IO: split, concurrent, merged; through ``llmbridge.stream.fetch``). ``Client.embed`` /
``embed_many`` / ``rerank`` are in ``llmbridge.client.embed_methods``.
"""

__all__: list[str] = []
