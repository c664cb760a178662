"""The provider calls that are not streams: token counts and model lists.

Rules: each asks the provider object whether it can (``CountsTokens``, ``ListsModels``); one
that cannot is a ``ConfigurationError`` naming it. A count is made for the request ``stream``
would send (its plans applied: tools, the response format's prompt, the fallback's
instructions). A model list is read page by page; one that never ends is a
``MalformedStreamError``. The IO is ``llmbridge.stream.fetch_json``'s (the one attempt loop:
retries, the call's deadline), with the call's ``CallConfig``.
"""

from __future__ import annotations

from ..errors import ConfigurationError, MalformedStreamError
from ..model_info import ModelInfo
from ..providers.base import CountsTokens, ListsModels, Provider
from ..request import ChatRequest
from ..stream.call import CallConfig
from ..stream.fetch import fetch_json
from .pipeline import plan_wire, with_headers

__all__ = ["MAX_MODEL_PAGES", "count_tokens", "list_models"]

MAX_MODEL_PAGES = 100
"""A model list longer than this many pages is a server that never says it is done."""


async def count_tokens(*, provider: Provider, request: ChatRequest, config: CallConfig) -> int:
    """The input tokens of ``request`` as sent, counted by the provider's own endpoint."""
    if not isinstance(provider, CountsTokens):
        raise ConfigurationError(
            f"provider {provider.name!r} has no token-counting endpoint "
            "(Anthropic, Gemini and the OpenAI Responses API have one)",
            provider=provider.name,
        )
    wire = plan_wire(provider, request, rescue=False).request
    data = await fetch_json(
        http=config.http,
        provider=provider,
        request=with_headers(provider.count_tokens_request(wire), config.headers),
        retry=config.retry,
        timeout=config.timeout,
        deadline=config.deadline,
        during="counting tokens",
    )
    return provider.parse_token_count(data)


async def list_models(*, provider: Provider, config: CallConfig) -> list[ModelInfo]:
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
            http=config.http,
            provider=provider,
            request=provider.models_request(cursor),
            retry=config.retry,
            timeout=config.timeout,
            deadline=config.deadline,
            during="listing models",
        )
        page, cursor = provider.parse_models(data)
        models.extend(page)
        if cursor is None:
            return models
    raise MalformedStreamError(
        f"{provider.name}: the model list did not end after {MAX_MODEL_PAGES} pages",
        provider=provider.name,
    )
