"""``anthropic-bedrock:<model id>``: Claude on Amazon Bedrock through InvokeModelWithResponseStream.

Follows the ``anthropic`` SDK 2.14's ``AnthropicBedrock`` and
https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html.
Rules:

* ``POST https://bedrock-runtime.{region}.amazonaws.com/model/{id}/invoke-with-response-stream``
  (the id URL-quoted as the SDK does, ``:`` kept: foundation ids, inference profiles
  ``us.anthropic.…``, profile ARNs; empty, ``.`` and ``..`` refused: ``url_paths``); ``base_url``
  or ``ANTHROPIC_BEDROCK_BASE_URL`` replace the host.
* The Messages body without ``model`` and ``stream``, with ``anthropic_version`` (the SDK's
  ``2026-10-21``; ``api_version="bedrock-2023-05-31"`` for the older docs' value) and the beta
  flags twice, as the SDK sends them: ``anthropic-beta`` header and ``anthropic_beta`` field.
* Credentials and region as ``bedrock:`` (the AWS precedence of ``llmbridge.auth.aws``,
  signing service ``bedrock``): a Bedrock API key (``api_key`` or ``AWS_BEARER_TOKEN_BEDROCK``)
  as a bearer token, else SigV4. Region: option ``region``, ``AWS_REGION``,
  ``AWS_DEFAULT_REGION``, the profile's. Hosts, model paths and the error table are the AWS
  host's (``providers.hosts.aws``, ``providers.hosts.aws_errors``), shared with ``bedrock``.
* ``stream=False``: ``InvokeModel`` (``.../model/{id}/invoke``), whose answer is the Messages
  body (``anthropic.whole``).
* The body is an AWS event stream (``framing = "aws-eventstream"``); each ``chunk`` is one
  Anthropic event for the Anthropic decoder (``bedrock_stream``).
* Token counting: Bedrock's ``CountTokens`` (``/model/{id}/count-tokens``, ``input.invokeModel``
  carrying the InvokeModel body; a foundation id, the profile's geography dropped, as for
  ``bedrock``), which the SDK's client lacks. Bedrock lacks Anthropic's server tools
  (``hosted_tools`` empty; the option widens it) and ``/v1/models`` (list them with ``bedrock``).
"""

from __future__ import annotations

from base64 import b64encode
from collections.abc import Mapping
from typing import Any

import orjson

from ...auth.aws import AWS_OPTIONS, BEDROCK_KEY_VAR, require_region
from ...errors import APIError
from ...request import ChatRequest
from ..base import HttpRequest, read_token_count
from ..config import ProviderConfig
from ..hosts.aws import (
    BATCH_OPTIONS,
    SDK_SAFE,
    batch_settings,
    counted_model,
    model_path,
    runtime_url,
)
from ..hosts.aws_errors import map_http_error
from ..option_names import declare_options
from .base import CLOUD_OPTIONS, AnthropicCloudProvider, env_of, first
from .bedrock_stream import BedrockAnthropicDecoder
from .credentials import aws_credential

__all__ = ["AnthropicBedrockProvider", "create"]

NAME = "anthropic-bedrock"


class AnthropicBedrockProvider(AnthropicCloudProvider):
    framing = "aws-eventstream"
    accept = "application/json"  # the chunk payloads' type (the SDK's header)
    version_in_body = True
    betas_in_body = True
    hosted_tools: frozenset[str] = frozenset()

    def __init__(self, config: ProviderConfig, *, name: str = NAME) -> None:
        env = env_of(config)
        credential, region = aws_credential(
            config, provider=name, service="bedrock", key_vars=(BEDROCK_KEY_VAR,)
        )
        base_url = first(config.base_url, env.get("ANTHROPIC_BEDROCK_BASE_URL"))
        if base_url is None:
            base_url = runtime_url(require_region(region, provider=name))
        super().__init__(config, name=name, base_url=base_url, credential=credential)
        self.region = region
        self.batch_settings = batch_settings(config.options)
        """Batch inference's role and S3 prefix (``llmbridge.batch.bedrock``)."""

    def messages_url(self, model: str) -> str:
        path = model_path(model, provider=self.name, safe=SDK_SAFE)
        return f"{self.base_url}{path}/invoke-with-response-stream"

    def whole_url(self, model: str) -> str:
        """``InvokeModel``: the Messages body as the answer (``stream=False``)."""
        path = model_path(model, provider=self.name, safe=SDK_SAFE)
        return f"{self.base_url}{path}/invoke"

    def adapt_body(self, body: dict[str, Any], *, betas: list[str], count: bool) -> dict[str, Any]:
        body.pop("model", None)
        body.pop("stream", None)
        return super().adapt_body(body, betas=betas, count=count)

    def count_tokens_request(self, request: ChatRequest) -> HttpRequest:
        """Bedrock's ``CountTokens`` with the InvokeModel body (a blob: base64 in the JSON)."""
        body, _, body_betas = self._body(request)
        invoke = self.adapt_body(body, betas=self._betas_for(body_betas), count=False)
        model = counted_model(request.model)
        headers = self._request_headers(accept="application/json", betas=[])
        return HttpRequest(
            method="POST",
            url=f"{self.base_url}{model_path(model, provider=self.name)}/count-tokens",
            headers=headers,
            json={"input": {"invokeModel": {"body": b64encode(orjson.dumps(invoke)).decode()}}},
            auth=self._credential.auth,
        )

    def parse_token_count(self, data: Any) -> int:
        return read_token_count(data, "inputTokens", provider=self.name)

    def stream_decoder(self) -> BedrockAnthropicDecoder:
        return BedrockAnthropicDecoder(provider=self.name)

    def map_error(self, *, status: int, headers: Mapping[str, str], body: bytes) -> APIError:
        return map_http_error(provider=self.name, status=status, headers=headers, body=body)


def create(config: ProviderConfig) -> AnthropicBedrockProvider:
    """Registry factory for ``anthropic-bedrock``."""
    return AnthropicBedrockProvider(config)


declare_options(create, CLOUD_OPTIONS | AWS_OPTIONS | BATCH_OPTIONS)
