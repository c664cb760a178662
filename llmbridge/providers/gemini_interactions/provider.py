"""The ``gemini-interactions`` (Gemini API) and ``vertex-interactions`` (Vertex AI) providers:
URL, auth, wiring, resume and cancel.

Follows the official SDK (``google.genai`` 3.6, ``_gaos/interactions.py``): ``POST
{base}/{version}/interactions`` streamed as SSE, ``GET .../interactions/{id}?stream=true&
last_event_id=...`` to stream it again after an event, ``POST .../interactions/{id}/cancel``;
the Gemini API at ``https://generativelanguage.googleapis.com`` (version ``v1``, key in
``x-goog-api-key``), Vertex AI at ``{location host}/v1beta1/projects/{p}/locations/{l}`` with a
bearer token (the SDK's defaults). Every request carries ``Api-Revision: 2026-05-20`` (the
SDK's ``GOOGLE_GENAI_API_REVISION``: the schema this code speaks). Rules: options and
environment variables are those of ``gemini`` / ``vertex`` (key from ``GEMINI_API_KEY`` /
``GOOGLE_API_KEY``; ``project``, ``location``, ``access_token``, ``credentials``, ADC, an
``auth`` / ``token_provider``), resolved once, at construction; the key is a ``Secret``
revealed only into request headers.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

import httpx

from ...auth import config_auth
from ...errors import APIError, ConfigurationError
from ...model_info import ModelInfo
from ...request import ChatRequest
from ...secrets import Secret
from ..base import Capabilities, HttpRequest
from ..config import ProviderConfig
from ..gemini import (
    GEMINI_BASE_URL,
    GEMINI_TOOLS,
    VERTEX_TOOLS,
    map_http_error,
    parse_model_list,
)
from ..hosts.google import vertex_location, vertex_origin
from ..option_names import declare_options
from ..prepared import Prepared
from ..url_paths import path_segment
from .decode import InteractionsDecoder
from .request import build_body

__all__ = [
    "API_REVISION",
    "GeminiInteractionsProvider",
    "VertexInteractionsProvider",
    "create",
    "create_vertex",
]

API_REVISION = "2026-05-20"
"""The ``Api-Revision`` header: the Interactions schema this provider speaks."""
_VERSIONED = re.compile(r"/v\d+(?:alpha|beta)?\d*$")


class GeminiInteractionsProvider:
    """The Interactions API on the Gemini API (Google AI Studio keys)."""

    name = "gemini-interactions"
    _vertex = False

    def __init__(
        self, config: ProviderConfig, *, key: Secret | None, base: str, auth: httpx.Auth | None
    ) -> None:
        self._key = key
        self.auth = auth if auth is not None else config_auth(config)
        """Run on every request (``llmbridge.auth``) when no key header carries the credential."""
        self._base = base.rstrip("/")
        self._headers = dict(config.headers)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base={self._base!r}, key={self._key!r})"

    def capabilities(self, model: str) -> Capabilities:
        thinking = any(tag in model for tag in ("2.5", "gemini-3", "thinking"))
        hosted = VERTEX_TOOLS if self._vertex else GEMINI_TOOLS
        return Capabilities(native_tools=True, reasoning=thinking, images=True, hosted_tools=hosted)

    def _auth(self) -> dict[str, str]:
        return {} if self._key is None else {"x-goog-api-key": self._key.reveal()}

    def _request_headers(self, accept: str) -> dict[str, str]:
        return {
            "content-type": "application/json",
            "accept": accept,
            "api-revision": API_REVISION,
            **self._headers,
            **self._auth(),
        }

    def prepare(self, request: ChatRequest) -> Prepared:
        body, warnings = build_body(request, provider=self.name)
        headers = self._request_headers("text/event-stream")
        url = f"{self._base}/interactions"
        http = HttpRequest("POST", url, headers=headers, json=body, auth=self.auth)
        return Prepared(
            http=http,
            new_decoder=lambda: InteractionsDecoder(provider=self.name),
            warnings=tuple(warnings),
        )

    def build_request(self, request: ChatRequest) -> HttpRequest:
        """``prepare(request).http`` (the protocol before ``prepare``)."""
        return self.prepare(request).http

    def new_decoder(self, request: ChatRequest) -> InteractionsDecoder:
        """A decoder of one stream (the protocol before ``prepare``)."""
        return InteractionsDecoder(provider=self.name)

    def map_error(self, *, status: int, headers: Mapping[str, str], body: bytes) -> APIError:
        return map_http_error(provider=self.name, status=status, headers=headers, body=body)

    # -- long-running: resume and cancel (providers.base.Resumable) ---------------------
    def _interaction_url(self, interaction_id: str) -> str:
        segment = path_segment(interaction_id, provider=self.name, what="interaction id")
        return f"{self._base}/interactions/{segment}"

    def resume_request(self, response_id: str, *, after: int | str | None) -> HttpRequest:
        query = {"stream": "true"} if after is None else {"stream": "true", "last_event_id": after}
        url = f"{self._interaction_url(response_id)}?{urlencode(query)}"
        return HttpRequest(
            "GET", url, headers=self._request_headers("text/event-stream"), json=None,
            auth=self.auth,
        )  # fmt: skip

    def cancel_request(self, response_id: str) -> HttpRequest:
        url = f"{self._interaction_url(response_id)}/cancel"
        headers = self._request_headers("application/json")
        return HttpRequest("POST", url, headers=headers, json=None, auth=self.auth)

    def resume_decoder(self, *, response_id: str, after: int | str | None) -> InteractionsDecoder:
        last = None if after is None else str(after)
        return InteractionsDecoder(provider=self.name, response_id=response_id, after=last)

    def get_request(self, interaction_id: str) -> HttpRequest:
        """``GET .../interactions/{id}``: the whole ``Interaction`` (``interaction.py``)."""
        headers = self._request_headers("application/json")
        url = self._interaction_url(interaction_id)
        return HttpRequest("GET", url, headers=headers, json=None, auth=self.auth)

    # -- model list (the Gemini API's, whose ids the Interactions API takes) ------------
    def models_request(self, cursor: str | None) -> HttpRequest:
        if self._vertex:
            raise ConfigurationError(
                "vertex-interactions: listing models is not offered here; use the "
                "'gemini' provider's list, whose ids match",
                provider=self.name,
            )
        query: dict[str, str | int] = {"pageSize": 1000}
        if cursor is not None:
            query["pageToken"] = cursor
        headers = {"accept": "application/json", **self._headers, **self._auth()}
        url = f"{self._base}/models?{urlencode(query)}"
        return HttpRequest(method="GET", url=url, headers=headers, json=None, auth=self.auth)

    def parse_models(self, data: Any) -> tuple[list[ModelInfo], str | None]:
        return parse_model_list(data, provider=self.name)


class VertexInteractionsProvider(GeminiInteractionsProvider):
    """The Interactions API on Vertex AI (Google Cloud project + OAuth bearer token)."""

    name = "vertex-interactions"
    _vertex = True

    def _auth(self) -> dict[str, str]:
        return {} if self._key is None else {"authorization": f"Bearer {self._key.reveal()}"}


def create(config: ProviderConfig) -> GeminiInteractionsProvider:
    """Registry factory for ``gemini-interactions``: the key from config, ``GEMINI_API_KEY`` or
    ``GOOGLE_API_KEY`` (or an ``auth`` / ``token_provider``), as ``gemini``."""
    name = GeminiInteractionsProvider.name
    key = config.key("GEMINI_API_KEY", "GOOGLE_API_KEY", provider=name)
    version = str(config.options.get("api_version") or "v1")
    base = (config.base_url or GEMINI_BASE_URL).rstrip("/")
    if not _VERSIONED.search(base):
        base = f"{base}/{version}"
    return GeminiInteractionsProvider(config, key=key, base=base, auth=None)


def create_vertex(config: ProviderConfig) -> VertexInteractionsProvider:
    """Registry factory for ``vertex-interactions``: ``project`` / ``location`` from options or
    ``GOOGLE_CLOUD_PROJECT`` / ``GOOGLE_CLOUD_LOCATION``; the token as ``api_key`` or
    ``options["access_token"]``, else an ``auth`` / ``token_provider``, else Google ADC."""
    from ...auth.google import google_credential

    name = VertexInteractionsProvider.name
    env = os.environ if config.env is None else config.env
    found = google_credential(config, provider=name, needs_project=not config.base_url)
    location = vertex_location(config.options, env)
    version = str(config.options.get("api_version") or "v1beta1")
    if config.base_url:
        base = config.base_url
    elif not found.project:
        raise ConfigurationError(
            f"provider {name!r} needs a Google Cloud project: pass providers={{{name!r}: "
            "{'project': ..., 'location': ...}} or set GOOGLE_CLOUD_PROJECT",
            provider=name,
        )
    else:
        project = path_segment(found.project, provider=name, what="project")
        place = path_segment(location, provider=name, what="location")
        base = f"{vertex_origin(location)}/{version}/projects/{project}/locations/{place}"
    return VertexInteractionsProvider(config, key=found.key, base=base, auth=found.auth)


_GEMINI_OPTIONS = {"api_version", "json_schema", "stream_tool_arguments"}
declare_options(create, _GEMINI_OPTIONS)
declare_options(
    create_vertex, {*_GEMINI_OPTIONS, "access_token", "project", "location", "credentials"}
)
