"""Each ``anthropic-<cloud>`` request equals what the official SDK's client for that cloud sends.

The same Messages parameters (the body our Anthropic encoder builds for a request with a
system prompt, a tool, a tool choice, stop sequences and thinking) go to ``AnthropicBedrock``,
``AnthropicVertex``, ``AnthropicFoundry``, ``AnthropicAWS``, ``AnthropicGoogleCloud`` and
``AnthropicBedrockMantle`` (anthropic 2.14, a dev dependency), whose request is captured with an
``httpx2.MockTransport`` as its ``http_client``; our provider builds its request for the same
input, its ``httpx.Auth`` (if any) applied. URL, body and headers must be equal, apart from
these deliberate differences:

* ``accept``: the SDK sends ``application/json`` and reads whatever comes; on SSE clouds we ask
  for ``text/event-stream`` (as the ``anthropic`` provider does). On Bedrock both send
  ``application/json`` (there it names the chunk payloads' type).
* The SDK's own telemetry and transport headers (``user-agent``, ``x-stainless-*``, ``host``,
  ``content-length``, ``accept-encoding``, ``connection``) are not sent or are httpx's.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio
import httpx
import pytest

from llmbridge.messages import ChatMessage
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.anthropic.model_list import PAGE_SIZE
from llmbridge.providers.base import HttpRequest
from llmbridge.request import ReasoningConfig
from llmbridge.tools import ToolSpec
from llmbridge.types import ChatRequest

anthropic = pytest.importorskip("anthropic")
httpx2 = pytest.importorskip("httpx2")
from anthropic.lib.aws._client import AnthropicAWS  # noqa: E402
from anthropic.lib.bedrock import AnthropicBedrock  # noqa: E402
from anthropic.lib.bedrock._mantle import AnthropicBedrockMantle  # noqa: E402
from anthropic.lib.foundry import AnthropicFoundry  # noqa: E402
from anthropic.lib.google_cloud._client import AnthropicGoogleCloud  # noqa: E402
from anthropic.lib.vertex._client import AnthropicVertex  # noqa: E402

KEY = "cloud-test-key-0123456789"
TOKEN = "cloud-test-token-0123456789"
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # the SDK on old models

SDK_ONLY = {"user-agent", "host", "content-length", "accept-encoding", "connection"}


def _request(model: str) -> ChatRequest:
    tool = ToolSpec.from_json_schema(
        "get_weather",
        "Weather in a city.",
        {"type": "object", "properties": {"city": {"type": "string"}}},
    )
    return ChatRequest(
        model=model,
        messages=[ChatMessage.system("Be brief."), ChatMessage.user("Weather in Paris?")],
        tools=[tool],
        tool_choice="auto",
        stop=["END"],
        max_tokens=4096,
        reasoning=ReasoningConfig(budget_tokens=2048),
    )


def _params(request: ChatRequest) -> dict[str, Any]:
    """The Messages parameters our Anthropic encoder builds (what the app would pass the SDK)."""
    first_party = create_provider("anthropic", ProviderConfig.from_mapping({"api_key": KEY}))
    body = first_party.build_request(request).json
    assert body is not None
    return {k: v for k, v in body.items() if k != "stream"}


def _sdk_request(client: Any, params: dict[str, Any], betas: list[str], seen: list[Any]) -> Any:
    seen.clear()
    try:
        if betas:
            client.beta.messages.create(**params, betas=betas, stream=True)
        else:
            client.messages.create(**params, stream=True)
    except anthropic.APIStatusError:
        pass
    assert len(seen) == 1
    return seen[0]


def _sdk_count(client: Any, params: dict[str, Any], seen: list[Any]) -> Any:
    seen.clear()
    counted = {
        k: params[k] for k in ("model", "messages", "system", "tools", "tool_choice", "thinking")
    }
    try:
        client.messages.count_tokens(**counted)
    except anthropic.APIStatusError:
        pass
    assert len(seen) == 1
    return seen[0]


def _ours(request: HttpRequest) -> httpx.Request:
    built = httpx.Request(request.method, request.url, headers=request.headers,
                          content=request.body_bytes())  # fmt: skip
    auth = request.auth
    if auth is None:
        return built

    async def signed() -> httpx.Request:
        assert auth is not None
        flow = auth.async_auth_flow(built)
        out = await flow.__anext__()
        await flow.aclose()
        return out

    return anyio.run(signed)


def _compare(ours: httpx.Request, sdk: Any, *, accept: str) -> None:
    assert str(ours.url) == str(sdk.url)
    assert json.loads(ours.content) == json.loads(sdk.content)
    theirs = {
        k: v
        for k, v in sdk.headers.items()
        if k not in SDK_ONLY and not k.startswith("x-stainless")
    }
    mine = {k: v for k, v in ours.headers.items() if k not in ("host", "content-length")}
    assert mine.pop("accept") == accept
    theirs.pop("accept")
    assert mine == theirs


def _sdk_client(factory: Callable[..., Any]) -> tuple[Any, list[Any]]:
    seen: list[Any] = []

    def handler(request: Any) -> Any:
        request.read()
        seen.append(request)
        return httpx2.Response(
            400, json={"type": "error", "error": {"type": "invalid_request_error", "message": "x"}}
        )

    client = factory(
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)), max_retries=0
    )
    return client, seen


CLOUDS: dict[str, tuple[Callable[..., Any], dict[str, Any], str]] = {
    "anthropic-bedrock": (
        lambda **kw: AnthropicBedrock(api_key=KEY, aws_region="eu-west-3", **kw),
        {"api_key": KEY, "region": "eu-west-3"},
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    ),
    "anthropic-vertex": (
        lambda **kw: AnthropicVertex(
            region="us-east5", project_id="my-proj", access_token=TOKEN, **kw
        ),
        {"project": "my-proj", "location": "us-east5", "access_token": TOKEN},
        "claude-sonnet-4-5@20250929",
    ),
    "anthropic-vertex-global": (
        lambda **kw: AnthropicVertex(
            region="global", project_id="my-proj", access_token=TOKEN, **kw
        ),
        {"project": "my-proj", "location": "global", "access_token": TOKEN},
        "claude-opus-4-5@20251101",
    ),
    "anthropic-foundry": (
        lambda **kw: AnthropicFoundry(resource="my-res", api_key=KEY, **kw),
        {"resource": "my-res", "api_key": KEY},
        "claude-opus-4-5",
    ),
    "anthropic-foundry-entra": (
        lambda **kw: AnthropicFoundry(
            resource="my-res", azure_ad_token_provider=lambda: TOKEN, **kw
        ),
        {"resource": "my-res", "token_provider": lambda: TOKEN},
        "claude-opus-4-5",
    ),
    "anthropic-aws": (
        lambda **kw: AnthropicAWS(
            api_key=KEY, aws_region="us-west-2", workspace_id="wrkspc_01", **kw
        ),
        {"api_key": KEY, "region": "us-west-2", "workspace_id": "wrkspc_01"},
        "claude-opus-4-5",
    ),
    "anthropic-google-cloud": (
        lambda **kw: AnthropicGoogleCloud(
            project="my-proj", workspace_id="wrkspc_01", token_provider=lambda: TOKEN, **kw
        ),
        {"project": "my-proj", "workspace_id": "wrkspc_01", "token_provider": lambda: TOKEN},
        "claude-opus-4-5",
    ),
    "anthropic-bedrock-mantle": (
        lambda **kw: AnthropicBedrockMantle(api_key=KEY, aws_region="us-east-1", **kw),
        {"api_key": KEY, "region": "us-east-1"},
        "anthropic.claude-sonnet-4-5-20250929-v1:0",
    ),
}
COUNTS = ("anthropic-vertex", "anthropic-vertex-global", "anthropic-foundry", "anthropic-aws",
          "anthropic-google-cloud", "anthropic-bedrock-mantle")  # fmt: skip


def _provider(case: str, options: dict[str, Any], **extra: Any) -> Any:
    name = case.removesuffix("-global").removesuffix("-entra")
    return create_provider(name, ProviderConfig.from_mapping({**options, **extra}))


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_BEARER_TOKEN_BEDROCK", "ANTHROPIC_API_KEY",
                "ANTHROPIC_AWS_API_KEY", "ANTHROPIC_VERTEX_BASE_URL", "ANTHROPIC_BEDROCK_BASE_URL",
                "CLOUD_ML_REGION", "ANTHROPIC_VERTEX_PROJECT_ID"):  # fmt: skip
        monkeypatch.delenv(var, raising=False)


@pytest.mark.parametrize(
    "betas", [[], ["context-1m-2025-08-07", "interleaved-thinking-2025-05-14"]]
)
@pytest.mark.parametrize("case", sorted(CLOUDS))
def test_stream_request_equals_the_sdk(case: str, betas: list[str]) -> None:
    factory, options, model = CLOUDS[case]
    request = _request(model)
    client, seen = _sdk_client(factory)
    sdk = _sdk_request(client, _params(request), betas, seen)
    provider = _provider(case, options, betas=betas)
    accept = "application/json" if case == "anthropic-bedrock" else "text/event-stream"
    _compare(_ours(provider.build_request(request)), sdk, accept=accept)


@pytest.mark.parametrize("case", COUNTS)
def test_count_tokens_request_equals_the_sdk(case: str) -> None:
    factory, options, model = CLOUDS[case]
    request = _request(model)
    client, seen = _sdk_client(factory)
    sdk = _sdk_count(client, _params(request), seen)
    provider = _provider(case, options)
    _compare(_ours(provider.count_tokens_request(request)), sdk, accept="application/json")


@pytest.mark.parametrize("case", ["anthropic-aws", "anthropic-google-cloud"])
def test_models_request_equals_the_sdk(case: str) -> None:
    factory, options, _ = CLOUDS[case]
    client, seen = _sdk_client(factory)
    try:
        client.models.list(limit=PAGE_SIZE)
    except anthropic.APIStatusError:
        pass
    provider = _provider(case, options)
    ours = _ours(provider.models_request(None))
    assert str(ours.url) == str(seen[0].url)
    assert ours.headers["authorization"] == seen[0].headers["authorization"]


@pytest.mark.parametrize("case", ["anthropic-bedrock", "anthropic-foundry", "anthropic-vertex",
                                  "anthropic-bedrock-mantle"])  # fmt: skip
def test_clouds_without_a_models_route_have_none(case: str) -> None:
    """The SDK's clients for these clouds have no ``models`` resource either."""
    from llmbridge.providers.base import ListsModels

    _, options, _ = CLOUDS[case]
    assert not isinstance(_provider(case, options), ListsModels)


def test_bedrock_counts_tokens_with_countTokens_where_the_sdk_cannot() -> None:
    """``AnthropicBedrock`` raises 'Token counting is not supported in Bedrock yet'; Bedrock's
    ``CountTokens`` takes the InvokeModel body: botocore's service model judges our request."""
    import base64

    client, _ = _sdk_client(CLOUDS["anthropic-bedrock"][0])
    with pytest.raises(anthropic.AnthropicError, match="not supported"):
        client.messages.count_tokens(model="m", messages=[{"role": "user", "content": "hi"}])
    check = pytest.importorskip("tests.providers.bedrock.botocore_model").check
    provider = _provider("anthropic-bedrock", CLOUDS["anthropic-bedrock"][1], betas=["b1"])
    request = _request("us.anthropic.claude-sonnet-4-5-20250929-v1:0")
    counted = provider.count_tokens_request(request)
    model = "anthropic.claude-sonnet-4-5-20250929-v1:0"  # CountTokens takes the foundation id
    path = f"/model/{model.replace(':', '%3A')}/count-tokens"  # the id encoded as botocore does
    assert counted.url == f"https://bedrock-runtime.eu-west-3.amazonaws.com{path}"
    check(counted.url, counted.json, model_id=model, operation="CountTokens")
    invoke = json.loads(base64.b64decode(counted.json["input"]["invokeModel"]["body"]))
    streamed = provider.build_request(request).json
    assert invoke == streamed and invoke["anthropic_beta"] == ["b1"]
    assert provider.parse_token_count({"inputTokens": 42}) == 42
