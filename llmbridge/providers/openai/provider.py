"""The Chat Completions provider: one class for ``openai`` and every compatible preset.

Rules: the key and base URL are resolved once, here, from the ``ProviderConfig`` (key variables
of the preset; no key is sent to local servers that need none); the key is kept as a
``Secret`` and revealed only into the request headers. Where requests go is ``endpoints.py``'s
job: Azure deployment URLs (``{endpoint}/openai/deployments/{model}/chat/completions?api-version=``)
or the v1 API (``{endpoint}/openai/v1/chat/completions``), a base URL's ``{region}``. Azure sends
a key as ``api-key``; an Entra ID ``token_provider`` / ``auth`` replaces it (``Authorization:
Bearer``, through the provider's ``auth``; a key variable in the environment is then not sent).
``create`` builds ``openai``; ``preset_factory(name)`` builds any row of ``presets.PRESETS`` (the
registry's hook; a Responses row is built by ``openai_responses.ResponsesPresetProvider``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import httpx

from ...auth import config_auth, key_or_auth
from ...errors import APIError, ConfigurationError
from ...events import RateLimit
from ...model_info import ModelInfo
from ...request import ChatRequest
from ...secrets import Secret
from ..base import AnyDecoder, Capabilities, HttpRequest, ProviderFactory
from ..config import ProviderConfig
from ..option_names import declare_options
from ..prepared import Prepared
from ..url_paths import path_segment
from .decode import ChatCompletionsDecoder
from .endpoints import AZURE_API_VERSION, resolve_endpoint
from .errors import map_http_error
from .hosted import search_tools
from .model_list import parse_model_list
from .presets import PRESET_OPTIONS, PRESETS, Preset, resolve_preset
from .request import build_body
from .usage import read_rate_limit
from .whole import ChatWholeDecoder, whole_body

__all__ = ["AZURE_API_VERSION", "OpenAIChatProvider", "create", "preset_factory"]


_REASONING_MODEL_PREFIXES = ("o1", "o3", "o4", "gpt-5")
_GEMINI_HOST = "generativelanguage.googleapis.com"


class OpenAIChatProvider:
    """Chat Completions over one preset (``openai``, ``groq``, ``ollama``…)."""

    def __init__(
        self,
        *,
        name: str,
        preset: Preset,
        base_url: str,
        api_key: Secret | None,
        headers: Mapping[str, str] | None = None,
        api_version: str | None = None,
        auth: httpx.Auth | None = None,
    ) -> None:
        self.name = name
        self.preset = preset
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self._headers = dict(headers or {})
        self._api_version = api_version
        self.auth = auth
        """Run on every request (``llmbridge.auth``): a custom ``httpx.Auth``, an Entra ID
        ``token_provider``..."""

    @classmethod
    def from_config(cls, name: str, config: ProviderConfig) -> OpenAIChatProvider:
        preset = resolve_preset(name, config.options)
        env = os.environ if config.env is None else config.env
        endpoint = resolve_endpoint(
            name, preset, base_url=config.base_url, options=config.options, env=env
        )
        if _GEMINI_HOST in endpoint.base_url and "gemini_signatures" not in config.options:
            preset = replace(preset, gemini_signatures=True)  # Gemini's OpenAI endpoint
        auth = config_auth(config)
        if preset.azure:  # a key or an Entra ID token, never both (the Azure host's rule)
            key_or_auth(config, provider=name, key_vars=(), required=False)
        key = config.key(*preset.key_vars, provider=name, required=preset.key_required)
        return cls(
            name=name,
            preset=preset,
            base_url=endpoint.base_url,
            api_key=key,
            headers=config.headers,
            api_version=endpoint.api_version,
            auth=auth,
        )

    def __repr__(self) -> str:
        return f"OpenAIChatProvider(name={self.name!r}, base_url={self.base_url!r})"

    def capabilities(self, model: str) -> Capabilities:
        reasoning = self.preset.reasoning or model.startswith(_REASONING_MODEL_PREFIXES)
        return Capabilities(
            native_tools=self.preset.native_tools,
            reasoning=reasoning,
            images=self.preset.images,
            json_mode="schema" if self.preset.json_schema else "object",
            hosted_tools=search_tools(model, style=self.preset.web_search),
            rescue_tool_calls=self.preset.rescue_tool_calls,
        )

    def _auth_headers(self, headers: dict[str, str]) -> dict[str, str]:
        if self._api_key is not None:
            if self.preset.auth == "api-key":
                headers["api-key"] = self._api_key.reveal()
            else:
                headers["authorization"] = f"Bearer {self._api_key.reveal()}"
        headers.update(self._headers)
        return headers

    def prepare(self, request: ChatRequest) -> Prepared:
        whole = request.stream is False  # a whole answer (whole.py)
        accept = "application/json" if whole else "text/event-stream"
        headers = self._auth_headers({"content-type": "application/json", "accept": accept})
        body, warnings = build_body(request=request, preset=self.preset, provider=self.name)
        http = HttpRequest(
            "POST",
            self._url(request.model),
            headers=headers,
            json=whole_body(body) if whole else body,
            auth=self.auth,
        )
        new_decoder: Callable[[], AnyDecoder] = lambda: self.new_decoder(request)  # noqa: E731
        if whole:
            stream_decoder = new_decoder
            new_decoder = lambda: ChatWholeDecoder(stream_decoder(), provider=self.name)  # noqa: E731
        return Prepared(
            http=http,
            new_decoder=new_decoder,
            warnings=tuple(warnings),
            framing="whole" if whole else "sse",
            read_rate_limit=read_rate_limit,
        )

    def build_request(self, request: ChatRequest) -> HttpRequest:
        """``prepare(request).http`` (the protocol before ``prepare``)."""
        return self.prepare(request).http

    def _url(self, model: str) -> str:
        if self._api_version is None:  # every preset, and Azure's v1 API
            return f"{self.base_url}/chat/completions"
        deployment = path_segment(model, provider=self.name, what="deployment name")
        return (
            f"{self.base_url}/openai/deployments/{deployment}/chat/completions"
            f"?api-version={self._api_version}"
        )

    def read_rate_limit(self, headers: Mapping[str, str]) -> RateLimit | None:
        return read_rate_limit(headers)

    def models_request(self, cursor: str | None) -> HttpRequest:
        url = f"{self.base_url}/models"
        if self._api_version is not None:
            url = f"{self.base_url}/openai/models?api-version={self._api_version}"
        headers = self._auth_headers({"accept": "application/json"})
        return HttpRequest(method="GET", url=url, headers=headers, json=None)

    def parse_models(self, data: Any) -> tuple[list[ModelInfo], str | None]:
        return parse_model_list(data, provider=self.name)

    def new_decoder(self, request: ChatRequest) -> ChatCompletionsDecoder:
        return ChatCompletionsDecoder(
            provider=self.name,
            use_index=self.preset.sends_index,
        )

    def map_error(self, *, status: int, headers: Mapping[str, str], body: bytes) -> APIError:
        error = map_http_error(provider=self.name, status=status, headers=headers, body=body)
        if status == 500 and self.preset.server_errors_repeat:
            error.retryable = False  # the same request fails the same way: say so at once
        return error


def create(config: ProviderConfig) -> OpenAIChatProvider:
    """Registry factory for ``openai`` (Chat Completions)."""
    return OpenAIChatProvider.from_config("openai", config)


def preset_factory(name: str) -> ProviderFactory:
    """The registry hook: a factory building the provider for preset ``name``."""
    if name not in PRESETS:
        raise ConfigurationError(f"unknown OpenAI-compatible preset {name!r}")

    if PRESETS[name].api == "responses":  # the registry sends those to openai_responses
        raise ConfigurationError(f"preset {name!r} is a Responses API row, not Chat Completions")

    def factory(config: ProviderConfig) -> OpenAIChatProvider:
        return OpenAIChatProvider.from_config(name, config)

    factory.__name__ = f"create_{name.replace('-', '_')}"
    return declare_options(factory, PRESET_OPTIONS)
