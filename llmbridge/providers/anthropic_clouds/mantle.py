"""``anthropic-bedrock-mantle:<model>``: Bedrock's Anthropic endpoint (Mantle).

Follows the ``anthropic`` SDK 2.14's ``AnthropicBedrockMantle`` and
https://docs.aws.amazon.com/bedrock/latest/userguide/bedrock-mantle.html. Rules:

* The first-party Messages API (body with ``model``, ``anthropic-version`` header,
  ``/v1/messages``, ``/v1/messages/count_tokens``) at
  ``https://bedrock-mantle.{region}.api.aws/anthropic`` (``base_url`` /
  ``ANTHROPIC_BEDROCK_MANTLE_BASE_URL`` replace it); region: option ``region``, ``AWS_REGION``,
  ``AWS_DEFAULT_REGION``. Model ids are Bedrock's (``anthropic.claude-…``).
* Credentials in the AWS precedence (``llmbridge.auth.aws``): ``api_key``, explicit AWS credentials or ``profile``
  (SigV4, service ``bedrock-mantle``), ``AWS_BEARER_TOKEN_BEDROCK`` then
  ``ANTHROPIC_AWS_API_KEY`` (bearer), the default AWS credential chain (SigV4).
* Mantle serves no ``/v1/models`` (the SDK has none) and none of Anthropic's server tools.
"""

from __future__ import annotations

from ...auth.aws import AWS_OPTIONS, BEDROCK_KEY_VAR, require_region
from ..config import ProviderConfig
from ..hosts.aws import mantle_url
from ..option_names import declare_options
from .base import CLOUD_OPTIONS, CountsTokensRoute, env_of, first
from .credentials import aws_credential

__all__ = ["AnthropicBedrockMantleProvider", "create"]

NAME = "anthropic-bedrock-mantle"


class AnthropicBedrockMantleProvider(CountsTokensRoute):
    hosted_tools: frozenset[str] = frozenset()

    def __init__(self, config: ProviderConfig, *, name: str = NAME) -> None:
        env = env_of(config)
        credential, region = aws_credential(
            config, provider=name, service="bedrock-mantle",
            key_vars=(BEDROCK_KEY_VAR, "ANTHROPIC_AWS_API_KEY"),
        )  # fmt: skip
        base_url = first(config.base_url, env.get("ANTHROPIC_BEDROCK_MANTLE_BASE_URL"))
        if base_url is None:
            base_url = mantle_url(require_region(region, provider=name)) + "/anthropic"
        super().__init__(config, name=name, base_url=base_url, credential=credential)

    def messages_url(self, model: str) -> str:
        return f"{self.base_url}/v1/messages"


def create(config: ProviderConfig) -> AnthropicBedrockMantleProvider:
    """Registry factory for ``anthropic-bedrock-mantle``."""
    return AnthropicBedrockMantleProvider(config)


declare_options(create, CLOUD_OPTIONS | AWS_OPTIONS)
