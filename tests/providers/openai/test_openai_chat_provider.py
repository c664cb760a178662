"""The provider objects: registry wiring, keys, URLs, capabilities, HTTP error mapping."""

from __future__ import annotations

import pytest

from llmbridge.errors import (
    AuthenticationError,
    ConfigurationError,
    ContextLengthError,
    InvalidRequestError,
    RateLimitError,
    ServerError,
)
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.base import Provider
from llmbridge.providers.openai import PRESETS
from llmbridge.types import ChatMessage, ChatRequest

REQ = ChatRequest(model="my-model", messages=[ChatMessage.user("hi")])


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_builds_through_the_registry(name: str) -> None:
    config = (
        ProviderConfig(env={}, base_url="https://gw.example/v1")
        if PRESETS[name].base_url is None
        else None
    )
    env = {var: "sk-secret-123" for var in PRESETS[name].key_vars}
    env |= {var: "eu-west-1" for _, names in PRESETS[name].base_url_vars for var in names}
    config = ProviderConfig(env=env, base_url=config.base_url if config else None)
    provider = create_provider(name, config)
    assert isinstance(provider, Provider) and provider.name == name
    request = provider.build_request(REQ)
    ends = "/responses" if PRESETS[name].api == "responses" else "chat/completions"
    assert request.url.endswith(ends) or "api-version=" in request.url
    assert "sk-secret-123" not in repr(provider) and "sk-secret-123" not in repr(request)
    assert "sk-secret-123" in str(request.headers)


def test_hosted_presets_need_a_key_local_ones_do_not() -> None:
    with pytest.raises(ConfigurationError, match="GROQ_API_KEY"):
        create_provider("groq", ProviderConfig(env={}))
    local = create_provider("ollama", ProviderConfig(env={}))
    request = local.build_request(REQ)
    assert request.url == "http://localhost:11434/v1/chat/completions"
    assert "authorization" not in request.headers


def test_generic_preset_needs_a_base_url() -> None:
    with pytest.raises(ConfigurationError, match="base_url"):
        create_provider("openai-compatible", ProviderConfig(env={}))
    p = create_provider(
        "openai-compatible", ProviderConfig(env={}, base_url="http://127.0.0.1:8080/v1/")
    )
    assert p.build_request(REQ).url == "http://127.0.0.1:8080/v1/chat/completions"


def test_azure_deployment_url_api_key_header_and_v1_endpoint() -> None:
    env = {"AZURE_OPENAI_API_KEY": "az", "AZURE_OPENAI_ENDPOINT": "https://r.openai.azure.com/"}
    p = create_provider("azure", ProviderConfig(env=env))
    r = p.build_request(REQ)
    assert (
        r.url
        == "https://r.openai.azure.com/openai/deployments/my-model/chat/completions?api-version=2024-10-21"
    )
    assert r.headers["api-key"] == "az" and "authorization" not in r.headers
    p = create_provider(
        "azure", ProviderConfig(env=env, options={"api_version": "2025-04-01-preview"})
    )
    assert p.build_request(REQ).url.endswith("api-version=2025-04-01-preview")
    v1 = create_provider(
        "azure", ProviderConfig(env=env, base_url="https://r.openai.azure.com/openai/v1")
    )
    assert v1.build_request(REQ).url == "https://r.openai.azure.com/openai/v1/chat/completions"


def test_extra_headers_and_configured_base_url() -> None:
    config = ProviderConfig.from_mapping(
        {"api_key": "k", "base_url": "https://proxy/v1", "headers": {"X-Title": "app"}}
    )
    r = create_provider("openrouter", config).build_request(REQ)
    assert r.url == "https://proxy/v1/chat/completions" and r.headers["X-Title"] == "app"


def test_capabilities_native_tools_flag() -> None:
    assert create_provider("llamacpp", ProviderConfig(env={})).capabilities("x").native_tools
    no_tools = create_provider("ollama", ProviderConfig(env={}, options={"native_tools": False}))
    assert no_tools.capabilities("x").native_tools is False
    assert (
        create_provider("openai", ProviderConfig(env={"OPENAI_API_KEY": "k"}))
        .capabilities("gpt-5")
        .reasoning
    )
    tools_off = create_provider("llamacpp", ProviderConfig(env={}, options={"native_tools": False}))
    assert tools_off.capabilities("x").native_tools is False


@pytest.mark.parametrize(
    ("status", "body", "cls"),
    [
        (
            400,
            b'{"error":{"message":"too long","type":"invalid_request_error","param":"messages",'
            b'"code":"context_length_exceeded"}}',
            ContextLengthError,
        ),
        (
            400,
            b'{"error":{"message":"bad","type":"invalid_request_error","param":null,"code":null}}',
            InvalidRequestError,
        ),
        (
            401,
            b'{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":"invalid_api_key"}}',
            AuthenticationError,
        ),
        (
            429,
            b'{"error":{"message":"quota","type":"insufficient_quota","code":"insufficient_quota"}}',
            RateLimitError,
        ),
        (
            400,
            b'{"object":"error","message":"bad","type":"BadRequestError","param":null,"code":400}',
            InvalidRequestError,
        ),
    ],
)
def test_http_errors_are_typed(status: int, body: bytes, cls: type[Exception]) -> None:
    p = create_provider("openai", ProviderConfig(env={"OPENAI_API_KEY": "k"}))
    error = p.map_error(
        status=status, headers={"x-request-id": "req_1", "retry-after": "2"}, body=body
    )
    assert type(error) is cls and error.request_id == "req_1"
    if isinstance(error, RateLimitError):
        assert error.retry_after == 2.0


def test_llama_cpp_500s_are_not_retried_other_servers_500s_are() -> None:
    """llama-server's 500s come from the request (an image without a vision projector): the
    same request would fail the same way, so the llamacpp preset marks them not retryable."""
    body = (
        b'{"error": {"code": 500, "type": "server_error", "message": "image input is not '
        b'supported - hint: if this is unexpected, you may need to provide the mmproj"}}'
    )
    config = ProviderConfig.from_mapping({"base_url": "http://127.0.0.1:8080/v1"})
    local = create_provider("llamacpp", config).map_error(status=500, headers={}, body=body)
    other = create_provider("vllm", config).map_error(status=500, headers={}, body=body)
    assert isinstance(local, ServerError) and not local.retryable
    assert "image input is not supported" in str(local)
    assert isinstance(other, ServerError) and other.retryable
    busy = create_provider("llamacpp", config).map_error(status=503, headers={}, body=b"")
    assert busy.retryable  # 503: the model is still loading
