"""The ``openai-responses`` provider: OpenAI's Responses API (``POST /v1/responses``).

Follows https://platform.openai.com/docs/api-reference/responses.

Rules: the key (``OPENAI_API_KEY`` or ``api_key``) and base URL (default
``https://api.openai.com/v1``, ``base_url`` to change it) are resolved once, at construction;
the key is held as a ``Secret`` and revealed only into the ``Authorization`` header. Options
``organization`` and ``project`` become the ``OpenAI-Organization`` / ``OpenAI-Project``
headers; configured ``headers`` are added last. Background mode (``ChatRequest.background``)
makes it ``Resumable`` (``resume.py``): its streams resume after a break, ``Client.resume``
continues one from elsewhere, and ``cancel_on_close`` stops one; every Responses preset has it.
``compaction`` (bool) says whether the host
compacts server-side (``compaction=``): default true on OpenAI and ``azure-responses``, false on
other preset hosts; a compatible host without it (``base_url``) sets it false to be refused
before sending.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from ...auth import config_auth, key_or_auth
from ...errors import APIError, ConfigurationError
from ...events import RateLimit, ToolSearchCall
from ...messages import ChatMessage
from ...model_info import ModelInfo
from ...parts import RawPart, ReasoningPart
from ...request import ChatRequest
from ...secrets import Secret
from ...tool_spec import ToolSpec
from ..base import Capabilities, HttpRequest, ProviderFactory, read_token_count
from ..config import ProviderConfig
from ..openai import (
    PRESET_OPTIONS,
    map_http_error,
    parse_model_list,
    read_rate_limit,
    resolve_endpoint,
    resolve_preset,
)
from ..option_names import declare_options
from ..prepared import Prepared
from .decode import ResponsesDecoder
from .hosted import HOSTED_TOOLS
from .messages import PROVIDER_NAME
from .request import build_body, count_tokens_body
from .resume import BackgroundDecoder, cancel_request, resume_request
from .tool_search import answer_item
from .whole import ResponsesWholeDecoder, whole_body

__all__ = [
    "DEFAULT_BASE_URL",
    "OpenAIResponsesProvider",
    "ResponsesPresetProvider",
    "create",
    "responses_preset_factory",
]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5", "codex", "gpt-oss")


class OpenAIResponsesProvider:
    """OpenAI Responses API adapter (stateless: ``store: false`` by default)."""

    name = PROVIDER_NAME
    _key_header = "Authorization"
    _hosted: frozenset[str] = HOSTED_TOOLS
    _counts_tokens = True
    _compacts = True

    def __init__(self, config: ProviderConfig) -> None:
        self._key: Secret | None = config.key("OPENAI_API_KEY", provider=self.name)
        self._compacts = bool(config.options.get("compaction", True))
        self.auth = config_auth(config)
        self.base_url = (config.base_url or DEFAULT_BASE_URL).rstrip("/")
        self._init_headers(config)

    def _init_headers(self, config: ProviderConfig) -> None:
        headers: dict[str, str] = {}
        for option, header in (
            ("organization", "OpenAI-Organization"),
            ("project", "OpenAI-Project"),
        ):
            value = config.options.get(option)
            if isinstance(value, str) and value:
                headers[header] = value
        headers.update(config.headers)
        self._extra_headers = headers

    def __repr__(self) -> str:
        return f"OpenAIResponsesProvider(base_url={self.base_url!r})"

    def tool_search_answer(
        self,
        call: ToolSearchCall,
        found: Sequence[ToolSpec],
        *,
        namespaces: Mapping[str, str] | None = None,
    ) -> ChatMessage:
        """The app's answer to a client tool search: a ``tool_search_output`` item."""
        item = answer_item(call, found, namespaces)
        return ChatMessage(role="tool", content=[RawPart(provider=PROVIDER_NAME, data=item)])

    def capabilities(self, model: str) -> Capabilities:
        return Capabilities(
            native_tools=True,
            reasoning=model.removeprefix("openai.").startswith(_REASONING_PREFIXES),
            hosted_tools=self._hosted,
            compaction=self._compacts,  # the API answers for a model without it
        )

    def _auth_headers(self, headers: dict[str, str]) -> dict[str, str]:
        if self._key is not None:
            key = self._key.reveal()
            header = self._key_header
            headers[header] = f"Bearer {key}" if header == "Authorization" else key
        headers.update(self._extra_headers)
        return headers

    def count_tokens_request(self, request: ChatRequest) -> HttpRequest:
        if not self._counts_tokens:
            raise ConfigurationError(
                f"provider {self.name!r} has no token-counting endpoint", provider=self.name
            )
        headers = self._auth_headers(
            {"Content-Type": "application/json", "Accept": "application/json"}
        )
        url = f"{self.base_url}/responses/input_tokens"
        return HttpRequest(
            method="POST",
            url=url,
            headers=headers,
            json=count_tokens_body(self._own_history(request)),
        )

    def parse_token_count(self, data: Any) -> int:
        return read_token_count(data, "input_tokens", provider=self.name)

    def read_rate_limit(self, headers: Mapping[str, str]) -> RateLimit | None:
        return read_rate_limit(headers)

    def models_request(self, cursor: str | None) -> HttpRequest:
        headers = self._auth_headers({"Accept": "application/json"})
        return HttpRequest(method="GET", url=f"{self.base_url}/models", headers=headers, json=None)

    def parse_models(self, data: Any) -> tuple[list[ModelInfo], str | None]:
        return parse_model_list(data, provider=self.name)  # the same /models as Chat Completions

    def _own_history(self, request: ChatRequest) -> ChatRequest:
        """``request`` with this host's raw items and reasoning tagged as the Responses format
        the encoder sends back (a preset such as ``azure-responses`` tags them with its own
        name, and the encoder keeps only ``openai-responses`` ones)."""
        if self.name == PROVIDER_NAME:
            return request
        mine = self.name

        def retag(part: Any) -> Any:
            if isinstance(part, RawPart | ReasoningPart) and part.provider == mine:
                return part.model_copy(update={"provider": PROVIDER_NAME})
            return part

        messages = [
            m.model_copy(update={"content": [retag(p) for p in m.content]})
            if any(isinstance(p, RawPart | ReasoningPart) for p in m.content)
            else m
            for m in request.messages
        ]
        return request.model_copy(update={"messages": messages})

    def prepare(self, request: ChatRequest) -> Prepared:
        headers = self._auth_headers({"Content-Type": "application/json"})  # transport: Accept
        body, warnings = build_body(self._own_history(request))
        if request.stream is False:  # a whole answer (whole.py)
            http = HttpRequest(
                "POST",
                f"{self.base_url}/responses",
                headers={**headers, "Accept": "application/json"},
                json=whole_body(body),
                auth=self.auth,
            )
            return Prepared(
                http=http,
                new_decoder=lambda: ResponsesWholeDecoder(ResponsesDecoder(), provider=self.name),
                warnings=tuple(warnings),
                framing="whole",
                read_rate_limit=read_rate_limit,
            )
        http = HttpRequest(
            "POST", f"{self.base_url}/responses", headers=headers, json=body, auth=self.auth
        )
        return Prepared(
            http=http,
            new_decoder=BackgroundDecoder if request.background else ResponsesDecoder,
            warnings=tuple(warnings),
            read_rate_limit=read_rate_limit,
        )

    def build_request(self, request: ChatRequest) -> HttpRequest:
        """``prepare(request).http`` (the protocol before ``prepare``)."""
        return self.prepare(request).http

    def new_decoder(self, request: ChatRequest) -> ResponsesDecoder:
        """A decoder of one stream (the protocol before ``prepare``)."""
        return BackgroundDecoder() if request.background else ResponsesDecoder()

    def resume_request(self, response_id: str, *, after: int | None) -> HttpRequest:
        headers = self._auth_headers({})  # the transport asks for text/event-stream
        return resume_request(
            base_url=self.base_url, headers=headers, response_id=response_id, after=after
        )

    def cancel_request(self, response_id: str) -> HttpRequest:
        headers = self._auth_headers(
            {"Content-Type": "application/json", "Accept": "application/json"}
        )
        return cancel_request(base_url=self.base_url, headers=headers, response_id=response_id)

    def resume_decoder(self, *, response_id: str, after: int | None) -> BackgroundDecoder:
        return BackgroundDecoder(response_id=response_id, after=after)

    def map_error(self, *, status: int, headers: Mapping[str, str], body: bytes) -> APIError:
        return map_http_error(provider=self.name, status=status, headers=headers, body=body)


def create(config: ProviderConfig) -> OpenAIResponsesProvider:
    """Registry factory for ``openai-responses``."""
    return OpenAIResponsesProvider(config)


declare_options(create, {"organization", "project", "hosted_tools", "compaction"})


class ResponsesPresetProvider(OpenAIResponsesProvider):
    """The Responses API on another host: a row of the preset table with ``api="responses"``
    (``azure-responses``, ``bedrock-mantle-responses``). Its base URL and key come from the row
    (``openai.endpoints``); the key is sent the row's way (Azure: ``api-key``), an ``auth`` /
    ``token_provider`` (Entra ID) replaces it. Such hosts run none of OpenAI's built-in tools
    unless the ``hosted_tools`` option names them, compact only on Azure unless the
    ``compaction`` option says so, and count no tokens."""

    _counts_tokens = False

    def __init__(self, name: str, config: ProviderConfig) -> None:
        preset = resolve_preset(name, config.options)
        env = os.environ if config.env is None else config.env
        endpoint = resolve_endpoint(
            name, preset, base_url=config.base_url, options=config.options, env=env
        )
        self.name = name
        self._key, self.auth = key_or_auth(
            config, provider=name, key_vars=preset.key_vars, required=preset.key_required
        )
        self._key_header = "api-key" if preset.auth == "api-key" else "Authorization"
        self._hosted = frozenset(str(h) for h in config.options.get("hosted_tools") or ())
        self._compacts = bool(config.options.get("compaction", name == "azure-responses"))
        self.base_url = endpoint.base_url
        self._init_headers(config)

    def __repr__(self) -> str:
        return f"ResponsesPresetProvider(name={self.name!r}, base_url={self.base_url!r})"


def responses_preset_factory(name: str) -> ProviderFactory:
    """The registry's factory for a Responses row of the preset table."""

    def factory(config: ProviderConfig) -> ResponsesPresetProvider:
        return ResponsesPresetProvider(name, config)

    factory.__name__ = f"create_{name.replace('-', '_')}"
    return declare_options(factory, PRESET_OPTIONS | {"compaction"})
