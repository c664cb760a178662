"""Gemini / Vertex provider wiring: keys, URLs, auth headers, errors, registry."""

from __future__ import annotations

from typing import Any

import pytest

from llmbridge.errors import (
    AuthenticationError,
    ConfigurationError,
    InvalidRequestError,
    OverloadedError,
)
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.types import ChatMessage, ChatRequest


def build(name: str, model: str = "gemini-2.5-flash", **config: Any) -> Any:
    provider = create_provider(name, ProviderConfig.from_mapping(config))
    return provider, provider.build_request(
        ChatRequest(model=model, messages=[ChatMessage.user("q")])
    )


def test_key_goes_in_header_never_the_url_nor_repr() -> None:
    provider, request = build("gemini", api_key="sekret-123")
    assert request.headers["x-goog-api-key"] == "sekret-123"
    assert "sekret" not in request.url
    assert "sekret" not in repr(provider) and "sekret" not in repr(request)
    assert request.url == (
        "https://generativelanguage.googleapis.com/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    )


def test_key_variables_in_order() -> None:
    _, request = build("gemini", env={"GOOGLE_API_KEY": "g", "GEMINI_API_KEY": "m"})
    assert request.headers["x-goog-api-key"] == "m"
    _, request = build("gemini", env={"GOOGLE_API_KEY": "g"})
    assert request.headers["x-goog-api-key"] == "g"
    with pytest.raises(ConfigurationError):
        build("gemini", env={})


def test_base_url_and_version_options() -> None:
    _, request = build(
        "gemini", api_key="k", base_url="http://127.0.0.1:9000/", api_version="v1beta"
    )
    assert (
        request.url
        == "http://127.0.0.1:9000/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    )
    _, request = build("gemini", "tunedModels/mine", api_key="k", base_url="http://h/v1beta")
    assert request.url == "http://h/v1beta/tunedModels/mine:streamGenerateContent?alt=sse"


@pytest.mark.parametrize(
    ("location", "host"),
    [
        ("us-central1", "https://us-central1-aiplatform.googleapis.com"),
        ("global", "https://aiplatform.googleapis.com"),
        ("eu", "https://aiplatform.eu.rep.googleapis.com"),
    ],
)
def test_vertex_urls_and_bearer(location: str, host: str) -> None:
    _, request = build("vertex", api_key="tok", project="proj", location=location)
    assert request.url == (
        f"{host}/v1/projects/proj/locations/{location}/publishers/google/models/"
        "gemini-2.5-flash:streamGenerateContent?alt=sse"
    )
    assert request.headers["authorization"] == "Bearer tok"
    assert "x-goog-api-key" not in request.headers


def test_vertex_token_from_options_and_project_from_env() -> None:
    _, request = build("vertex", access_token="t2", env={"GOOGLE_CLOUD_PROJECT": "envp"})
    assert request.headers["authorization"] == "Bearer t2"
    assert "/projects/envp/locations/global/" in request.url
    with pytest.raises(ConfigurationError):
        build("vertex", api_key="t", env={})


def test_http_errors_map_to_typed_errors() -> None:
    provider, _ = build("gemini", api_key="k")
    err = provider.map_error(
        status=400,
        headers={},
        body=b'{"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT", '
        b'"details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}]}}',
    )
    assert isinstance(err, AuthenticationError) and err.provider == "gemini"
    assert err.status == 400 and err.provider_message == "API key not valid."
    err = provider.map_error(
        status=400, headers={}, body=b'{"error": {"code": 400, "status": "INVALID_ARGUMENT"}}'
    )
    assert isinstance(err, InvalidRequestError)
    err = provider.map_error(
        status=503, headers={"retry-after": "2"}, body=b'{"error": {"status": "UNAVAILABLE"}}'
    )
    assert isinstance(err, OverloadedError) and err.retry_after == 2.0


def test_capabilities() -> None:
    provider, _ = build("gemini", api_key="k")
    assert provider.capabilities("gemini-2.5-pro").reasoning
    assert not provider.capabilities("gemini-2.0-flash").reasoning
    assert provider.capabilities("gemini-2.0-flash").native_tools
