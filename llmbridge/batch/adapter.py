"""What a provider's batch API is to the engine: one ``BatchAdapter`` per API, and which one a
provider has.

Rules: an adapter is stateless and knows one API's wire: the line of one request
(``line``: the prepared call's body, the app's id), how its files are framed (``sep``,
``head``/``tail``), its limits (``max_requests``, ``max_bytes`` per job), and the four calls
(``submit`` a chunk, ``status``, ``cancel``, ``results``) made through a ``BatchCall``.
``adapter_for`` asks the provider object (its class, an OpenAI-compatible preset's name:
data, not a branch per provider in the engine); a provider without a batch API is an
``UnsupportedFeatureError``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import UnsupportedFeatureError

if TYPE_CHECKING:
    from ..providers.base import Provider
    from ..providers.prepared import Prepared
    from .calls import BatchCall
    from .jsonl import Chunk
    from .types import BatchPart, BatchResult

__all__ = ["BatchAdapter", "adapter_for", "openai_hosts"]


class BatchAdapter(Protocol):
    """One provider batch API (see the module rules)."""

    max_requests: int
    max_bytes: int
    sep: bytes

    def overhead(self) -> int:
        """Bytes a file's head and tail take."""
        ...

    def line(self, call: BatchCall, custom_id: str, prepared: Prepared) -> bytes: ...

    async def submit(self, call: BatchCall, chunk: Chunk, options: dict[str, Any]) -> BatchPart: ...

    async def status(self, call: BatchCall, part: BatchPart) -> BatchPart: ...

    async def cancel(self, call: BatchCall, part: BatchPart) -> BatchPart: ...

    def results(self, call: BatchCall, part: BatchPart) -> AsyncIterator[BatchResult]: ...


def openai_hosts() -> dict[str, BatchAdapter]:
    """An OpenAI-compatible preset's (or Responses provider's) name → its batch API."""
    from .mistral import MistralBatches
    from .openai import AzureBatches, GroqBatches, OpenAIBatches, TogetherBatches
    from .xai import XaiBatches

    return {
        "openai": OpenAIBatches(),
        "openai-responses": OpenAIBatches(),
        "azure": AzureBatches(),
        "azure-responses": AzureBatches(),
        "groq": GroqBatches(),
        "together": TogetherBatches(),
        "mistral": MistralBatches(),
        "xai": XaiBatches(),
    }


def adapter_for(provider: Provider) -> BatchAdapter:
    """The batch API of ``provider`` (module rules)."""
    from ..providers.anthropic.provider import AnthropicProvider
    from ..providers.anthropic_clouds.bedrock import AnthropicBedrockProvider
    from ..providers.bedrock.provider import BedrockProvider
    from ..providers.gemini.provider import GeminiProvider, VertexProvider
    from ..providers.openai.provider import OpenAIChatProvider
    from ..providers.openai_responses.provider import OpenAIResponsesProvider

    if isinstance(provider, BedrockProvider | AnthropicBedrockProvider):
        from .bedrock import BedrockBatches

        return BedrockBatches(
            "Converse" if isinstance(provider, BedrockProvider) else "InvokeModel"
        )
    if isinstance(provider, OpenAIChatProvider | OpenAIResponsesProvider):
        preset = getattr(provider, "preset", None)
        host = openai_hosts().get(getattr(preset, "name", provider.name))
        if host is not None:
            return host
    elif isinstance(provider, AnthropicProvider):
        from .anthropic import AnthropicBatches

        return AnthropicBatches()
    elif isinstance(provider, GeminiProvider) and not isinstance(provider, VertexProvider):
        from .gemini import GeminiBatches

        return GeminiBatches()
    raise UnsupportedFeatureError(
        f"provider {provider.name!r} has no batch API llmbridge knows (batches: openai, azure, "
        "openai-responses, groq, together, mistral, xai, anthropic, gemini, bedrock, "
        "anthropic-bedrock)",
        provider=provider.name,
    )
