"""What a call cost, in USD, from its ``Usage`` (optional extra ``llmbridge[prices]``).

Rules:

* Prices come from ``genai-prices`` (pydantic's maintained price table), imported on first use;
  without the extra every cost is ``None``.
* ``Usage`` and genai-prices share one convention: input tokens include cache reads and
  writes, given as parts (``cache_read_tokens``, ``cache_write_tokens``); output includes
  reasoning. So the counts are passed as they are.
* The provider is named by llmbridge's provider name (``openai``, ``anthropic``, ``gemini``,
  the OpenAI-compatible presets); a self-hosted server (Ollama, llama.cpp, vLLM, LM Studio) or
  a model the table does not know costs ``None``, never a guess. A batch job's result is priced
  with genai-prices' ``processing: batch`` variant (``BatchResult.cost``) where it has one.
* A leaf: it stands on ``llmbridge.response_data`` (``Usage``) alone, so ``ChatResponse.cost``
  and the telemetry ask it without an import circle; the price table loads only when asked.
"""

from __future__ import annotations

import logging
from decimal import Decimal
from typing import Any

from .response_data import Usage

__all__ = ["PRICE_PROVIDERS", "cost_of"]

log = logging.getLogger("llmbridge")

PRICE_PROVIDERS: dict[str, str] = {
    "openai": "openai",
    "openai-responses": "openai",
    "azure": "azure",
    "anthropic": "anthropic",
    "gemini": "google",
    "vertex": "google",
    "bedrock": "aws",
    "groq": "groq",
    "deepseek": "deepseek",
    "mistral": "mistral",
    "xai": "x-ai",
    "openrouter": "openrouter",
    "together": "together",
    "fireworks": "fireworks",
    "cerebras": "cerebras",
}
"""llmbridge provider name → genai-prices provider id (providers that bill per token)."""

_UNAVAILABLE: Any = object()
_prices: Any = None


def _genai_prices() -> Any:
    global _prices
    if _prices is None:
        try:
            import genai_prices
        except ImportError:
            _prices = _UNAVAILABLE
            log.debug("llmbridge: costs need the prices extra (pip install 'llmbridge[prices]')")
        else:
            _prices = genai_prices
    return None if _prices is _UNAVAILABLE else _prices


def cost_of(
    usage: Usage | None, *, model: str | None, provider: str | None, batch: bool = False
) -> Decimal | None:
    """The USD cost of ``usage`` on ``model`` at ``provider``, or ``None`` when unknown;
    ``batch``: at the provider's batch price where genai-prices has one (else its standard)."""
    if usage is None or not model or provider not in PRICE_PROVIDERS:
        return None
    prices = _genai_prices()
    if prices is None:
        return None
    counts = prices.Usage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cached_input_tokens or None,
        cache_write_tokens=usage.cache_write_tokens or None,
    )
    try:
        context = {"processing": "batch"} if batch else None
        price = prices.calc_price(
            counts, model, provider_id=PRICE_PROVIDERS[provider], price_context=context
        )
    except LookupError:
        return None
    return Decimal(price.total_price)
