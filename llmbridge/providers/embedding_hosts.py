"""``voyage``, ``jina`` and ``tei``: providers that serve embeddings and reranking, not chat.

Rules: built by the registry like any provider (``voyage:voyage-3.5``, ``jina:jina-
embeddings-v3``, ``tei:BAAI/bge-m3``; ``Client(providers={"voyage": {...}})`` configures them):
the key from ``api_key`` or ``VOYAGE_API_KEY`` / ``JINA_API_KEY`` / ``TEI_API_KEY`` (optional
for ``tei``: Hugging Face's text-embeddings-inference server, ``http://localhost:8080`` unless
``base_url`` says), the base URL from ``base_url`` or the vendor's. Errors are read with the OpenAI-style error table (both send ``{"detail": ...}`` or
an OpenAI error body). ``stream`` on them is a ``ConfigurationError`` saying what they serve.
"""

from __future__ import annotations

from collections.abc import Mapping

import httpx

from ..auth import config_auth
from ..errors import APIError, ConfigurationError
from ..request import ChatRequest
from ..secrets import Secret
from .base import Capabilities, Decoder, HttpRequest
from .config import ProviderConfig
from .openai.errors import map_http_error

__all__ = ["HOSTS", "EmbeddingHost", "create_jina", "create_tei", "create_voyage"]

HOSTS: dict[str, tuple[str, str]] = {
    "voyage": ("https://api.voyageai.com/v1", "VOYAGE_API_KEY"),
    "jina": ("https://api.jina.ai/v1", "JINA_API_KEY"),
    "tei": ("http://localhost:8080", "TEI_API_KEY"),
}
"""Name → (default base URL, key variable)."""


class EmbeddingHost:
    """An embeddings-and-rerank API (no chat)."""

    def __init__(
        self,
        name: str,
        *,
        base_url: str,
        key: Secret | None,
        headers: Mapping[str, str],
        auth: httpx.Auth | None = None,
    ) -> None:
        self.name = name
        self.base_url = base_url.rstrip("/")
        self._key = key
        self._headers = dict(headers)
        self.auth = auth

    def __repr__(self) -> str:
        return f"EmbeddingHost(name={self.name!r}, base_url={self.base_url!r})"

    def auth_headers(self) -> dict[str, str]:
        """The key as a bearer token, and the configured headers."""
        headers = dict(self._headers)
        if self._key is not None:
            headers["authorization"] = f"Bearer {self._key.reveal()}"
        return headers

    def capabilities(self, model: str) -> Capabilities:
        return Capabilities(native_tools=False, images=False, json_mode="none")

    def build_request(self, request: ChatRequest) -> HttpRequest:
        raise self._no_chat()

    def _no_chat(self) -> ConfigurationError:
        return ConfigurationError(
            f"provider {self.name!r} serves embeddings and reranking (client.embed, "
            "client.rerank), not chat",
            provider=self.name,
        )

    def new_decoder(self, request: ChatRequest) -> Decoder:
        raise self._no_chat()

    def map_error(self, *, status: int, headers: Mapping[str, str], body: bytes) -> APIError:
        return map_http_error(provider=self.name, status=status, headers=headers, body=body)


def _create(name: str, config: ProviderConfig) -> EmbeddingHost:
    base, variable = HOSTS[name]
    return EmbeddingHost(
        name,
        base_url=config.base_url or base,
        key=config.key(variable, provider=name, required=config.base_url is None and name != "tei"),
        headers=config.headers,
        auth=config_auth(config),
    )


def create_voyage(config: ProviderConfig) -> EmbeddingHost:
    """Registry factory for ``voyage`` (Voyage AI)."""
    return _create("voyage", config)


def create_jina(config: ProviderConfig) -> EmbeddingHost:
    """Registry factory for ``jina`` (Jina AI)."""
    return _create("jina", config)


def create_tei(config: ProviderConfig) -> EmbeddingHost:
    """Registry factory for ``tei`` (Hugging Face text-embeddings-inference)."""
    return _create("tei", config)
