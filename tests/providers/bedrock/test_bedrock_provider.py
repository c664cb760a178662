"""``bedrock:`` through the client: the URL and auth sent, complete() and stream(), a model
without botocore, list_models over both control-plane lists, count_tokens."""

from __future__ import annotations

import sys
from typing import Any

import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.errors import ConfigurationError, RateLimitError
from tests.fakes import ChunkedBody
from tests.providers.bedrock.frames import converse

pytestmark = pytest.mark.anyio

KEY = "ABSKQmVkcm9ja0FQSUtleS1zZWNyZXQ="
MODEL = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
BODY = converse(
    ("messageStart", {"role": "assistant"}),
    ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Bonjour"}}),
    ("contentBlockStop", {"contentBlockIndex": 0}),
    ("messageStop", {"stopReason": "end_turn"}),
    (
        "metadata",
        {
            "usage": {"inputTokens": 3, "outputTokens": 1, "totalTokens": 4},
            "metrics": {"latencyMs": 5},
        },
    ),
)


def _client(handler: Any, **options: Any) -> tuple[lb.Client, httpx.AsyncClient]:
    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    config = {"api_key": KEY, "region": "eu-central-1", **options}
    return lb.Client(http_client=http, providers={"bedrock": config}), http


def _stream(content: bytes, status: int = 200, **headers: str) -> httpx.Response:
    return httpx.Response(
        status,
        headers={
            "content-type": "application/vnd.amazon.eventstream",
            "x-amzn-requestid": "rid-1",
            **headers,
        },
        stream=ChunkedBody([content[:50], content[50:]]),
    )


async def test_complete_sends_the_converse_request_with_the_bearer_key() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return _stream(BODY)

    client, http = _client(handler)
    async with http:
        resp = await client.complete(
            f"bedrock:{MODEL}", [lb.ChatMessage.user("Salut")], max_tokens=20
        )
    assert resp.text == "Bonjour" and resp.finish_reason == "stop" and resp.request_id == "rid-1"
    assert resp.usage is not None and resp.usage.input_tokens == 3
    request = seen[0]
    assert str(request.url) == (
        "https://bedrock-runtime.eu-central-1.amazonaws.com/model/"
        "us.anthropic.claude-haiku-4-5-20251001-v1%3A0/converse-stream"
    )
    assert request.url.raw_path.endswith(b"v1%3A0/converse-stream")  # sent encoded, as signed
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["accept"] == "application/vnd.amazon.eventstream"
    body = orjson.loads(request.content)
    assert body["messages"] == [{"role": "user", "content": [{"text": "Salut"}]}]
    assert body["inferenceConfig"] == {"maxTokens": 20}


async def test_throttling_before_the_stream_is_retried_then_typed() -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        return httpx.Response(
            429,
            headers={
                "x-amzn-errortype": "ThrottlingException:http://internal.amazon.com/",
                "retry-after": "0",
            },
            json={"message": "Too many requests, please wait before trying again."},
        )

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    client = lb.Client(
        http_client=http,
        providers={"bedrock": {"api_key": KEY, "region": "us-east-1"}},
        retry=lb.RetryPolicy(max_attempts=2),
    )
    async with http:
        with pytest.raises(RateLimitError) as info:
            await client.complete(f"bedrock:{MODEL}", [lb.ChatMessage.user("hi")])
    assert calls == 2 and info.value.error_type == "ThrottlingException"
    assert KEY not in str(info.value) and KEY not in repr(info.value.body)


async def test_a_bedrock_model_without_botocore_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in [m for m in sys.modules if m == "botocore" or m.startswith("botocore.")]:
        monkeypatch.setitem(sys.modules, name, None)  # type: ignore[arg-type]
    monkeypatch.setitem(sys.modules, "botocore", None)  # type: ignore[arg-type]
    monkeypatch.delenv("AWS_BEARER_TOKEN_BEDROCK", raising=False)
    client = lb.Client(providers={"bedrock": {"region": "us-east-1"}})
    with pytest.raises(ConfigurationError, match=r"llmbridge\[bedrock\]"):
        await client.complete(f"bedrock:{MODEL}", [lb.ChatMessage.user("hi")])


async def test_list_models_reads_foundation_models_then_every_profile_page() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        path = request.url.path
        if path == "/foundation-models":
            return httpx.Response(
                200,
                json={
                    "modelSummaries": [
                        {
                            "modelId": "anthropic.claude-3-haiku-20240307-v1:0",
                            "modelName": "Claude 3 Haiku",
                            "responseStreamingSupported": True,
                            "outputModalities": ["TEXT"],
                        },
                        {
                            "modelId": "amazon.titan-embed-text-v2:0",
                            "modelName": "Titan Embeddings",
                            "outputModalities": ["EMBEDDING"],
                        },
                        {
                            "modelId": "stability.sd3",
                            "modelName": "SD3",
                            "responseStreamingSupported": False,
                            "outputModalities": ["IMAGE"],
                        },
                    ]
                },
            )
        if request.url.params.get("nextToken") is None:
            return httpx.Response(
                200,
                json={
                    "inferenceProfileSummaries": [
                        {
                            "inferenceProfileId": "us.anthropic.claude-haiku-4-5-20251001-v1:0",
                            "inferenceProfileName": "US Claude Haiku 4.5",
                            "type": "SYSTEM_DEFINED",
                        },
                    ],
                    "nextToken": "page2",
                },
            )
        return httpx.Response(
            200,
            json={
                "inferenceProfileSummaries": [
                    {
                        "inferenceProfileId": "abc123",
                        "inferenceProfileArn": "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123",
                        "inferenceProfileName": "mine",
                        "type": "APPLICATION",
                    },
                ]
            },
        )

    client, http = _client(handler)
    async with http:
        models = await client.list_models("bedrock")
    assert [m.id for m in models] == [
        "anthropic.claude-3-haiku-20240307-v1:0",
        "us.anthropic.claude-haiku-4-5-20251001-v1:0",
        "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123",
    ]
    assert models[0].display_name == "Claude 3 Haiku" and models[0].model.startswith("bedrock:")
    assert seen[0] == "https://bedrock.eu-central-1.amazonaws.com/foundation-models"
    assert (
        seen[1] == "https://bedrock.eu-central-1.amazonaws.com/inference-profiles?maxResults=1000"
    )
    assert seen[2].endswith("?maxResults=1000&nextToken=page2")


async def test_count_tokens_posts_to_count_tokens() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path.endswith(
            "/model/anthropic.claude-haiku-4-5-20251001-v1:0/count-tokens"
        )
        assert orjson.loads(request.content)["input"]["converse"]["messages"]
        return httpx.Response(200, json={"inputTokens": 12})

    client, http = _client(handler)
    async with http:
        assert await client.count_tokens(f"bedrock:{MODEL}", [lb.ChatMessage.user("hi")]) == 12


async def test_structured_output_native_on_claude_4_5_and_in_the_prompt_on_nova() -> None:
    from pydantic import BaseModel

    class City(BaseModel):
        city: str
        population: int

    sent: list[dict[str, Any]] = []
    answer = converse(
        ("messageStart", {"role": "assistant"}),
        ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": '{"city": "Paris", '}}),
        (
            "contentBlockDelta",
            {"contentBlockIndex": 0, "delta": {"text": '"population": 2102650}'}},
        ),
        ("messageStop", {"stopReason": "end_turn"}),
    )

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(orjson.loads(request.content))
        return _stream(answer)

    client, http = _client(handler)
    async with http:
        native = await client.complete(
            f"bedrock:{MODEL}", [lb.ChatMessage.user("Paris?")], response_format=City
        )
        prompted = await client.complete(
            "bedrock:us.amazon.nova-pro-v1:0", [lb.ChatMessage.user("Paris?")], response_format=City
        )
    assert native.parsed == City(city="Paris", population=2102650) == prompted.parsed
    assert sent[0]["outputConfig"]["textFormat"]["type"] == "json_schema"
    assert (
        "outputConfig" not in sent[1] and "population" in orjson.dumps(sent[1]["system"]).decode()
    )


async def test_a_profile_signs_with_sigv4_even_with_the_key_variable_set(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "config").write_text("[profile work]\nregion = ap-southeast-2\n")
    (tmp_path / "credentials").write_text(
        "[work]\naws_access_key_id = AKIDEXAMPLEWORK\naws_secret_access_key = work-secret\n"
    )
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "credentials"))
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "a-key-the-profile-beats")
    for name in (
        "AWS_REGION",
        "AWS_DEFAULT_REGION",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_PROFILE",
    ):
        monkeypatch.delenv(name, raising=False)
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return _stream(BODY)

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    client = lb.Client(http_client=http, providers={"bedrock": {"profile": "work"}})
    async with http:
        resp = await client.complete(f"bedrock:{MODEL}", [lb.ChatMessage.user("hi")])
    assert resp.text == "Bonjour"
    sent = seen[0]
    assert sent.url.host == "bedrock-runtime.ap-southeast-2.amazonaws.com"  # the profile's region
    auth = sent.headers["authorization"]
    assert auth.startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLEWORK/")
    assert "/ap-southeast-2/bedrock/aws4_request" in auth


async def test_cost_comes_from_bedrock_prices() -> None:
    pytest.importorskip("genai_prices")

    def handler(request: httpx.Request) -> httpx.Response:
        return _stream(BODY)

    client, http = _client(handler)
    async with http:
        resp = await client.complete(
            "bedrock:us.amazon.nova-micro-v1:0", [lb.ChatMessage.user("hi")]
        )
    assert resp.cost is not None and resp.cost > 0  # 3 input + 1 output tokens of Nova Micro


async def test_a_hosted_tool_on_a_model_without_system_tools_is_refused_before_sending() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("nothing is sent")

    client, http = _client(handler)
    async with http:
        with pytest.raises(ConfigurationError, match=r"bedrock \(Nova 2\)"):
            await client.complete(
                "bedrock:us.amazon.nova-pro-v1:0",
                [lb.ChatMessage.user("hi")],
                tools=[lb.WebSearch()],
            )


async def test_models_without_streaming_tools_get_prompt_tools() -> None:
    sent: list[dict[str, Any]] = []
    answer = converse(
        ("messageStart", {"role": "assistant"}),
        (
            "contentBlockDelta",
            {
                "contentBlockIndex": 0,
                "delta": {
                    "text": '<function_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</function_call>'
                },
            },
        ),
        ("messageStop", {"stopReason": "end_turn"}),
    )

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(orjson.loads(request.content))
        return _stream(answer)

    weather = lb.ToolSpec.from_json_schema(
        "get_weather", "Weather.", {"type": "object", "properties": {"city": {"type": "string"}}}
    )
    client, http = _client(handler)
    model = "bedrock:us.meta.llama3-3-70b-instruct-v1:0"
    async with http:
        first = await client.complete(model, [lb.ChatMessage.user("Paris?")], tools=[weather])
        assert [c.name for c in first.tool_calls] == ["get_weather"]
        history = [
            lb.ChatMessage.user("Paris?"),
            first.message,
            lb.ChatMessage.tool_result(first.tool_calls[0].id, "sunny"),
        ]
        await client.complete(model, history, tools=[weather])
    assert "toolConfig" not in sent[0] and "get_weather" in orjson.dumps(sent[0]["system"]).decode()
    blocks = [next(iter(b)) for m in sent[1]["messages"] for b in m["content"]]
    assert "toolConfig" not in sent[1] and set(blocks) == {"text"}  # tool turns as text
    assert provider_native("us.meta.llama4-maverick-17b-instruct-v1:0")
    assert not provider_native("us.mistral.mistral-large-2407-v1:0")


def provider_native(model: str) -> bool:
    from llmbridge.providers.base import ProviderConfig
    from llmbridge.providers.bedrock import BedrockProvider

    return (
        BedrockProvider(ProviderConfig(), region="us-east-1", auth=None)
        .capabilities(model)
        .native_tools
    )
