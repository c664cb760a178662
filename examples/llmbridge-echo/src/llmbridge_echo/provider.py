"""``EchoProvider``: the object llmbridge's client talks to (the ``Provider`` protocol).

Rules: the key and base URL are resolved once, in ``__init__``, from the ``ProviderConfig``
(``ECHO_API_KEY`` is optional: a local echo server needs none). The key is kept as a
``Secret`` and revealed only into the request headers, so no repr or error shows it.
``build_request`` is pure; ``map_error`` hands an HTTP error body to ``errors.map_http_error``.
"""

from __future__ import annotations

from collections.abc import Mapping

from llmbridge import ChatRequest
from llmbridge.errors import APIError
from llmbridge.providers import Capabilities, HttpRequest, ProviderConfig

from .decode import EchoDecoder
from .errors import map_http_error
from .request import build_body

__all__ = ["DEFAULT_BASE_URL", "EchoProvider"]

DEFAULT_BASE_URL = "http://127.0.0.1:8765"


class EchoProvider:
    name = "echo"

    def __init__(self, config: ProviderConfig) -> None:
        self._key = config.key("ECHO_API_KEY", provider=self.name, required=False)
        self.base_url = (config.base_url or DEFAULT_BASE_URL).rstrip("/")
        self._headers = dict(config.headers)

    def __repr__(self) -> str:
        return f"EchoProvider(base_url={self.base_url!r})"

    def capabilities(self, model: str) -> Capabilities:
        return Capabilities(native_tools=True, reasoning=False, images=False)

    def build_request(self, request: ChatRequest) -> HttpRequest:
        headers = {"content-type": "application/json", "accept": "text/event-stream"}
        if self._key is not None:
            headers["authorization"] = f"Bearer {self._key.reveal()}"
        headers.update(self._headers)
        return HttpRequest(
            method="POST",
            url=f"{self.base_url}/v1/echo",
            headers=headers,
            json=build_body(request),
        )

    def new_decoder(self, request: ChatRequest) -> EchoDecoder:
        return EchoDecoder()

    def map_error(self, *, status: int, headers: Mapping[str, str], body: bytes) -> APIError:
        return map_http_error(provider=self.name, status=status, headers=headers, body=body)
