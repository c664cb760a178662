"""OpenAI-format clouds as presets: Azure OpenAI (deployments and the v1 API, key or Entra ID)
and Bedrock's OpenAI-compatible endpoint (``bedrock-mantle``, ``bedrock-mantle-responses``).

Azure requests are compared with what the ``openai`` SDK sends for the same call (captured with
an ``httpx2.MockTransport``): ``AzureOpenAI`` for deployment URLs, ``OpenAI(base_url=
".../openai/v1/")`` for the v1 API, as Microsoft's docs show. Deliberate difference: with a key
on the v1 API the SDK's ``OpenAI`` client sends it as ``Authorization: Bearer``; we keep Azure's
``api-key`` header (Azure takes either; one header for every Azure URL). The Bedrock Mantle
recordings of corpus B decode through the ``bedrock-mantle-responses`` provider to what the
SDK accumulated, and the request goes to the URL they were recorded at.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio
import httpx
import pytest

import llmbridge as lb
from llmbridge.errors import ConfigurationError
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.base import HttpRequest
from llmbridge.response import accumulate
from llmbridge.testing import check_invariants, decode_collect
from tests import corpus

openai = pytest.importorskip("openai")
httpx2 = pytest.importorskip("httpx2")

KEY = "azure-test-key-0123456789"
TOKEN = "entra-test-token-0123456789"
ENDPOINT = "https://my-res.openai.azure.com"
REQ = lb.ChatRequest(model="gpt-5-mini", messages=[lb.ChatMessage.user("hi")], max_tokens=50)


def _sdk(
    factory: Callable[..., Any], call: Callable[[Any, dict[str, Any]], Any], body: dict[str, Any]
) -> Any:
    seen: list[Any] = []

    def handler(request: Any) -> Any:
        request.read()
        seen.append(request)
        return httpx2.Response(
            400, json={"error": {"message": "x", "type": "invalid_request_error"}}
        )

    client = factory(
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)), max_retries=0
    )
    try:
        call(client, {k: v for k, v in body.items() if k != "stream"})
    except openai.APIStatusError:
        pass
    assert len(seen) == 1
    return seen[0]


def _ours(request: HttpRequest, auth: httpx.Auth | None) -> httpx.Request:
    built = httpx.Request(request.method, request.url, headers=request.headers,
                          content=request.body_bytes())  # fmt: skip
    auth = request.auth or auth
    if auth is None:
        return built

    async def signed() -> httpx.Request:
        assert auth is not None
        flow = auth.async_auth_flow(built)
        out = await flow.__anext__()
        await flow.aclose()
        return out

    return anyio.run(signed)


def _chat(client: Any, body: dict[str, Any]) -> Any:
    return client.chat.completions.create(**body, stream=True)


def _responses(client: Any, body: dict[str, Any]) -> Any:
    return client.responses.create(**body, stream=True)


def _auth_headers(headers: Any) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items() if k.lower() in ("authorization", "api-key")}


CASES: dict[str, tuple[str, dict[str, Any], Callable[..., Any], Any, dict[str, str] | None]] = {
    # name: (provider, options, SDK client, SDK call, auth headers if they deliberately differ)
    "deployment-key": ("azure", {"base_url": ENDPOINT, "api_key": KEY},
        lambda **kw: openai.AzureOpenAI(azure_endpoint=ENDPOINT, api_key=KEY, api_version="2024-10-21", **kw),
        _chat, None),
    "deployment-entra": ("azure", {"base_url": ENDPOINT, "token_provider": lambda: TOKEN},
        lambda **kw: openai.AzureOpenAI(azure_endpoint=ENDPOINT, azure_ad_token_provider=lambda: TOKEN,
                                        api_version="2024-10-21", **kw),
        _chat, None),
    "v1-entra": ("azure", {"resource": "my-res", "token_provider": lambda: TOKEN},
        lambda **kw: openai.OpenAI(base_url=f"{ENDPOINT}/openai/v1/", api_key=lambda: TOKEN, **kw),
        _chat, None),
    "v1-key": ("azure", {"base_url": f"{ENDPOINT}/openai/v1/", "api_key": KEY},
        lambda **kw: openai.OpenAI(base_url=f"{ENDPOINT}/openai/v1/", api_key=KEY, **kw),
        _chat, {"api-key": KEY}),
    "v1-version-option": ("azure", {"base_url": ENDPOINT, "api_version": "v1", "api_key": KEY},
        lambda **kw: openai.OpenAI(base_url=f"{ENDPOINT}/openai/v1/", api_key=KEY, **kw),
        _chat, {"api-key": KEY}),
    "responses-entra": ("azure-responses", {"resource": "my-res", "token_provider": lambda: TOKEN},
        lambda **kw: openai.OpenAI(base_url=f"{ENDPOINT}/openai/v1/", api_key=lambda: TOKEN, **kw),
        _responses, None),
    "responses-key": ("azure-responses", {"base_url": ENDPOINT, "api_key": KEY},
        lambda **kw: openai.OpenAI(base_url=f"{ENDPOINT}/openai/v1/", api_key=KEY, **kw),
        _responses, {"api-key": KEY}),
    "mantle-chat": ("bedrock-mantle", {"region": "us-west-2", "api_key": KEY},
        lambda **kw: openai.OpenAI(base_url="https://bedrock-mantle.us-west-2.api.aws/v1", api_key=KEY, **kw),
        _chat, None),
    "mantle-responses": ("bedrock-mantle-responses", {"region": "us-west-2", "api_key": KEY},
        lambda **kw: openai.OpenAI(base_url="https://bedrock-mantle.us-west-2.api.aws/v1", api_key=KEY, **kw),
        _responses, None),
}  # fmt: skip


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("AZURE_OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT", "OPENAI_API_VERSION",
                "OPENAI_API_KEY", "OPENAI_BASE_URL", "AWS_REGION", "AWS_DEFAULT_REGION",
                "AWS_BEARER_TOKEN_BEDROCK"):  # fmt: skip
        monkeypatch.delenv(var, raising=False)


@pytest.mark.parametrize("case", sorted(CASES))
def test_request_equals_the_openai_sdk(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    name, options, factory, call, differs = CASES[case]
    if "token_provider" in options:  # an env key must not be sent beside the Entra token
        monkeypatch.setenv("AZURE_OPENAI_API_KEY", "env-key-that-must-not-be-sent")
    provider = create_provider(name, ProviderConfig.from_mapping(options))
    built = provider.build_request(REQ)
    ours = _ours(built, getattr(provider, "auth", None))
    sdk = _sdk(factory, call, built.json or {})
    assert str(ours.url) == str(sdk.url)
    assert json.loads(ours.content) == json.loads(sdk.content)
    assert _auth_headers(ours.headers) == (differs or _auth_headers(sdk.headers))
    assert "env-key-that-must-not-be-sent" not in str(ours.headers)


def test_azure_endpoint_forms() -> None:
    def url(**options: Any) -> str:
        provider = create_provider(
            "azure", ProviderConfig.from_mapping({"api_key": KEY, **options})
        )
        return provider.build_request(REQ).url

    deployment = f"{ENDPOINT}/openai/deployments/gpt-5-mini/chat/completions?api-version="
    assert url(base_url=ENDPOINT) == deployment + "2024-10-21"
    assert (
        url(base_url=ENDPOINT, api_version="2025-04-01-preview")
        == deployment + "2025-04-01-preview"
    )
    assert url(resource="my-res") == f"{ENDPOINT}/openai/v1/chat/completions"
    assert url(resource="my-res", api_version="2024-10-21") == deployment + "2024-10-21"
    assert (
        url(env={"AZURE_OPENAI_ENDPOINT": f"{ENDPOINT}/openai/v1"})
        == f"{ENDPOINT}/openai/v1/chat/completions"
    )
    with pytest.raises(ConfigurationError, match="resource"):
        url(env={})
    with pytest.raises(ConfigurationError, match="not both"):
        url(base_url=ENDPOINT, token_provider=lambda: TOKEN)


def test_mantle_region_comes_from_option_then_environment() -> None:
    def base(name: str, **options: Any) -> str:
        return create_provider(
            name, ProviderConfig.from_mapping({"api_key": KEY, **options})
        ).base_url

    assert (
        base("bedrock-mantle", region="ap-northeast-1")
        == "https://bedrock-mantle.ap-northeast-1.api.aws/v1"
    )
    assert base("bedrock-mantle-responses", env={"AWS_DEFAULT_REGION": "eu-north-1"}) == (
        "https://bedrock-mantle.eu-north-1.api.aws/v1"
    )
    with pytest.raises(ConfigurationError, match="region.*AWS_REGION"):
        base("bedrock-mantle", env={})
    env = {"AWS_BEARER_TOKEN_BEDROCK": KEY, "AWS_REGION": "us-east-1"}
    provider = create_provider("bedrock-mantle", ProviderConfig(env=env))
    assert provider.build_request(REQ).headers["authorization"] == f"Bearer {KEY}"


MANTLE = [
    p for p in corpus.entries("B") if p.values[0] is None or "bedrock_mantle" in p.values[0]["file"]
]


@pytest.mark.parametrize("entry", MANTLE)
def test_mantle_recordings_decode_through_the_preset(entry: dict[str, Any] | None) -> None:
    if entry is None:
        corpus.missing()
    uri = entry["uri"]  # a model served under /openai/v1: base_url says so
    base_url = uri.removesuffix("/responses")
    config = ProviderConfig.from_mapping({"api_key": KEY, "base_url": base_url})
    provider = create_provider("bedrock-mantle-responses", config)
    request = provider.build_request(REQ)
    assert request.url == uri and request.headers["Authorization"] == f"Bearer {KEY}"
    events, error = decode_collect(provider.new_decoder(REQ), [corpus.body(entry)])
    assert error is None
    check_invariants(events)
    want = corpus.expected(entry)
    assert want is not None
    got = accumulate(events)
    assert got.text == (want["text"] or "")
    assert [(c.id, c.name, c.arguments) for c in got.tool_calls] == [
        (c["id"], c["name"], c["arguments"]) for c in want["tool_calls"]
    ]
    assert got.usage is not None
    usage = want["usage"]
    assert (got.usage.input_tokens, got.usage.output_tokens) == (
        usage["input_tokens"],
        usage["output_tokens"],
    )
    assert got.usage.reasoning_tokens == usage["output_tokens_details"]["reasoning_tokens"]


def test_responses_presets_count_no_tokens_and_run_no_builtin_tools() -> None:
    provider = create_provider(
        "azure-responses", ProviderConfig.from_mapping({"resource": "r", "api_key": KEY})
    )
    assert provider.capabilities("gpt-5").hosted_tools == frozenset()
    with pytest.raises(ConfigurationError, match="token-counting"):
        provider.count_tokens_request(REQ)
    widened = create_provider("azure-responses", ProviderConfig.from_mapping(
        {"resource": "r", "api_key": KEY, "hosted_tools": ["web_search"]}))  # fmt: skip
    assert widened.capabilities("gpt-5").hosted_tools == {"web_search"}
