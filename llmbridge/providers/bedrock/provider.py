"""The ``bedrock`` provider: Converse streaming on Amazon Bedrock, wired.

``POST https://bedrock-runtime.{region}.amazonaws.com/model/{modelId}/converse-stream`` with
the body of ``request.py``; the answer is an AWS event stream (``framing = "aws-eventstream"``,
read by botocore's decoder in ``llmbridge.stream.aws_eventstream``) decoded by ``decode.py``.
Rules:

* Hosts, model ids and the ``/model/{id}`` path are the AWS host's (``providers.hosts.aws``):
  the id is encoded as botocore encodes a URI label, so an ARN's ``:`` and ``/`` and a
  version's ``:`` travel encoded (``…-v1%3A0``); an id that is empty, ``.`` or ``..`` (also once
  ``count_tokens`` drops a profile's geography: ``us..``) is refused before sending.
* Credentials and region come once, when the provider is built, from
  ``llmbridge.auth.aws.aws_auth`` (service ``bedrock``; the AWS precedence every AWS-hosted
  provider shares): the app's own ``auth`` wins; a ``profile`` or AWS keys given as options
  sign with SigV4 (with an ``api_key`` as well: a ``ConfigurationError``); else a Bedrock API
  key (``api_key`` or ``AWS_BEARER_TOKEN_BEDROCK``) as a bearer token, else botocore's
  credential chain and SigV4. The ``httpx.Auth`` is the provider's ``auth`` attribute, which
  the transport runs on every attempt (each retry signed afresh). No key in any header here.
* Options: ``region``, ``profile``, AWS keys (``llmbridge.auth.aws``); ``base_url`` (a VPC or
  FIPS runtime endpoint) and ``control_base_url`` (the ``bedrock`` control plane, for
  ``list_models``); ``structured_output`` (force native JSON-schema output on or off); ``native_tools`` (force the
  model's own tool calling on or off);
  ``tool_results_as_text``; and the body fields of ``request.OPTION_FIELDS``.
* ``count_tokens`` → ``POST /model/{id}/count-tokens`` with ``input.converse`` (messages, system,
  toolConfig, additionalModelRequestFields): CountTokens takes a foundation model id (or an
  ARN, sent as is), so an inference profile's geography prefix is dropped.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

import httpx

from ...auth.aws import AWS_OPTIONS
from ...errors import APIError
from ...model_info import ModelInfo
from ...request import ChatRequest
from ..base import Capabilities, HttpRequest, read_token_count
from ..config import ProviderConfig
from ..hosts.aws import (
    BATCH_OPTIONS,
    base_id,
    batch_settings,
    control_url,
    counted_model,
    model_path,
    runtime_url,
)
from ..option_names import declare_options
from ..prepared import Framing, Prepared
from .decode import BedrockDecoder
from .errors import map_http_error
from .hosted import hosted_kinds
from .model_list import PAGE_SIZE, PROFILES, parse_model_list
from .models import family, reasoning_fields
from .request import OPTION_FIELDS, build_body, structured
from .whole import WHOLE_ACTION, ConverseWholeDecoder

__all__ = ["BedrockProvider", "create"]

_NO_STREAMING_TOOLS: tuple[str, ...] = (
    "amazon.titan",
    "anthropic.claude-v2",
    "anthropic.claude-instant",
    "meta.llama2",
    "meta.llama3-",
    "cohere.command-text",
    "cohere.command-light",
    "ai21.j2",
    "ai21.jamba-instruct",
    "mistral.mistral-7b",
    "mistral.mixtral",
    "mistral.mistral-large",
    "mistral.mistral-small",
)
"""Models that take no tools in ``ConverseStream`` (AWS's "supported models and model
features" table: no tool use, or tool use in ``Converse`` only — Llama 3.x, Mistral Large):
``tool_mode="auto"`` asks in the prompt instead. The ``native_tools`` option overrides."""
_COUNT_FIELDS = ("messages", "system", "toolConfig", "additionalModelRequestFields")


class BedrockProvider:
    """Converse on Bedrock; ``auth`` is the ``httpx.Auth`` the transport runs on each attempt."""

    name = "bedrock"
    framing: Framing = "aws-eventstream"

    def __init__(
        self,
        config: ProviderConfig,
        *,
        region: str,
        auth: httpx.Auth | None,
        name: str = "bedrock",
    ) -> None:
        self.name = name
        self.region = region
        self.auth = auth
        self._options: Mapping[str, Any] = config.options
        self._headers = dict(config.headers)
        runtime = config.base_url or runtime_url(region)
        control = config.options.get("control_base_url") or control_url(region)
        self._base = runtime.rstrip("/")
        self._control = str(control).rstrip("/")
        self.batch_settings = batch_settings(
            config.options, control_url=config.options.get("control_base_url")
        )
        """Batch inference's role, S3 prefix and control plane (``llmbridge.batch.bedrock``)."""

    def __repr__(self) -> str:
        return f"BedrockProvider(region={self.region!r}, base={self._base!r}, auth={type(self.auth).__name__})"

    def capabilities(self, model: str) -> Capabilities:
        override = self._options.get("native_tools")
        tools = not base_id(model).startswith(_NO_STREAMING_TOOLS)
        tools = tools if override is None else bool(override)
        reasoning, _ = reasoning_fields(model, effort=None, budget=None)
        probe = ChatRequest(model=model, messages=[])
        return Capabilities(
            native_tools=tools,
            reasoning=reasoning is not None,
            images=family(model) in ("anthropic", "amazon", "meta", "mistral", "google", "qwen"),
            json_mode="schema" if structured(probe, self._options) else "none",
            hosted_tools=hosted_kinds(model),
        )

    def _post(self, url: str, body: dict[str, Any], accept: str) -> HttpRequest:
        headers = {"content-type": "application/json", "accept": accept, **self._headers}
        return HttpRequest(method="POST", url=url, headers=headers, json=body, auth=self.auth)

    def prepare(self, request: ChatRequest) -> Prepared:
        body, warnings = build_body(request, provider=self.name, options=self._options)
        url = f"{self._base}{model_path(request.model, provider=self.name)}"
        if request.stream is False:  # a whole answer: Converse (whole.py)
            return Prepared(
                http=self._post(url + WHOLE_ACTION, body, "application/json"),
                new_decoder=lambda: ConverseWholeDecoder(
                    self.new_decoder(request), provider=self.name
                ),
                warnings=tuple(warnings),
                framing="whole",
            )
        return Prepared(
            http=self._post(url + "/converse-stream", body, "application/vnd.amazon.eventstream"),
            new_decoder=lambda: self.new_decoder(request),
            warnings=tuple(warnings),
            framing=self.framing,
        )

    def build_request(self, request: ChatRequest) -> HttpRequest:
        """``prepare(request).http`` (the protocol before ``prepare``)."""
        return self.prepare(request).http

    def new_decoder(self, request: ChatRequest) -> BedrockDecoder:
        """A decoder of one stream (the protocol before ``prepare``)."""
        return BedrockDecoder(provider=self.name, model=request.model)

    def map_error(self, *, status: int, headers: Mapping[str, str], body: bytes) -> APIError:
        return map_http_error(provider=self.name, status=status, headers=headers, body=body)

    def count_tokens_request(self, request: ChatRequest) -> HttpRequest:
        built = build_body(request, provider=self.name, options=self._options).body
        converse = {k: built[k] for k in _COUNT_FIELDS if k in built}
        url = f"{self._base}{model_path(counted_model(request.model), provider=self.name)}"
        url += "/count-tokens"
        return self._post(url, {"input": {"converse": converse}}, "application/json")

    def parse_token_count(self, data: Any) -> int:
        return read_token_count(data, "inputTokens", provider=self.name)

    def models_request(self, cursor: str | None) -> HttpRequest:
        headers = {"accept": "application/json", **self._headers}
        if cursor is None:
            url = f"{self._control}/foundation-models"
        else:
            query: dict[str, str | int] = {"maxResults": PAGE_SIZE}
            token = cursor.removeprefix(PROFILES)
            if token:
                query["nextToken"] = token
            url = f"{self._control}/inference-profiles?{urlencode(query)}"
        return HttpRequest(method="GET", url=url, headers=headers, json=None)

    def parse_models(self, data: Any) -> tuple[list[ModelInfo], str | None]:
        return parse_model_list(data, provider=self.name)


def create(config: ProviderConfig) -> BedrockProvider:
    """Registry factory for ``bedrock``: region and auth from ``llmbridge.auth.aws`` (the AWS
    precedence: a ``profile`` or AWS keys given as options win over ``AWS_BEARER_TOKEN_BEDROCK``)."""
    aws = importlib.import_module("llmbridge.auth.aws")  # loads botocore only when it signs
    found = aws.aws_auth(config, service="bedrock", provider="bedrock")
    return BedrockProvider(config, region=found.region, auth=found.auth)


declare_options(
    create,
    AWS_OPTIONS
    | BATCH_OPTIONS
    | {"control_base_url", "structured_output", "tool_results_as_text", "native_tools"}
    | OPTION_FIELDS.keys()
    | set(OPTION_FIELDS.values()),
)
