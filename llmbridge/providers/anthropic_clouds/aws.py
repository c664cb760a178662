"""``anthropic-aws:<model>``: Claude Platform on AWS (Anthropic's API through AWS).

Follows the ``anthropic`` SDK 2.14's ``AnthropicAWS``. Rules:

* The first-party Messages API (body, ``anthropic-version`` header, ``/v1/messages``,
  ``/v1/messages/count_tokens``, ``/v1/models``) at ``https://aws-external-anthropic.{region}.api.aws``
  (``base_url`` / ``ANTHROPIC_AWS_BASE_URL`` replace it); region: option ``region``,
  ``AWS_REGION``, ``AWS_DEFAULT_REGION``.
* The workspace (option ``workspace_id`` / ``ANTHROPIC_AWS_WORKSPACE_ID``, required) is the
  ``anthropic-workspace-id`` header.
* Credentials in the AWS precedence (``llmbridge.auth.aws``): ``api_key``, explicit AWS
  credentials or ``profile`` (SigV4, service ``aws-external-anthropic``), ``ANTHROPIC_AWS_API_KEY``
  (a bearer token), the default AWS credential chain (SigV4).
* Every Anthropic feature the first-party API has (server tools included).
"""

from __future__ import annotations

from ...auth.aws import AWS_OPTIONS, require_region
from ..config import ProviderConfig
from ..hosts.aws import external_anthropic_url
from ..option_names import declare_options
from .base import CLOUD_OPTIONS, CountsTokensRoute, ListsModelsRoute, env_of, first, required
from .credentials import aws_credential

__all__ = ["AnthropicAWSProvider", "create"]

NAME = "anthropic-aws"


class AnthropicAWSProvider(CountsTokensRoute, ListsModelsRoute):
    def __init__(self, config: ProviderConfig, *, name: str = NAME) -> None:
        env = env_of(config)
        credential, region = aws_credential(
            config, provider=name, service="aws-external-anthropic",
            key_vars=("ANTHROPIC_AWS_API_KEY",),
        )  # fmt: skip
        workspace = required(
            first(config.options.get("workspace_id"), env.get("ANTHROPIC_AWS_WORKSPACE_ID")),
            provider=name,
            what="a workspace id",
            how="pass providers={'anthropic-aws': {'workspace_id': ...}} or set "
            "ANTHROPIC_AWS_WORKSPACE_ID",
        )
        base_url = first(config.base_url, env.get("ANTHROPIC_AWS_BASE_URL"))
        if base_url is None:
            base_url = external_anthropic_url(require_region(region, provider=name))
        super().__init__(
            config,
            name=name,
            base_url=base_url,
            credential=credential,
            headers={"anthropic-workspace-id": workspace},
        )

    def messages_url(self, model: str) -> str:
        return f"{self.base_url}/v1/messages"


def create(config: ProviderConfig) -> AnthropicAWSProvider:
    """Registry factory for ``anthropic-aws``."""
    return AnthropicAWSProvider(config)


declare_options(create, CLOUD_OPTIONS | AWS_OPTIONS | {"workspace_id"})
