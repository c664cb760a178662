"""The ``gemini`` (Gemini API) and ``vertex`` (Vertex AI) providers: URL, auth, wiring.

Follows the official SDK's client (``google.genai._api_client``): Gemini API at
``https://generativelanguage.googleapis.com/{version}/models/{model}:streamGenerateContent?alt=sse``
with the key in the ``x-goog-api-key`` header (never in the URL), default version ``v1``;
Vertex AI at ``https://{location}-aiplatform.googleapis.com/v1/projects/{project}/locations/
{location}/publishers/google/models/{model}:streamGenerateContent?alt=sse`` with a bearer
token (``global`` uses ``aiplatform.googleapis.com``, ``us`` / ``eu`` their ``.rep`` hosts).
Rules: keys, project and location are resolved once, at construction; the key is a
``Secret`` revealed only into the request headers. Options: ``api_version``, ``json_schema``
(send tool and response schemas as full JSON Schema), Vertex ``project``, ``location``,
``access_token`` and ``stream_tool_arguments`` (``streamFunctionCallArguments``). An ``auth`` /
``token_provider`` option replaces the key (``llmbridge.auth``); Vertex without a token uses
Google Application Default Credentials (``llmbridge.auth.google``, the ``google`` extra).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote, urlencode

import httpx

from ...auth import config_auth
from ...errors import APIError, ConfigurationError
from ...model_info import ModelInfo
from ...request import ChatRequest
from ...secrets import Secret
from ..base import AnyDecoder, Capabilities, HttpRequest, read_token_count
from ..config import ProviderConfig
from ..hosts.google import vertex_location, vertex_origin
from ..option_names import declare_options
from ..prepared import Prepared
from ..url_paths import path_segments
from .decode import GeminiDecoder
from .errors import map_http_error
from .hosted import GEMINI_TOOLS, VERTEX_TOOLS
from .model_list import PAGE_SIZE, parse_model_list
from .request import build_body
from .whole import WHOLE_METHOD, GeminiWholeDecoder, VertexWholeDecoder

__all__ = ["GEMINI_BASE_URL", "GeminiProvider", "VertexProvider", "create", "create_vertex"]

GEMINI_BASE_URL = "https://generativelanguage.googleapis.com"
GEMINI_API_VERSION = "v1"
VERTEX_API_VERSION = "v1"
_VERSIONED = re.compile(r"/v\d+(?:alpha|beta)?\d*$")


def _flag(value: object) -> bool:
    return value is True or (isinstance(value, str) and value.lower() in ("1", "true", "yes"))


_COUNT_FIELDS = frozenset({"contents", "systemInstruction", "tools", "generationConfig"})
"""What ``:countTokens`` takes of a ``generateContent`` body (``toolConfig`` and safety do not
change the count; Vertex takes these fields at the top level, the Gemini API inside
``generateContentRequest``)."""


def _model_path(model: str, provider: str) -> str:
    """``gemini-2.5-flash`` → ``models/gemini-2.5-flash``; ``tunedModels/x`` stays as is (once
    no segment of it is empty, ``.`` or ``..``: ``url_paths``)."""
    if "/" in model:
        return path_segments(model, provider=provider)
    return f"models/{quote(model, safe='.-_')}"


class GeminiProvider:
    """Gemini API (Google AI Studio keys). ``base_url`` is the root, e.g. ``https://host``
    (the API version is appended unless the URL already ends with one)."""

    name = "gemini"
    _vertex = False

    def __init__(
        self,
        config: ProviderConfig,
        *,
        key: Secret | None,
        base: str,
        auth: httpx.Auth | None = None,
    ) -> None:
        self._key = key
        self.auth = auth if auth is not None else config_auth(config)
        """Run on every request (``llmbridge.auth``) when no key header carries the credential."""
        self._base = base.rstrip("/")
        self._headers = dict(config.headers)
        self._json_schema = _flag(config.options.get("json_schema"))
        self._stream_arguments = _flag(config.options.get("stream_tool_arguments"))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base={self._base!r}, key={self._key!r})"

    def capabilities(self, model: str) -> Capabilities:
        thinking = any(tag in model for tag in ("2.5", "gemini-3", "thinking"))
        legacy = model.removeprefix("models/").startswith(("gemini-1", "gemini-pro"))
        hosted = frozenset() if legacy else (VERTEX_TOOLS if self._vertex else GEMINI_TOOLS)
        return Capabilities(native_tools=True, reasoning=thinking, images=True, hosted_tools=hosted)

    def _url(self, model: str) -> str:
        return f"{self._base}/{_model_path(model, self.name)}:streamGenerateContent?alt=sse"

    def _auth(self) -> dict[str, str]:
        return {} if self._key is None else {"x-goog-api-key": self._key.reveal()}

    def prepare(self, request: ChatRequest) -> Prepared:
        whole = request.stream is False  # a whole answer: :generateContent (whole.py)
        body, warnings = build_body(
            request,
            provider=self.name,
            vertex=self._vertex,
            json_schema=self._json_schema,
            stream_arguments=self._stream_arguments and not whole,
        )
        headers = {"content-type": "application/json", **self._headers, **self._auth()}
        url = self._url(request.model)
        if whole:
            headers["accept"] = "application/json"
            url = url.replace(":streamGenerateContent?alt=sse", WHOLE_METHOD)
        http = HttpRequest("POST", url, headers=headers, json=body, auth=self.auth)
        new_decoder: Callable[[], AnyDecoder] = lambda: GeminiDecoder(provider=self.name)  # noqa: E731
        if whole:
            reader = VertexWholeDecoder if self._vertex else GeminiWholeDecoder
            new_decoder = lambda: reader(GeminiDecoder(provider=self.name), provider=self.name)  # noqa: E731
        return Prepared(
            http=http,
            new_decoder=new_decoder,
            warnings=tuple(warnings),
            framing="whole" if whole else "sse",
        )

    def build_request(self, request: ChatRequest) -> HttpRequest:
        """``prepare(request).http`` (the protocol before ``prepare``)."""
        return self.prepare(request).http

    def count_tokens_request(self, request: ChatRequest) -> HttpRequest:
        body = build_body(
            request, provider=self.name, vertex=self._vertex, json_schema=self._json_schema
        ).body
        body = {k: v for k, v in body.items() if k in _COUNT_FIELDS}
        if not self._vertex:  # the Gemini API counts a whole generateContent request
            body = {
                "generateContentRequest": {"model": _model_path(request.model, self.name), **body}
            }
        headers = {"content-type": "application/json", **self._headers, **self._auth()}
        url = self._url(request.model).replace(":streamGenerateContent?alt=sse", ":countTokens")
        return HttpRequest(method="POST", url=url, headers=headers, json=body)

    def parse_token_count(self, data: Any) -> int:
        return read_token_count(data, "totalTokens", provider=self.name)

    def models_request(self, cursor: str | None) -> HttpRequest:
        if self._vertex:
            raise ConfigurationError(
                "vertex: listing models is not offered here (Vertex AI lists publisher models "
                "in its Model Garden API); use the 'gemini' provider's list, whose ids match",
                provider=self.name,
            )
        query: dict[str, str | int] = {"pageSize": PAGE_SIZE}
        if cursor is not None:
            query["pageToken"] = cursor
        headers = {"accept": "application/json", **self._headers, **self._auth()}
        url = f"{self._base}/models?{urlencode(query)}"
        return HttpRequest(method="GET", url=url, headers=headers, json=None)

    def parse_models(self, data: Any) -> tuple[list[ModelInfo], str | None]:
        return parse_model_list(data, provider=self.name)

    def new_decoder(self, request: ChatRequest) -> GeminiDecoder:
        """A decoder of one stream (the protocol before ``prepare``)."""
        return GeminiDecoder(provider=self.name)

    def map_error(self, *, status: int, headers: Mapping[str, str], body: bytes) -> APIError:
        return map_http_error(provider=self.name, status=status, headers=headers, body=body)


class VertexProvider(GeminiProvider):
    """Vertex AI (Google Cloud project + OAuth bearer token)."""

    name = "vertex"
    _vertex = True

    def _auth(self) -> dict[str, str]:
        return {} if self._key is None else {"authorization": f"Bearer {self._key.reveal()}"}

    def _url(self, model: str) -> str:
        if "/" in model:
            path = path_segments(model, provider=self.name)
        else:
            path = f"publishers/google/models/{quote(model, safe='.-_@')}"
        return f"{self._base}/{path}:streamGenerateContent?alt=sse"


def create(config: ProviderConfig) -> GeminiProvider:
    """Registry factory for ``gemini``: key from config, ``GEMINI_API_KEY`` or ``GOOGLE_API_KEY``."""
    key = config.key("GEMINI_API_KEY", "GOOGLE_API_KEY", provider="gemini")
    version = str(config.options.get("api_version") or GEMINI_API_VERSION)
    base = (config.base_url or GEMINI_BASE_URL).rstrip("/")
    if not _VERSIONED.search(base):
        base = f"{base}/{version}"
    return GeminiProvider(config, key=key, base=base)


def create_vertex(config: ProviderConfig) -> VertexProvider:
    """Registry factory for ``vertex``: ``project`` / ``location`` from options or
    ``GOOGLE_CLOUD_PROJECT`` / ``GOOGLE_CLOUD_LOCATION``; the bearer token as ``api_key`` or
    ``options["access_token"]``, else an ``auth`` / ``token_provider``, else Google Application
    Default Credentials (whose project is the last resort)."""
    from ...auth.google import google_credential

    env = os.environ if config.env is None else config.env
    options = config.options
    found = google_credential(config, provider="vertex", needs_project=not config.base_url)
    key, auth, project = found.key, found.auth, found.project
    location = vertex_location(options, env)
    version = str(options.get("api_version") or VERTEX_API_VERSION)
    if config.base_url:
        base = config.base_url
    elif not project:
        raise ConfigurationError(
            "provider 'vertex' needs a Google Cloud project: pass providers={'vertex': "
            "{'project': ..., 'location': ...}} or set GOOGLE_CLOUD_PROJECT",
            provider="vertex",
        )
    else:
        base = f"{vertex_origin(location)}/{version}/projects/{project}/locations/{location}"
    return VertexProvider(config, key=key, base=base, auth=auth)


_GEMINI_OPTIONS = {"api_version", "json_schema", "stream_tool_arguments"}
declare_options(create, _GEMINI_OPTIONS)
declare_options(
    create_vertex, {*_GEMINI_OPTIONS, "access_token", "project", "location", "credentials"}
)
