"""The ``anthropic`` provider: Claude through the Messages API (``POST /v1/messages``).

Follows https://platform.claude.com/docs/en/api/messages and the installed ``anthropic``
SDK (2.x) for headers. Rules: the key (``ANTHROPIC_API_KEY``) and every option are resolved
once, here; the key is kept as a ``Secret`` and only revealed into request headers.

Options (``Client(providers={"anthropic": {...}})``): ``api_key``, ``base_url`` (default
``https://api.anthropic.com``), ``headers`` (an ``anthropic-beta`` header there is merged with
``betas``), ``api_version`` (default ``2026-10-21``; ``"2023-06-01"`` keeps ``temperature`` /
``top_p``), ``auth`` (``"bearer"``, the SDK's scheme, or ``"x-api-key"`` for proxies that read
that header), ``betas`` (list or comma-separated string of ``anthropic-beta`` flags).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlencode

from ...auth import config_auth
from ...errors import APIError, ConfigurationError
from ...events import RateLimit
from ...model_info import ModelInfo
from ...request import ChatRequest
from ...secrets import Secret
from ..base import AnyDecoder, Capabilities, HttpRequest, read_token_count
from ..config import ProviderConfig
from ..option_names import declare_options
from ..prepared import Prepared
from .decode import AnthropicDecoder
from .errors import map_http_error
from .hosted import HOSTED_TOOLS
from .model_list import PAGE_SIZE, parse_model_list
from .models import base_model_name
from .request import API_VERSION, COUNT_FIELDS, build_body, build_headers
from .tool_search import ToolSearchAnswers
from .usage import read_rate_limit
from .whole import AnthropicWholeDecoder, whole_body

__all__ = ["DEFAULT_BASE_URL", "AnthropicProvider", "create", "model_capabilities"]

_NO_STRUCTURED_OUTPUTS = (
    "claude-2",
    "claude-instant",
    "claude-3",
    "claude-sonnet-4-0",
    "claude-sonnet-4-2025",
    "claude-opus-4-0",
    "claude-opus-4-2025",
)
"""Models before structured outputs (``output_config.format``: Opus 4.1, Sonnet 4.5, Haiku 4.5
and later take it): a ``response_format`` goes into the prompt instead."""

_NO_SERVER_TOOLS = (
    "claude-2",
    "claude-instant",
    "claude-3-opus",
    "claude-3-sonnet",
    "claude-3-haiku",
)
"""Models before Anthropic's server tools (web search came with Claude 3.5): hosted tool specs
are refused for them."""

DEFAULT_BASE_URL = "https://api.anthropic.com"
_AUTH_SCHEMES = ("bearer", "x-api-key")


def model_capabilities(model: str, *, hosted_tools: frozenset[str] = HOSTED_TOOLS) -> Capabilities:
    """What a Claude model can do, by its name (``hosted_tools``: the server tools the host
    runs; a cloud that runs fewer passes its own set). Names may carry a cloud's prefix
    (``us.anthropic.claude-…``, ``anthropic.claude-…``): it is skipped."""
    model = base_model_name(model)
    legacy = model.startswith(("claude-2", "claude-instant", "claude-3-haiku", "claude-3-5"))
    json_schema = not model.startswith(_NO_STRUCTURED_OUTPUTS)
    return Capabilities(
        native_tools=True,
        reasoning=not legacy,
        images=True,
        json_mode="schema" if json_schema else "none",
        hosted_tools=frozenset() if model.startswith(_NO_SERVER_TOOLS) else hosted_tools,
        compaction=not legacy,  # the API answers for a newer model without it
    )


class AnthropicProvider(ToolSearchAnswers):
    """Anthropic Messages API provider (streaming)."""

    key_vars: tuple[str, ...] = ("ANTHROPIC_API_KEY",)
    """Where the key is read when none is configured."""
    key_required = True
    default_api_version = API_VERSION

    def __init__(self, config: ProviderConfig, *, name: str = "anthropic") -> None:
        self.name = name
        self._key: Secret | None = config.key(
            *self.key_vars, provider=name, required=self.key_required
        )
        self.auth = config_auth(config)
        """An ``httpx.Auth`` run on every request (``llmbridge.auth``), beside or instead of a key."""
        self._base_url = (config.base_url or DEFAULT_BASE_URL).rstrip("/")
        options = config.options
        self._api_version = str(options.get("api_version") or self.default_api_version)
        auth = str(options.get("auth") or "bearer").lower()
        if auth not in _AUTH_SCHEMES:
            raise ConfigurationError(
                f"provider {name!r}: auth must be one of {', '.join(_AUTH_SCHEMES)} (got {auth!r})",
                provider=name,
            )
        self._auth = auth
        betas = options.get("betas") or []
        if isinstance(betas, str):
            betas = [b.strip() for b in betas.split(",") if b.strip()]
        self._betas = [str(b) for b in betas]
        self._headers = dict(config.headers)

    def __repr__(self) -> str:
        return f"AnthropicProvider(name={self.name!r}, base_url={self._base_url!r}, api_key={self._key!r})"

    def capabilities(self, model: str) -> Capabilities:
        return model_capabilities(model)

    def _request_headers(
        self, *, accept: str = "text/event-stream", betas: list[str] | None = None
    ) -> dict[str, str]:
        headers = build_headers(
            key=None if self._key is None else self._key.reveal(),
            api_version=self._api_version,
            auth=self._auth,
            betas=[*self._betas, *(betas or [])],
            extra=self._headers,
        )
        headers["accept"] = accept
        return headers

    def prepare(self, request: ChatRequest) -> Prepared:
        """The Messages call, encoded once: body, warnings and beta flags together."""
        body, warnings, betas = build_body(
            request, provider_name=self.name, api_version=self._api_version
        )
        whole = request.stream is False  # a whole answer (whole.py)
        accept = "application/json" if whole else "text/event-stream"
        http = HttpRequest(
            "POST",
            f"{self._base_url}/v1/messages",
            headers=self._request_headers(accept=accept, betas=betas),
            json=whole_body(body) if whole else body,
            auth=self.auth,
        )
        new_decoder: Callable[[], AnyDecoder] = lambda: AnthropicDecoder(provider=self.name)  # noqa: E731
        if whole:
            new_decoder = lambda: AnthropicWholeDecoder(provider=self.name)  # noqa: E731
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

    def count_tokens_request(self, request: ChatRequest) -> HttpRequest:
        encoded = build_body(request, provider_name=self.name, api_version=self._api_version)
        body = {k: v for k, v in encoded.body.items() if k in COUNT_FIELDS}
        headers = self._request_headers(accept="application/json", betas=encoded.betas)
        url = f"{self._base_url}/v1/messages/count_tokens"
        return HttpRequest(method="POST", url=url, headers=headers, json=body)

    def parse_token_count(self, data: Any) -> int:
        return read_token_count(data, "input_tokens", provider=self.name)

    def read_rate_limit(self, headers: Mapping[str, str]) -> RateLimit | None:
        return read_rate_limit(headers)

    def models_request(self, cursor: str | None) -> HttpRequest:
        query: dict[str, str | int] = {"limit": PAGE_SIZE}
        if cursor is not None:
            query["after_id"] = cursor
        headers = self._request_headers(accept="application/json")
        del headers["content-type"]
        url = f"{self._base_url}/v1/models?{urlencode(query)}"
        return HttpRequest(method="GET", url=url, headers=headers, json=None)

    def parse_models(self, data: Any) -> tuple[list[ModelInfo], str | None]:
        return parse_model_list(data, provider=self.name)

    def new_decoder(self, request: ChatRequest) -> AnthropicDecoder:
        """A decoder of one Messages stream (the protocol before ``prepare``)."""
        return AnthropicDecoder(provider=self.name)

    def map_error(self, *, status: int, headers: Mapping[str, str], body: bytes) -> APIError:
        return map_http_error(provider=self.name, status=status, headers=headers, body=body)


def create(config: ProviderConfig) -> AnthropicProvider:
    """Registry factory for ``anthropic``."""
    return AnthropicProvider(config)


declare_options(create, {"api_version", "auth", "betas"})
