"""The Azure host: the resource endpoints of Azure OpenAI and Microsoft Foundry (pure, no IO).

Shared by the ``azure`` / ``azure-responses`` presets (``providers.openai.endpoints``) and
``anthropic-foundry``. Rules:

* A resource name becomes a host (``resource_url``): ``{resource}.openai.azure.com`` (Azure
  OpenAI) or ``{resource}.services.ai.azure.com`` (Foundry, Claude under ``/anthropic``); the
  name is percent-encoded as one label, so it cannot add a path or another host.
* Credentials: an API key sent the host's way (Azure OpenAI ``api-key``; Foundry ``x-api-key``
  and ``api-key``) or Microsoft Entra ID through ``auth`` / ``token_provider`` (a bearer token
  for ``https://cognitiveservices.azure.com/.default``), never both:
  ``llmbridge.auth.key_or_auth``.
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import quote

__all__ = ["ENDPOINT_VAR", "resource_url"]

ENDPOINT_VAR = "AZURE_OPENAI_ENDPOINT"
"""Azure OpenAI's endpoint variable (the official SDK's)."""

_SERVICES = {"openai": "openai.azure.com", "foundry": "services.ai.azure.com"}


def resource_url(resource: str, service: Literal["openai", "foundry"]) -> str:
    """``https://{resource}.<service host>`` (no path, no trailing slash)."""
    return f"https://{quote(resource, safe='')}.{_SERVICES[service]}"
