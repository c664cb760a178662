"""The provider calls that are not streams: token counts and model lists.

Rules: each asks the provider object whether it can (``CountsTokens``, ``ListsModels``); one
that cannot is a ``ConfigurationError`` naming it. A count is made for the request ``stream``
would send (its plans applied: tools, the response format's prompt, the fallback's
instructions). A model list is read page by page; one that never ends is a
``MalformedStreamError``. The IO is ``llmbridge.stream.fetch_json``'s (retries, timeouts).
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigurationError, MalformedStreamError
from ..model_info import ModelInfo
from ..providers.base import CountsTokens, ListsModels, Provider
from ..request import ChatRequest
from ..stream import RetryPolicy
from ..stream.fetch import fetch_json
from .pipeline import plan_wire

__all__ = ["MAX_MODEL_PAGES", "count_tokens", "list_models"]

MAX_MODEL_PAGES = 100
"""A model list longer than this many pages is a server that never says it is done."""


async def count_tokens(
    *, http: Any, provider: Provider, request: ChatRequest, retry: RetryPolicy, timeout: Any
) -> int:
    """The input tokens of ``request`` as sent, counted by the provider's own endpoint."""
    if not isinstance(provider, CountsTokens):
        raise ConfigurationError(
            f"provider {provider.name!r} has no token-counting endpoint "
            "(Anthropic, Gemini and the OpenAI Responses API have one)",
            provider=provider.name,
        )
    wire = plan_wire(provider, request, rescue=False).request
    data = await fetch_json(
        http=http,
        provider=provider,
        request=provider.count_tokens_request(wire),
        retry=retry,
        timeout=timeout,
    )
    return provider.parse_token_count(data)


async def list_models(
    *, http: Any, provider: Provider, retry: RetryPolicy, timeout: Any
) -> list[ModelInfo]:
    """Every model ``provider`` lists, all pages."""
    if not isinstance(provider, ListsModels):
        raise ConfigurationError(
            f"provider {provider.name!r} cannot list its models (no models_request)",
            provider=provider.name,
        )
    models: list[ModelInfo] = []
    cursor: str | None = None
    for _ in range(MAX_MODEL_PAGES):
        data = await fetch_json(
            http=http,
            provider=provider,
            request=provider.models_request(cursor),
            retry=retry,
            timeout=timeout,
        )
        page, cursor = provider.parse_models(data)
        models.extend(page)
        if cursor is None:
            return models
    raise MalformedStreamError(
        f"{provider.name}: the model list did not end after {MAX_MODEL_PAGES} pages",
        provider=provider.name,
    )
