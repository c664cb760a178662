"""The ``anthropic-compatible`` provider: servers that speak Anthropic's Messages API —
llama.cpp's ``/v1/messages``, LiteLLM's proxy, claude-code-router, vLLM's Anthropic endpoint.

The same encoder and decoder as ``anthropic``; what differs is what such servers take:

* ``base_url`` is needed (there is no default host) and is taken with or without its ``/v1``:
  ``http://127.0.0.1:8080`` and ``http://127.0.0.1:8080/v1`` both reach ``…/v1/messages``.
* The API version they speak, ``2023-06-01``: ``temperature``, ``top_p`` and ``top_k`` are sent
  (the ``2026-10-21`` version ``anthropic`` speaks removed them); an ``api_version`` option wins.
* Structured output goes into the prompt and the answer is validated (they ignore
  ``output_config.format``); tools are native; no server-run tools, no compaction.
* A key is optional: the ``api_key`` option or ``ANTHROPIC_COMPATIBLE_API_KEY`` (sent as
  ``Authorization: Bearer``; ``auth: "x-api-key"`` for a server that reads that header).
* A 404 names the URL it answered, and says the base URL is taken with or without ``/v1``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from ...errors import APIError, ConfigurationError
from ..base import Capabilities
from ..config import ProviderConfig
from ..option_names import declare_options
from .provider import AnthropicProvider, model_capabilities

__all__ = ["COMPATIBLE_API_VERSION", "AnthropicCompatibleProvider", "create"]

COMPATIBLE_API_VERSION = "2023-06-01"
"""The ``anthropic-version`` Anthropic-compatible servers speak (sampling settings included)."""


class AnthropicCompatibleProvider(AnthropicProvider):
    """A server of Anthropic's Messages API that is not Anthropic's (see the module rules)."""

    key_vars = ("ANTHROPIC_COMPATIBLE_API_KEY",)
    key_required = False
    default_api_version = COMPATIBLE_API_VERSION

    def __init__(self, config: ProviderConfig, *, name: str = "anthropic-compatible") -> None:
        if not config.base_url:
            raise ConfigurationError(
                f"provider {name!r} needs a base_url: providers={{{name!r}: {{'base_url': "
                "'http://127.0.0.1:8080'}} (with or without /v1)",
                provider=name,
            )
        base = config.base_url.rstrip("/")
        base = base.removesuffix("/v1")
        super().__init__(dataclasses.replace(config, base_url=base), name=name)

    def __repr__(self) -> str:
        return f"AnthropicCompatibleProvider(name={self.name!r}, base_url={self._base_url!r}, api_key={self._key!r})"

    def capabilities(self, model: str) -> Capabilities:
        known = model_capabilities(model)
        return dataclasses.replace(
            known, json_mode="none", hosted_tools=frozenset(), compaction=False
        )

    def map_error(self, *, status: int, headers: Mapping[str, str], body: bytes) -> APIError:
        error = super().map_error(status=status, headers=headers, body=body)
        if status == 404:
            error.message = (
                f"{error.message} ({self._base_url}/v1/messages answered 404: is base_url the "
                "server's address? it is taken with or without /v1)"
            )
            error.args = (error.message, *error.args[1:])
        return error


def create(config: ProviderConfig) -> AnthropicCompatibleProvider:
    """Registry factory for ``anthropic-compatible``."""
    return AnthropicCompatibleProvider(config)


declare_options(create, {"api_version", "auth", "betas"})
