"""What each ``anthropic-<cloud>`` provider refuses before sending, and keeps secret.

Missing settings are ``ConfigurationError``s naming how to give them; features a cloud lacks
(server tools, token counting, model listing) fail before any request; keys and tokens never
show in reprs; Bedrock's frames that are not Anthropic events are typed errors.
"""

from __future__ import annotations

import base64
from typing import Any

import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.errors import ConfigurationError, MalformedStreamError, RateLimitError
from llmbridge.frames import EventMessage
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.anthropic_clouds.bedrock_stream import BedrockAnthropicDecoder

KEY = "cloud-secret-key-0123456789"

pytestmark = pytest.mark.anyio


def _make(name: str, env: dict[str, str] | None = None, **options: Any) -> Any:
    return create_provider(name, ProviderConfig.from_mapping({**options, "env": env or {}}))


@pytest.mark.parametrize(
    ("name", "options", "needs"),
    [
        ("anthropic-bedrock", {"api_key": KEY}, "region"),
        ("anthropic-vertex", {"access_token": KEY}, "project"),
        ("anthropic-foundry", {"api_key": KEY}, "resource"),
        ("anthropic-aws", {"api_key": KEY, "region": "us-east-1"}, "workspace"),
        ("anthropic-aws", {"api_key": KEY, "workspace_id": "w"}, "region"),
        ("anthropic-google-cloud", {"access_token": KEY, "project": "p"}, "workspace"),
        ("anthropic-bedrock-mantle", {"api_key": KEY}, "region"),
        ("anthropic-foundry", {"resource": "r"}, "API key"),
    ],
)
def test_missing_settings_are_configuration_errors(
    name: str, options: dict[str, Any], needs: str
) -> None:
    with pytest.raises(ConfigurationError, match=needs):
        _make(name, **options)


def test_settings_come_from_the_sdk_environment_variables() -> None:
    env = {"AWS_REGION": "ap-south-1", "AWS_BEARER_TOKEN_BEDROCK": KEY}
    assert (
        _make("anthropic-bedrock", env).base_url
        == "https://bedrock-runtime.ap-south-1.amazonaws.com"
    )
    env = {"ANTHROPIC_FOUNDRY_RESOURCE": "res", "ANTHROPIC_FOUNDRY_API_KEY": KEY}
    assert _make("anthropic-foundry", env).base_url == "https://res.services.ai.azure.com/anthropic"
    env = {"ANTHROPIC_VERTEX_PROJECT_ID": "p1", "CLOUD_ML_REGION": "europe-west4"}
    vertex = _make("anthropic-vertex", env, access_token=KEY)
    assert (vertex.project, vertex.base_url) == (
        "p1",
        "https://europe-west4-aiplatform.googleapis.com/v1",
    )
    env = {"AWS_DEFAULT_REGION": "eu-central-1", "ANTHROPIC_AWS_API_KEY": KEY,
           "ANTHROPIC_AWS_WORKSPACE_ID": "wrkspc_9"}  # fmt: skip
    aws = _make("anthropic-aws", env)
    request = aws.build_request(
        lb.ChatRequest(model="claude-opus-4-5", messages=[lb.ChatMessage.user("hi")])
    )
    assert request.headers["anthropic-workspace-id"] == "wrkspc_9"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    env = {"AWS_REGION": "us-west-2", "ANTHROPIC_AWS_API_KEY": KEY}
    mantle = _make("anthropic-bedrock-mantle", env)
    assert mantle.base_url == "https://bedrock-mantle.us-west-2.api.aws/anthropic"


def test_a_key_and_a_token_provider_together_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="not both"):
        _make("anthropic-foundry", resource="r", api_key=KEY, token_provider=lambda: "t")


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("anthropic-bedrock", {"api_key": KEY, "region": "us-east-1"}),
        ("anthropic-vertex", {"access_token": KEY, "project": "p", "location": "us-east5"}),
        ("anthropic-foundry", {"api_key": KEY, "resource": "r"}),
        ("anthropic-aws", {"api_key": KEY, "region": "us-east-1", "workspace_id": "w"}),
        ("anthropic-google-cloud", {"access_token": KEY, "project": "p", "workspace_id": "w"}),
        ("anthropic-bedrock-mantle", {"api_key": KEY, "region": "us-east-1"}),
    ],
)
def test_no_secret_in_reprs(name: str, options: dict[str, Any]) -> None:
    provider = _make(name, **options)
    request = provider.build_request(lb.ChatRequest(model="m", messages=[lb.ChatMessage.user("x")]))
    for shown in (repr(provider), repr(request), str(request.redacted_headers())):
        assert KEY not in shown


async def _refused(model: str, options: dict[str, Any], **kwargs: Any) -> Exception:
    sent: list[httpx.Request] = []
    http = httpx.AsyncClient(
        transport=httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(500))
    )
    name = model.partition(":")[0]
    async with lb.Client(http_client=http, providers={name: options}) as client:
        with pytest.raises(lb.LLMBridgeError) as info:
            await client.complete(model, [lb.ChatMessage.user("hi")], **kwargs)
    assert not sent, "refused before sending"
    return info.value


async def test_server_tools_a_cloud_lacks_are_refused_before_sending() -> None:
    options = {"api_key": KEY, "region": "us-east-1"}
    error = await _refused("anthropic-bedrock:anthropic.claude-opus-4-5-20251101-v1:0", options,
                           tools=[lb.WebSearch()])  # fmt: skip
    assert isinstance(error, ConfigurationError | lb.UnsupportedFeatureError)
    vertex = {"access_token": KEY, "project": "p"}
    error = await _refused("anthropic-vertex:claude-opus-4-5@20251101", vertex,
                           tools=[lb.WebFetch()])  # fmt: skip
    assert "web_fetch" in str(error)


def test_the_hosted_tools_option_widens_a_cloud() -> None:
    provider = _make(
        "anthropic-bedrock", api_key=KEY, region="us-east-1", hosted_tools=["web_search"]
    )
    assert provider.capabilities("anthropic.claude-opus-4-5-20251101-v1:0").hosted_tools == {
        "web_search"
    }


async def test_model_listing_where_a_cloud_has_none() -> None:
    http = httpx.AsyncClient(transport=httpx.MockTransport(lambda r: httpx.Response(500)))
    providers = {"anthropic-bedrock": {"api_key": KEY, "region": "us-east-1"},
                 "anthropic-foundry": {"api_key": KEY, "resource": "r"}}  # fmt: skip
    async with lb.Client(http_client=http, providers=providers) as client:
        for name in providers:
            with pytest.raises(lb.LLMBridgeError, match="list"):
                await client.list_models(name)


def test_capabilities_read_the_claude_name_inside_cloud_ids() -> None:
    provider = _make("anthropic-bedrock", api_key=KEY, region="us-east-1")
    assert provider.capabilities("us.anthropic.claude-3-5-haiku-20241022-v1:0").reasoning is False
    assert provider.capabilities("global.anthropic.claude-opus-4-5-20251101-v1:0").reasoning is True
    body = provider.build_request(lb.ChatRequest(model="anthropic.claude-3-5-haiku-20241022-v1:0",
                                                 messages=[lb.ChatMessage.user("x")])).json  # fmt: skip
    assert body["max_tokens"] == 8192 and "model" not in body


def _chunk(payload: dict[str, Any]) -> EventMessage:
    data = orjson.dumps({"bytes": base64.b64encode(orjson.dumps(payload)).decode()})
    return EventMessage("event", data, event_type="chunk")


def test_bedrock_frames_that_are_not_events() -> None:
    decoder = BedrockAnthropicDecoder(provider="anthropic-bedrock")
    start = {
        "type": "message_start",
        "message": {"id": "m", "model": "c", "usage": {"input_tokens": 1}},
    }
    assert decoder.feed_frame(_chunk(start))
    assert decoder.feed_frame(EventMessage("event", b"{}", event_type="unknownEvent")) == []
    with pytest.raises(RateLimitError, match="slow down"):
        decoder.feed_frame(
            EventMessage("exception", b'{"message":"slow down"}', error_type="throttlingException")
        )
    with pytest.raises(MalformedStreamError):
        decoder.feed_frame(_chunk(start))  # refuses input after an error
    decoder = BedrockAnthropicDecoder(provider="anthropic-bedrock")
    with pytest.raises(MalformedStreamError, match="unreadable Bedrock chunk"):
        decoder.feed_frame(
            EventMessage("event", b'{"bytes": "not base64 at all!"}', event_type="chunk")
        )
    decoder = BedrockAnthropicDecoder(provider="anthropic-bedrock")
    with pytest.raises(lb.LLMBridgeError, match="internal"):
        decoder.feed_frame(
            EventMessage(
                "error",
                error_type="InternalFailure",
                headers={":error-message": "internal failure"},
            )
        )


@pytest.mark.parametrize(
    ("name", "service", "extra"),
    [
        ("anthropic-bedrock", "bedrock", {}),
        ("anthropic-aws", "aws-external-anthropic", {"workspace_id": "wrkspc_1"}),
        ("anthropic-bedrock-mantle", "bedrock-mantle", {}),
    ],
)
async def test_aws_clouds_sign_with_their_own_service(
    name: str, service: str, extra: dict[str, Any]
) -> None:
    pytest.importorskip("botocore")
    env = {"AWS_BEARER_TOKEN_BEDROCK": KEY} if name == "anthropic-aws" else {}  # not AWS's key
    options = {"region": "eu-west-1", "aws_access_key_id": "AKIDEXAMPLE",
               "aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", **extra}  # fmt: skip
    provider = _make(name, env, **options)
    built = provider.build_request(
        lb.ChatRequest(model="claude-opus-4-5", messages=[lb.ChatMessage.user("x")])
    )
    assert built.auth is not None and "authorization" not in built.headers
    request = httpx.Request(
        built.method, built.url, headers=built.headers, content=built.body_bytes()
    )
    flow = built.auth.async_auth_flow(request)
    signed = await flow.__anext__()
    await flow.aclose()
    authorization = signed.headers["authorization"]
    assert authorization.startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
    assert f"/eu-west-1/{service}/aws4_request" in authorization
    assert KEY not in authorization


def test_google_clouds_fall_back_to_application_default_credentials(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No token: ``google_auth`` (ADC) gives the auth, and the project when none is set."""
    from llmbridge.auth import BearerAuth
    from llmbridge.auth import google as google_module

    calls: list[str] = []

    def fake_google_auth(config: Any, *, provider: str, needs_project: bool = True) -> Any:
        assert needs_project  # neither option nor environment names the project
        calls.append(provider)
        return google_module.GoogleAuth(auth=BearerAuth("adc-token-0123456789"), project="adc-proj")

    monkeypatch.setattr(google_module, "google_auth", fake_google_auth)
    vertex = _make("anthropic-vertex", location="us-east5")
    assert vertex.project == "adc-proj" and calls == ["anthropic-vertex"]
    request = vertex.build_request(
        lb.ChatRequest(model="claude-opus-4-5", messages=[lb.ChatMessage.user("x")])
    )
    assert isinstance(request.auth, BearerAuth) and "authorization" not in request.headers
    assert "/projects/adc-proj/locations/us-east5/" in request.url
    gcloud = _make("anthropic-google-cloud", workspace_id="w")
    assert "/projects/adc-proj/locations/global/workspaces/w/invoke" in gcloud.base_url
