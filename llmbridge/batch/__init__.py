"""Batch jobs: the providers' own engines for many requests at about half the price.

``client.batch(model, requests)`` → ``BatchJob``; ``batch_status`` / ``batch_wait`` /
``batch_cancel`` / ``batch_results`` (docs/batch.md). The model is ``types``; the streaming
input writer ``jsonl``; the per-provider APIs ``openai`` (and Azure, Groq, Together),
``mistral``, ``xai``, ``anthropic``, ``gemini``, ``bedrock``; their IO goes through
``llmbridge.stream`` (``calls``); ``engine`` runs the lifecycle.
"""

from __future__ import annotations

from .types import BatchCounts, BatchJob, BatchRequest, BatchResult, BatchStatus, ResultStatus

__all__ = ["BatchCounts", "BatchJob", "BatchRequest", "BatchResult", "BatchStatus", "ResultStatus"]
