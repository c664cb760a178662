"""The ``cohere`` provider: Cohere's v2 chat, streamed, wired.

``POST {base}/v2/chat`` with the body of ``request.py`` (``stream: true``); the answer is SSE
decoded by ``decode.py``. Rules:

* The key is resolved once: ``api_key``, else ``CO_API_KEY``, else ``COHERE_API_KEY`` (the
  ``cohere`` SDK's order); sent as ``Authorization: Bearer``. An ``auth`` / ``token_provider``
  replaces it. The base URL: ``base_url``, else ``CO_API_URL`` (as the SDK reads it; a
  trailing ``/v1`` or ``/v2`` is dropped), else ``https://api.cohere.com``.
* ``X-Client-Name`` (the SDK's ``client_name``) is sent when the option ``client_name`` is set.
* Options: ``safety_mode``, ``citation_options``, ``priority`` (``request.py``).
* ``list_models`` → ``GET /v1/models?endpoint=chat`` (``model_list.py``), paged.
* No token counting: ``/v1/tokenize`` tokenizes a bare string, without the chat template,
  tools and documents the model reads (``tokens.input_tokens`` of a short question is ~1,500
  with its template): a count from it would be wrong, so there is none.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlencode

import httpx

from ...auth import config_auth
from ...errors import APIError
from ...model_info import ModelInfo
from ...request import ChatRequest
from ...secrets import Secret
from ..base import AnyDecoder, Capabilities, HttpRequest
from ..config import ProviderConfig
from ..option_names import declare_options
from ..prepared import Prepared
from .decode import CohereDecoder
from .errors import map_http_error
from .model_list import PAGE_SIZE, parse_model_list
from .request import build_body
from .whole import CohereWholeDecoder, whole_body

__all__ = ["COHERE_BASE_URL", "CohereProvider", "create"]

COHERE_BASE_URL = "https://api.cohere.com"


def _base(url: str) -> str:
    base = url.rstrip("/")
    for tail in ("/v1", "/v2"):
        base = base.removesuffix(tail)
    return base


class CohereProvider:
    """Cohere's v2 chat API."""

    name = "cohere"

    def __init__(self, config: ProviderConfig, *, key: Secret | None, base: str) -> None:
        self._key = key
        self.auth: httpx.Auth | None = config_auth(config)
        self._base = _base(base)
        self._headers = dict(config.headers)
        client = config.options.get("client_name")
        if client:
            self._headers.setdefault("X-Client-Name", str(client))
        self._options: Mapping[str, Any] = config.options

    def __repr__(self) -> str:
        return f"CohereProvider(base={self._base!r}, key={self._key!r})"

    def capabilities(self, model: str) -> Capabilities:
        vision = "vision" in model or "aya-vision" in model
        return Capabilities(
            native_tools=True,
            reasoning="reasoning" in model or "command-a-plus" in model,
            images=vision,
            json_mode="schema",
        )

    def _headers_for(self, accept: str, *, body: bool = True) -> dict[str, str]:
        headers = {"accept": accept, **self._headers}
        if body:
            headers["content-type"] = "application/json"
        if self._key is not None:
            headers["authorization"] = f"Bearer {self._key.reveal()}"
        return headers

    def prepare(self, request: ChatRequest) -> Prepared:
        body, warnings = build_body(request, provider=self.name, options=self._options)
        whole = request.stream is False  # a whole answer (whole.py)
        http = HttpRequest(
            method="POST",
            url=f"{self._base}/v2/chat",
            headers=self._headers_for("application/json" if whole else "text/event-stream"),
            json=whole_body(body) if whole else body,
            auth=self.auth,
        )
        new_decoder: Callable[[], AnyDecoder] = lambda: self.new_decoder(request)  # noqa: E731
        if whole:
            stream_decoder = new_decoder
            new_decoder = lambda: CohereWholeDecoder(stream_decoder(), provider=self.name)  # noqa: E731
        return Prepared(
            http=http,
            new_decoder=new_decoder,
            warnings=tuple(warnings),
            framing="whole" if whole else "sse",
        )

    def build_request(self, request: ChatRequest) -> HttpRequest:
        """``prepare(request).http`` (the protocol before ``prepare``)."""
        return self.prepare(request).http

    def new_decoder(self, request: ChatRequest) -> CohereDecoder:
        """A decoder of one stream (the protocol before ``prepare``)."""
        return CohereDecoder(provider=self.name, model=request.model)

    def map_error(self, *, status: int, headers: Mapping[str, str], body: bytes) -> APIError:
        return map_http_error(provider=self.name, status=status, headers=headers, body=body)

    def models_request(self, cursor: str | None) -> HttpRequest:
        query: dict[str, str | int] = {"endpoint": "chat", "page_size": PAGE_SIZE}
        if cursor:
            query["page_token"] = cursor
        url = f"{self._base}/v1/models?{urlencode(query)}"
        return HttpRequest(
            method="GET",
            url=url,
            headers=self._headers_for("application/json", body=False),
            json=None,
        )

    def parse_models(self, data: Any) -> tuple[list[ModelInfo], str | None]:
        return parse_model_list(data, provider=self.name)


def create(config: ProviderConfig) -> CohereProvider:
    """Registry factory for ``cohere``: key from config, ``CO_API_KEY`` or ``COHERE_API_KEY``."""
    key = config.key("CO_API_KEY", "COHERE_API_KEY", provider="cohere")
    env = os.environ if config.env is None else config.env
    base = config.base_url or env.get("CO_API_URL") or COHERE_BASE_URL
    return CohereProvider(config, key=key, base=base)


declare_options(create, {"client_name"})
