"""The ``ollama-native`` provider: Ollama's own ``/api/chat``, wired.

``POST {host}/api/chat`` with the body of ``request.py``; the answer is NDJSON (``framing =
"ndjson"``, read by lines in ``llmbridge.stream.ndjson``) decoded by ``decode.py``. Pick it over
the ``ollama`` preset (the OpenAI-compatible ``/v1``) for what that endpoint drops: ``think``
and its ``thinking`` text, a JSON-schema ``format``, runner ``options`` (``num_ctx``…),
``keep_alive`` and the exact counts and timings. Rules:

* The host is resolved once, when the provider is built: ``base_url``, else ``OLLAMA_HOST``
  read as the ``ollama`` client reads it (``host``, ``host:port``, ``:port``, a scheme, a path;
  port 11434 unless a scheme says 80/443), else ``http://localhost:11434``. A ``/v1`` or
  ``/api`` at the end of a given URL is dropped (the preset's base URL may be reused).
* No key is needed. A key (``api_key``, else ``OLLAMA_API_KEY``, as the ``ollama`` client reads
  it: ollama.com and authenticating proxies) is sent as ``Authorization: Bearer``; an ``auth``
  or ``token_provider`` is run by the transport.
* Options: ``num_ctx``, ``options`` (runner options), ``keep_alive`` (``request.py``);
  ``native_tools`` (force the model's own tool calling on or off: Ollama says a model takes tools
  only when it is asked, with a 400).
* ``list_models`` → ``GET /api/tags`` (``model_list.py``). No token counting: Ollama has no
  endpoint for it.
"""

from __future__ import annotations

import ipaddress
import os
import urllib.parse
from collections.abc import Mapping
from typing import Any

import httpx

from ...auth import config_auth
from ...errors import APIError
from ...model_info import ModelInfo
from ...request import ChatRequest
from ...secrets import Secret
from ..base import Capabilities, HttpRequest
from ..config import ProviderConfig
from ..option_names import declare_options
from ..prepared import Framing, Prepared
from .decode import OllamaDecoder
from .errors import map_http_error
from .model_list import parse_model_list
from .request import build_body
from .whole import OllamaWholeDecoder, whole_body

__all__ = ["DEFAULT_HOST", "OllamaNativeProvider", "create", "parse_host"]

DEFAULT_HOST = "http://localhost:11434"


def parse_host(host: str | None) -> str:
    """``OLLAMA_HOST`` as the ``ollama`` client reads it (``ollama._client._parse_host``);
    empty → ``DEFAULT_HOST``."""
    if not host:
        return DEFAULT_HOST
    port = 11434
    scheme, _, hostport = host.partition("://")
    if not hostport:
        scheme, hostport = "http", host
    elif scheme == "http":
        port = 80
    elif scheme == "https":
        port = 443
    split = urllib.parse.urlsplit(f"{scheme}://{hostport}")
    name = split.hostname or "127.0.0.1"
    port = split.port or port
    try:
        if isinstance(ipaddress.ip_address(name), ipaddress.IPv6Address):
            name = f"[{name}]"
    except ValueError:
        pass
    path = split.path.strip("/")
    return f"{scheme}://{name}:{port}/{path}" if path else f"{scheme}://{name}:{port}"


def _base(url: str) -> str:
    base = url.rstrip("/")
    for tail in ("/v1", "/api"):
        base = base.removesuffix(tail)
    return base


class OllamaNativeProvider:
    """Ollama's native chat API."""

    name = "ollama-native"
    framing: Framing = "ndjson"

    def __init__(
        self, config: ProviderConfig, *, base: str, key: Secret | None, name: str = "ollama-native"
    ) -> None:
        self.name = name
        self._base = _base(base)
        self._key = key
        self.auth: httpx.Auth | None = config_auth(config)
        self._headers = dict(config.headers)
        self._options: Mapping[str, Any] = config.options

    def __repr__(self) -> str:
        return f"OllamaNativeProvider(base={self._base!r}, key={self._key!r})"

    def capabilities(self, model: str) -> Capabilities:
        override = self._options.get("native_tools")
        return Capabilities(
            native_tools=True if override is None else bool(override),
            reasoning=True,
            images=True,
            json_mode="schema",
        )

    def _headers_for(self, accept: str) -> dict[str, str]:
        headers = {"content-type": "application/json", "accept": accept, **self._headers}
        if self._key is not None:
            headers["authorization"] = f"Bearer {self._key.reveal()}"
        return headers

    def prepare(self, request: ChatRequest) -> Prepared:
        body, warnings = build_body(request, provider=self.name, options=self._options)
        whole = request.stream is False  # a whole answer (whole.py)
        http = HttpRequest(
            method="POST",
            url=f"{self._base}/api/chat",
            headers=self._headers_for("application/json" if whole else "application/x-ndjson"),
            json=whole_body(body) if whole else body,
            auth=self.auth,
        )
        if whole:
            return Prepared(
                http=http,
                new_decoder=lambda: OllamaWholeDecoder(
                    self.new_decoder(request), provider=self.name
                ),
                warnings=tuple(warnings),
                framing="whole",
            )
        return Prepared(
            http=http,
            new_decoder=lambda: self.new_decoder(request),
            warnings=tuple(warnings),
            framing=self.framing,
        )

    def build_request(self, request: ChatRequest) -> HttpRequest:
        """``prepare(request).http`` (the protocol before ``prepare``)."""
        return self.prepare(request).http

    def new_decoder(self, request: ChatRequest) -> OllamaDecoder:
        """A decoder of one stream (the protocol before ``prepare``)."""
        return OllamaDecoder(provider=self.name, model=request.model)

    def map_error(self, *, status: int, headers: Mapping[str, str], body: bytes) -> APIError:
        return map_http_error(provider=self.name, status=status, headers=headers, body=body)

    def models_request(self, cursor: str | None) -> HttpRequest:
        headers = self._headers_for("application/json")
        del headers["content-type"]
        return HttpRequest(method="GET", url=f"{self._base}/api/tags", headers=headers, json=None)

    def parse_models(self, data: Any) -> tuple[list[ModelInfo], str | None]:
        return parse_model_list(data, provider=self.name)


def create(config: ProviderConfig) -> OllamaNativeProvider:
    """Registry factory for ``ollama-native``: the host from ``base_url`` or ``OLLAMA_HOST``."""
    env = os.environ if config.env is None else config.env
    base = config.base_url or parse_host(env.get("OLLAMA_HOST"))
    key = config.key("OLLAMA_API_KEY", provider="ollama-native", required=False)
    return OllamaNativeProvider(config, base=base, key=key)


declare_options(create, {"native_tools", "options", "num_ctx", "keep_alive"})
