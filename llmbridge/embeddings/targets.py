"""Where a provider's embeddings and reranking go, derived from the provider object itself.

Rules:

* The provider resolves keys, base URLs, Azure deployments, Vertex projects and AWS regions
  once, for chat; this module asks it for the chat request of a one-word prompt to the same
  model and keeps its address and auth headers (``build_request``, part of every provider),
  swapping the chat path for the embedding one. So an embedding call is authenticated exactly
  as chat is (headers, ``provider.auth``: SigV4, Google ADC, Entra ID), with nothing copied.
* The family (which codec, which options) is read from the provider's class, never its name:
  the OpenAI Chat provider (``mistral`` preset: the Mistral family), Gemini / Vertex, Cohere,
  Ollama native, Bedrock (the family from the model id), and the embedding hosts (voyage,
  jina, tei). Any other provider is a ``ConfigurationError`` naming the providers that embed.
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigurationError
from ..messages import ChatMessage
from ..parts import TextPart
from ..providers.adapter import prepared_of
from ..providers.base import Provider
from ..providers.embedding_hosts import EmbeddingHost
from ..request import ChatRequest
from .wire import Target

__all__ = ["EMBEDDING_PROVIDERS", "target_for"]

EMBEDDING_PROVIDERS = (
    "openai, azure, every OpenAI-compatible preset (llamacpp, vllm, lmstudio, ollama, together, "
    "fireworks, openai-compatible...), mistral, gemini, vertex, cohere, bedrock, ollama-native, "
    "voyage, jina, tei"
)

_CHAT_PATHS = {  # module of the provider class → (family, the chat path to cut)
    "llmbridge.providers.openai.provider": ("openai", "/chat/completions"),
    "llmbridge.providers.gemini.provider": ("gemini", ":streamGenerateContent"),
    "llmbridge.providers.cohere.provider": ("cohere", "/v2/chat"),
    "llmbridge.providers.ollama_native.provider": ("ollama-native", "/api/chat"),
    "llmbridge.providers.bedrock.provider": ("bedrock", "/converse-stream"),
}


def target_for(provider: Provider, model: str) -> Target:
    """The address, auth and family of ``model``'s embeddings at ``provider``."""
    if isinstance(provider, EmbeddingHost):
        family = provider.name
        return Target(
            provider=provider.name,
            family=family,
            prefix=provider.base_url,
            headers=provider.auth_headers(),
            auth=provider.auth,
        )
    known = _CHAT_PATHS.get(type(provider).__module__)
    if known is None:
        raise ConfigurationError(
            f"provider {provider.name!r} has no embeddings in llmbridge; these do: "
            f"{EMBEDDING_PROVIDERS}",
            provider=provider.name,
        )
    family, chat_path = known
    chat = prepared_of(
        provider,
        ChatRequest(model=model, messages=[ChatMessage(role="user", content=[TextPart(text="x")])]),
    ).http
    url, _, query = chat.url.partition("?")
    if not url.endswith(chat_path):
        raise ConfigurationError(
            f"provider {provider.name!r}: its chat URL {url!r} does not end in {chat_path!r}; "
            "llmbridge cannot tell where its embeddings are",
            provider=provider.name,
        )
    prefix = url[: -len(chat_path)]
    headers = {k: v for k, v in chat.headers.items() if k not in ("accept", "content-type")}
    extra: dict[str, Any] = {}
    if family == "openai":
        family = _openai_family(provider)
        extra["query"] = "" if not query else f"?{query}"
    elif family == "gemini":
        from ..providers.gemini.provider import VertexProvider

        family = "vertex" if isinstance(provider, VertexProvider) else "gemini"
        extra["model_path"] = prefix.rsplit("/", 2)[-2] + "/" + prefix.rsplit("/", 1)[-1]
    elif family == "bedrock":
        from .bedrock import family_of

        family = family_of(model, provider=provider.name)
        extra["region"] = str(getattr(provider, "region", "") or "")
    return Target(
        provider=provider.name,
        family=family,
        prefix=prefix,
        headers=headers,
        auth=chat.auth if chat.auth is not None else getattr(provider, "auth", None),
        **extra,
    )


def _openai_family(provider: Any) -> str:
    """``openai`` for OpenAI and Azure, ``mistral`` for Mistral, else ``openai-compatible``."""
    name = getattr(getattr(provider, "preset", None), "name", provider.name)
    if name in ("openai", "azure"):
        return "openai"
    return "mistral" if name == "mistral" else "openai-compatible"
