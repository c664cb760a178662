"""What every Claude-on-a-cloud provider shares: the Anthropic body, headers, decoder, errors.

Follows the official ``anthropic`` SDK (2.14)'s cloud clients, which are thin subclasses of
one Messages client changing only the URL, the credential and a few body fields. Rules:

* One encoder (``build_body``), one decoder (``AnthropicDecoder``), one error vocabulary
  (``map_http_error``), all from the ``providers.anthropic`` package's face (its ``__init__``,
  never the modules behind it); a cloud module says only where the
  request goes (``messages_url``, ``count_url``, ``models_url``), how the body differs
  (``adapt_body``: ``anthropic_version`` in the body and no ``model`` on Bedrock and Vertex) and
  which credential it carries (``Credential``: key headers and/or an ``httpx.Auth``, picked by
  the host's one precedence in ``llmbridge.auth``: ``credentials.py``). Hosts' URLs, model
  paths and error tables are ``providers.hosts``'.
* Keys are ``Secret``s, revealed only into request headers; tokens, SigV4 and Google ADC are an
  ``httpx.Auth`` on ``HttpRequest.auth``, run by the transport on every attempt.
* What a cloud lacks is refused before sending: server tools it does not run (its
  ``hosted_tools``, through ``Capabilities``; the option ``hosted_tools`` widens or narrows the
  set), token counting or model listing where it has no route (``ConfigurationError``, by the
  classes' missing ``CountsTokens`` / ``ListsModels`` methods).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import httpx

from ...errors import APIError, ConfigurationError
from ...events import RateLimit
from ...model_info import ModelInfo
from ...request import ChatRequest
from ...secrets import Secret
from ..anthropic import (
    API_VERSION,
    COUNT_FIELDS,
    HOSTED_TOOLS,
    PAGE_SIZE,
    AnthropicDecoder,
    AnthropicWholeDecoder,
    MessagesBody,
    ToolSearchAnswers,
    build_body,
    build_headers,
    map_http_error,
    model_capabilities,
    parse_model_list,
    read_rate_limit,
    whole_body,
)
from ..base import AnyDecoder, Capabilities, HttpRequest, read_token_count
from ..config import ProviderConfig
from ..prepared import Framing, Prepared

__all__ = [
    "API_VERSION",
    "AnthropicCloudProvider",
    "CountsTokensRoute",
    "Credential",
    "ListsModelsRoute",
    "env_of",
    "first",
]

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


CLOUD_OPTIONS = frozenset({"api_version", "betas", "hosted_tools"})
"""The options every Claude-on-a-cloud provider takes beside its credentials' (declared with
``llmbridge.providers.option_names.declare_options`` by each cloud's ``create``)."""


def env_of(config: ProviderConfig) -> Mapping[str, str]:
    """Where the environment is read (``config.env``, else ``os.environ`` at build time)."""
    return os.environ if config.env is None else config.env


def first(*values: Any) -> str | None:
    """The first non-empty value, as a string."""
    for value in values:
        if value:
            return str(value)
    return None


@dataclass(frozen=True, slots=True)
class Credential:
    """How a cloud request proves who sends it: a key sent in headers, and/or an ``httpx.Auth``
    (a token provider, Google ADC, AWS SigV4) run on each attempt."""

    key: Secret | None = None
    key_headers: tuple[str, ...] = ("authorization",)
    """Headers that carry ``key``: ``authorization`` as ``Bearer <key>``, others verbatim."""
    auth: httpx.Auth | None = field(default=None, repr=False)

    def headers(self) -> dict[str, str]:
        if self.key is None:
            return {}
        key = self.key.reveal()
        return {
            name: f"Bearer {key}" if name == "authorization" else key for name in self.key_headers
        }


class AnthropicCloudProvider(ToolSearchAnswers):
    """The Messages API on a cloud: subclasses give the URLs, the body changes, the credential."""

    framing: Framing = "sse"
    accept = "text/event-stream"
    version_in_body = False
    """``anthropic_version`` goes in the body (Bedrock, Vertex), not the header."""
    betas_in_body = False
    """Beta flags also go in the body as ``anthropic_beta`` (Bedrock), besides the header."""
    hosted_tools: frozenset[str] = HOSTED_TOOLS
    """Server tools this cloud runs (``llmbridge.hosted`` kinds)."""

    def __init__(
        self,
        config: ProviderConfig,
        *,
        name: str,
        base_url: str,
        credential: Credential,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.name = name
        self.base_url = base_url.rstrip("/")
        self._credential = credential
        options = config.options
        self._api_version = str(options.get("api_version") or API_VERSION)
        found = _DATE.search(self._api_version)  # "bedrock-2023-05-31" → its date decides
        self._sampling_version = found.group(0) if found else self._api_version
        betas = options.get("betas") or []
        if isinstance(betas, str):
            betas = [b.strip() for b in betas.split(",") if b.strip()]
        self._betas = [str(b) for b in betas]
        self._headers = {**(headers or {}), **config.headers}
        hosted = options.get("hosted_tools")
        if hosted is not None:
            self.hosted_tools = frozenset(str(h) for h in hosted)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, base_url={self.base_url!r})"

    # -- what a cloud module gives -------------------------------------------------------
    def messages_url(self, model: str) -> str:
        raise NotImplementedError

    def adapt_body(self, body: dict[str, Any], *, betas: list[str], count: bool) -> dict[str, Any]:
        """The Messages body as this cloud takes it (default: unchanged)."""
        if self.version_in_body:
            body["anthropic_version"] = self._api_version
        if self.betas_in_body and betas and not count:
            body["anthropic_beta"] = list(dict.fromkeys(betas))
        return body

    # -- shared --------------------------------------------------------------------------
    def capabilities(self, model: str) -> Capabilities:
        return model_capabilities(model, hosted_tools=self.hosted_tools)

    def _betas_for(self, body_betas: list[str]) -> list[str]:
        """The configured beta flags, the body's (``MessagesBody.betas``), the headers'."""
        betas = [*self._betas, *body_betas]
        for name, value in self._headers.items():
            if name.lower() == "anthropic-beta":
                betas.extend(b.strip() for b in value.split(",") if b.strip())
        return list(dict.fromkeys(betas))

    def _request_headers(self, *, accept: str, betas: list[str]) -> dict[str, str]:
        headers = build_headers(
            key=None,
            api_version=None if self.version_in_body else self._api_version,
            auth="bearer",
            betas=betas,
            extra={k: v for k, v in self._headers.items() if k.lower() != "anthropic-beta"},
        )
        headers.update(self._credential.headers())
        headers["accept"] = accept
        return headers

    def _body(self, request: ChatRequest) -> MessagesBody:
        return build_body(request, provider_name=self.name, api_version=self._sampling_version)

    def prepare(self, request: ChatRequest) -> Prepared:
        """The Messages call on this cloud, encoded once (body, warnings, beta flags)."""
        body, warnings, body_betas = self._body(request)
        betas = self._betas_for(body_betas)
        whole = request.stream is False  # a whole answer: the cloud's non-streaming route
        sent = self.adapt_body(body, betas=betas, count=False)
        http = HttpRequest(
            method="POST",
            url=self.whole_url(request.model) if whole else self.messages_url(request.model),
            headers=self._request_headers(
                accept="application/json" if whole else self.accept, betas=betas
            ),
            json=whole_body(sent) if whole else sent,
            auth=self._credential.auth,
        )
        return Prepared(
            http=http,
            new_decoder=self.whole_decoder if whole else self.stream_decoder,
            warnings=tuple(warnings),
            framing="whole" if whole else self.framing,
            read_rate_limit=read_rate_limit,
        )

    def whole_url(self, model: str) -> str:
        """Where a whole (non-streaming) Messages call goes (default: ``messages_url``)."""
        return self.messages_url(model)

    def whole_decoder(self) -> AnyDecoder:
        """A decoder of one whole answer (the Messages body, on every cloud)."""
        return AnthropicWholeDecoder(provider=self.name)

    def stream_decoder(self) -> AnyDecoder:
        """A decoder of one answer's body (default: the Messages SSE decoder)."""
        return AnthropicDecoder(provider=self.name)

    def build_request(self, request: ChatRequest) -> HttpRequest:
        """``prepare(request).http`` (the protocol before ``prepare``)."""
        return self.prepare(request).http

    def new_decoder(self, request: ChatRequest) -> AnyDecoder:
        """``stream_decoder()`` (the protocol before ``prepare``)."""
        return self.stream_decoder()

    def read_rate_limit(self, headers: Mapping[str, str]) -> RateLimit | None:
        return read_rate_limit(headers)

    def map_error(self, *, status: int, headers: Mapping[str, str], body: bytes) -> APIError:
        return map_http_error(provider=self.name, status=status, headers=headers, body=body)


class CountsTokensRoute(AnthropicCloudProvider):
    """A cloud with Anthropic's token counting (``count_url``)."""

    def count_url(self, model: str) -> str:
        return f"{self.base_url}/v1/messages/count_tokens"

    def count_tokens_request(self, request: ChatRequest) -> HttpRequest:
        encoded = self._body(request)
        body = {k: v for k, v in encoded.body.items() if k in COUNT_FIELDS}
        betas = self._betas_for(encoded.betas)
        return HttpRequest(
            method="POST",
            url=self.count_url(request.model),
            headers=self._request_headers(accept="application/json", betas=betas),
            json=self.adapt_body(body, betas=betas, count=True),
            auth=self._credential.auth,
        )

    def parse_token_count(self, data: Any) -> int:
        return read_token_count(data, "input_tokens", provider=self.name)


class ListsModelsRoute(AnthropicCloudProvider):
    """A cloud serving Anthropic's ``GET /v1/models``."""

    def models_request(self, cursor: str | None) -> HttpRequest:
        query: dict[str, str | int] = {"limit": PAGE_SIZE}
        if cursor is not None:
            query["after_id"] = cursor
        headers = self._request_headers(accept="application/json", betas=list(self._betas))
        del headers["content-type"]
        url = f"{self.base_url}/v1/models?{urlencode(query)}"
        return HttpRequest(
            method="GET", url=url, headers=headers, json=None, auth=self._credential.auth
        )

    def parse_models(self, data: Any) -> tuple[list[ModelInfo], str | None]:
        return parse_model_list(data, provider=self.name)


def required(value: str | None, *, provider: str, what: str, how: str) -> str:
    """``value``, or a ``ConfigurationError`` saying how to give it."""
    if not value:
        raise ConfigurationError(f"provider {provider!r} needs {what}: {how}", provider=provider)
    return value
