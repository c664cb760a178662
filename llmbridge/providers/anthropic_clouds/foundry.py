"""``anthropic-foundry:<model>``: Claude in Microsoft Foundry (Azure).

Follows the ``anthropic`` SDK 2.14's ``AnthropicFoundry`` and
https://learn.microsoft.com/azure/ai-foundry/foundry-models/how-to/use-foundry-models-claude.
Rules:

* ``{base}/v1/messages`` (and ``/v1/messages/count_tokens``) where ``base`` is ``base_url`` /
  ``ANTHROPIC_FOUNDRY_BASE_URL``, else ``https://{resource}.services.ai.azure.com/anthropic``
  from the ``resource`` option / ``ANTHROPIC_FOUNDRY_RESOURCE`` (the Azure host's
  ``providers.hosts.azure.resource_url``). The body and headers are the
  first-party API's (``anthropic-version`` header).
* A key (``api_key`` / ``ANTHROPIC_FOUNDRY_API_KEY``) is sent as ``x-api-key`` **and**
  ``api-key``, exactly as the SDK does (never as a bearer token); or Microsoft Entra ID: a
  ``token_provider`` (e.g. azure-identity's ``get_bearer_token_provider(...,
  "https://cognitiveservices.azure.com/.default")``) or ``auth``, sent as ``Authorization:
  Bearer``. Not both (``llmbridge.auth.key_or_auth``, as for the ``azure`` presets).
* Foundry has no ``/v1/models`` (the SDK leaves it out); it runs web search, web fetch and code
  execution but not the MCP connector.
"""

from __future__ import annotations

from ...errors import ConfigurationError
from ..config import ProviderConfig
from ..hosts.azure import resource_url
from ..option_names import declare_options
from .base import CLOUD_OPTIONS, CountsTokensRoute, env_of, first
from .credentials import key_credential

__all__ = ["AnthropicFoundryProvider", "create"]

NAME = "anthropic-foundry"


class AnthropicFoundryProvider(CountsTokensRoute):
    hosted_tools: frozenset[str] = frozenset(
        {"web_search", "web_fetch", "code_execution", "tool_search"}
    )

    def __init__(self, config: ProviderConfig, *, name: str = NAME) -> None:
        env = env_of(config)
        credential = key_credential(
            config,
            provider=name,
            key_vars=("ANTHROPIC_FOUNDRY_API_KEY",),
            key_headers=("x-api-key", "api-key"),
        )
        resource = config.options.get("resource")
        base_url = first(
            config.base_url, None if resource else env.get("ANTHROPIC_FOUNDRY_BASE_URL")
        )
        if base_url is not None and resource:
            raise ConfigurationError(
                f"provider {name!r}: base_url and resource are mutually exclusive", provider=name
            )
        if base_url is None:
            resource = first(resource, env.get("ANTHROPIC_FOUNDRY_RESOURCE"))
            if resource is None:
                raise ConfigurationError(
                    f"provider {name!r} needs a resource or base_url: pass providers="
                    "{'anthropic-foundry': {'resource': 'my-resource'}} or set "
                    "ANTHROPIC_FOUNDRY_RESOURCE",
                    provider=name,
                )
            base_url = resource_url(resource, "foundry") + "/anthropic"
        super().__init__(config, name=name, base_url=base_url, credential=credential)

    def messages_url(self, model: str) -> str:
        return f"{self.base_url}/v1/messages"


def create(config: ProviderConfig) -> AnthropicFoundryProvider:
    """Registry factory for ``anthropic-foundry``."""
    return AnthropicFoundryProvider(config)


declare_options(create, CLOUD_OPTIONS | {"resource"})
