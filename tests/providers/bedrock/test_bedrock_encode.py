"""Converse requests as built, judged by botocore's own service model (validator and
serializer), for every content block, setting and option we send."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from pydantic import BaseModel

import llmbridge as lb
from llmbridge.errors import UnsupportedFeatureError
from llmbridge.providers.base import ProviderConfig
from llmbridge.providers.bedrock import BedrockProvider
from llmbridge.providers.bedrock.request import build_body
from llmbridge.types import (
    AudioPart,
    CachePoint,
    ChatRequest,
    DocumentPart,
    ImagePart,
    RawPart,
    ReasoningConfig,
    ReasoningPart,
    ResponseFormat,
    TextPart,
    ToolCallPart,
    ToolChoice,
    ToolResultPart,
    ToolSpec,
)
from tests.providers.bedrock.botocore_model import check

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(40))
PDF = b"%PDF-1.4 tiny"


def provider(**options: Any) -> BedrockProvider:
    return BedrockProvider(ProviderConfig(options=options), region="eu-west-3", auth=None)


def build(
    model: str = "anthropic.claude-sonnet-4-5-20250929-v1:0", **fields: Any
) -> tuple[str, dict[str, Any]]:
    fields.setdefault("messages", [lb.ChatMessage.user("hi")])
    request = ChatRequest(model=model, **fields)
    built = provider().build_request(request)
    assert built.json is not None
    check(built.url, built.json, model_id=model)
    return built.url, built.json


WEATHER = ToolSpec.from_json_schema(
    "get_weather",
    "Weather in a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def test_model_ids_are_encoded_in_the_path_as_botocore_does() -> None:
    url, _ = build("us.anthropic.claude-sonnet-4-5-20250929-v1:0")
    assert url == (
        "https://bedrock-runtime.eu-west-3.amazonaws.com/model/"
        "us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"
    )
    arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123def456"
    url, _ = build(arn)
    assert (
        "/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Aapplication-inference-profile%2Fabc123def456/"
        in url
    )


def test_a_whole_conversation_with_every_block_validates() -> None:
    messages = [
        lb.ChatMessage.system("Be brief."),
        lb.ChatMessage(role="system", content=[TextPart(text="Cache me."), CachePoint()]),
        lb.ChatMessage.user(
            TextPart(text="Look:"),
            ImagePart(data=PNG, media_type="image/png"),
            ImagePart(url="s3://bucket/cat.jpg"),
            DocumentPart(data=PDF, media_type="application/pdf", name="report_2024.pdf"),
            DocumentPart(url="data:text/csv;base64," + base64.b64encode(b"a,b").decode()),
            AudioPart(data=b"RIFF....", media_type="audio/wav"),
            CachePoint(ttl=3600),
        ),
        lb.ChatMessage(
            role="assistant",
            content=[
                ReasoningPart(text="Think.", signature="sig==", provider="bedrock"),
                ReasoningPart(
                    provider="bedrock",
                    provider_data={"redacted_content": base64.b64encode(b"opaque").decode()},
                ),
                ReasoningPart(text="not mine", signature="x", provider="anthropic"),
                RawPart(
                    provider="bedrock",
                    data={
                        "toolUse": {
                            "toolUseId": "tooluse_s",
                            "name": "nova_code_interpreter",
                            "type": "server_tool_use",
                            "input": {"snippet": "1+1"},
                        }
                    },
                ),
                TextPart(text="Calling."),
                ToolCallPart(id="tooluse_1", name="get_weather", arguments={"city": "Paris"}),
                ToolCallPart(id="call.with:odd/chars", name="get_weather", arguments={}),
            ],
        ),
        lb.ChatMessage(
            role="tool",
            content=[
                ToolResultPart(tool_call_id="tooluse_1", content=[TextPart(text='{"temp": 21}')])
            ],
        ),
        lb.ChatMessage(
            role="tool",
            content=[
                ToolResultPart(
                    tool_call_id="call.with:odd/chars",
                    is_error=True,
                    content=[TextPart(text="boom"), ImagePart(data=PNG, media_type="image/png")],
                )
            ],
        ),
        lb.ChatMessage.user("Thanks"),
    ]
    _, body = build(messages=messages, tools=[WEATHER], tools_cache_point=CachePoint())
    assert body["system"] == [
        {"text": "Be brief."},
        {"text": "Cache me."},
        {"cachePoint": {"type": "default"}},
    ]
    user, assistant, results = body["messages"]
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    blocks = user["content"]
    assert blocks[1] == {
        "image": {"format": "png", "source": {"bytes": base64.b64encode(PNG).decode()}}
    }
    assert blocks[2] == {
        "image": {"format": "jpeg", "source": {"s3Location": {"uri": "s3://bucket/cat.jpg"}}}
    }
    assert (
        blocks[3]["document"]["name"] == "report 2024 pdf"
        and blocks[3]["document"]["format"] == "pdf"
    )
    assert blocks[4]["document"] == {
        "format": "csv",
        "name": "document-2",
        "source": {"bytes": "YSxi"},
    }
    assert blocks[6] == {"cachePoint": {"type": "default", "ttl": "1h"}}
    content = assistant["content"]
    assert content[0] == {
        "reasoningContent": {"reasoningText": {"text": "Think.", "signature": "sig=="}}
    }
    assert content[1] == {
        "reasoningContent": {"redactedContent": base64.b64encode(b"opaque").decode()}
    }
    assert content[2]["toolUse"]["type"] == "server_tool_use"  # the foreign reasoning is gone
    call_ids = [b["toolUse"]["toolUseId"] for b in content if "toolUse" in b][1:]
    assert call_ids[0] == "tooluse_1" and "/" not in call_ids[1]
    assert results["content"][0] == {
        "toolResult": {"toolUseId": "tooluse_1", "content": [{"json": {"temp": 21}}]}
    }
    errored = results["content"][1]["toolResult"]
    assert errored["status"] == "error" and errored["toolUseId"] == call_ids[1]
    assert errored["content"][0] == {"text": "boom"} and "image" in errored["content"][1]
    assert results["content"][2] == {"text": "Thanks"}  # consecutive user turns merged
    assert body["toolConfig"]["tools"][-1] == {"cachePoint": {"type": "default"}}


def test_settings_tools_choice_and_structured_output() -> None:
    class City(BaseModel):
        """A city."""

        name: str
        population: int

    fmt = ResponseFormat(name="City", schema=City.model_json_schema())
    _, body = build(
        max_tokens=512,
        temperature=0.2,
        top_p=0.9,
        stop=["END"],
        top_k=40,
        tools=[WEATHER.model_copy(update={"strict": True})],
        tool_choice=ToolChoice.tool("get_weather"),
        response_format=fmt,
    )
    assert body["inferenceConfig"] == {
        "maxTokens": 512,
        "temperature": 0.2,
        "topP": 0.9,
        "stopSequences": ["END"],
    }
    assert body["additionalModelRequestFields"] == {"top_k": 40}
    assert body["toolConfig"]["toolChoice"] == {"tool": {"name": "get_weather"}}
    assert body["toolConfig"]["tools"][0]["toolSpec"]["strict"] is True
    structure = body["outputConfig"]["textFormat"]["structure"]["jsonSchema"]
    assert structure["name"] == "City" and structure["description"] == "A city."
    assert isinstance(structure["schema"], str) and '"population"' in structure["schema"]
    _, body = build(tools=[WEATHER], tool_choice=ToolChoice(mode="required"))
    assert body["toolConfig"]["toolChoice"] == {"any": {}}
    _, body = build(tools=[WEATHER], tool_choice=ToolChoice(mode="none"))
    assert "toolConfig" not in body
    _, body = build(tools=[WEATHER])
    assert "toolChoice" not in body["toolConfig"]


@pytest.mark.parametrize(
    ("model", "fields", "expected"),
    [
        (
            "anthropic.claude-sonnet-4-5-20250929-v1:0",
            {"budget_tokens": 2000},
            {"thinking": {"type": "enabled", "budget_tokens": 2000}},
        ),
        (
            "us.anthropic.claude-3-7-sonnet-20250219-v1:0",
            {"effort": "low"},
            {"thinking": {"type": "enabled", "budget_tokens": 2048}},
        ),
        (
            "us.amazon.nova-2-lite-v1:0",
            {"effort": "high"},
            {"reasoningConfig": {"type": "enabled", "maxReasoningEffort": "high"}},
        ),
        ("openai.gpt-oss-120b-1:0", {"effort": "medium"}, {"reasoning_effort": "medium"}),
    ],
)
def test_reasoning_goes_in_the_family_fields(
    model: str, fields: dict[str, Any], expected: dict[str, Any]
) -> None:
    _, body = build(model, reasoning=ReasoningConfig(**fields), max_tokens=1000)
    assert body["additionalModelRequestFields"] == expected
    if "thinking" in expected:  # maxTokens leaves room for the thinking budget
        assert body["inferenceConfig"]["maxTokens"] > expected["thinking"]["budget_tokens"]


def test_nova_top_k_and_provider_options() -> None:
    options = {
        "guardrail_config": {
            "guardrailIdentifier": "gr-1",
            "guardrailVersion": "1",
            "trace": "enabled",
        },
        "performanceConfig": {"latency": "optimized"},
        "request_metadata": {"team": "search"},
        "service_tier": {"type": "flex"},
    }
    request = ChatRequest(
        model="us.amazon.nova-pro-v1:0", messages=[lb.ChatMessage.user("hi")], top_k=5
    )
    built = provider(**options).build_request(request)
    assert built.json is not None
    check(built.url, built.json, model_id=request.model)
    assert built.json["additionalModelRequestFields"] == {"inferenceConfig": {"topK": 5}}
    assert built.json["guardrailConfig"]["guardrailIdentifier"] == "gr-1"
    assert built.json["performanceConfig"] == {"latency": "optimized"}
    assert built.json["requestMetadata"] == {"team": "search"}
    assert built.json["serviceTier"] == {"type": "flex"}


def test_what_converse_cannot_carry_is_a_warning() -> None:
    request = ChatRequest(
        model="meta.llama3-70b-instruct-v1:0",
        messages=[lb.ChatMessage.user("hi")],
        seed=1,
        presence_penalty=0.5,
        top_k=3,
        reasoning=ReasoningConfig(effort="high"),
        tools=[WEATHER],
        parallel_tool_calls=False,
    )
    warnings = build_body(request, provider="bedrock").warnings
    assert any(w.startswith("seed") for w in warnings)
    assert any(w.startswith("presence_penalty") for w in warnings)
    assert any(w.startswith("top_k") for w in warnings)
    assert any(w.startswith("reasoning") for w in warnings)
    assert any(w.startswith("parallel_tool_calls") for w in warnings)
    built = provider().build_request(request)
    assert built.json is not None and "additionalModelRequestFields" not in built.json


def test_structured_output_only_where_aws_enforces_it() -> None:
    assert (
        provider().capabilities("us.anthropic.claude-haiku-4-5-20251001-v1:0").json_mode == "schema"
    )
    assert provider().capabilities("anthropic.claude-3-5-sonnet-20240620-v1:0").json_mode == "none"
    assert provider().capabilities("us.amazon.nova-pro-v1:0").json_mode == "none"
    assert (
        provider(structured_output=True).capabilities("us.amazon.nova-pro-v1:0").json_mode
        == "schema"
    )
    assert not provider().capabilities("amazon.titan-text-express-v1").native_tools


def test_urls_bedrock_would_have_to_fetch_are_refused() -> None:
    request = ChatRequest(
        model="anthropic.claude-3-haiku-20240307-v1:0",
        messages=[lb.ChatMessage.user(ImagePart(url="https://example.com/cat.png"))],
    )
    with pytest.raises(UnsupportedFeatureError, match="s3://"):
        provider().build_request(request)


def test_count_tokens_request_validates_against_count_tokens() -> None:
    request = ChatRequest(
        model="us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        messages=[lb.ChatMessage.system("Brief."), lb.ChatMessage.user("hi")],
        tools=[WEATHER],
        max_tokens=100,
    )
    built = provider().count_tokens_request(request)
    assert built.json is not None
    check(
        built.url,
        built.json,
        model_id="anthropic.claude-sonnet-4-5-20250929-v1:0",
        operation="CountTokens",
    )
    assert built.url.endswith("/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/count-tokens")
    assert set(built.json["input"]["converse"]) == {"messages", "system", "toolConfig"}
    assert provider().parse_token_count({"inputTokens": 17}) == 17


@pytest.mark.parametrize("scenario", ["reasoning_tool_call", "redacted_reasoning", "plain_text"])
def test_a_decoded_answer_goes_back_as_valid_history(scenario: str) -> None:
    from pathlib import Path

    from llmbridge.response import Accumulator
    from llmbridge.testing import load_fixture
    from tests.providers.bedrock.bedrock_helpers import decode

    fx = load_fixture(Path(__file__).resolve().parents[3] / "fixtures" / "bedrock" / scenario)
    acc = Accumulator(provider="bedrock")
    for event in decode(fx.body):
        acc.add(event)
    answer = acc.response().message
    history = [*fx.request.messages, answer]
    for part in answer.content:
        if isinstance(part, ToolCallPart):
            history.append(
                lb.ChatMessage(
                    role="tool",
                    content=[
                        ToolResultPart(
                            tool_call_id=part.id, content=[TextPart(text='{"rain": false}')]
                        )
                    ],
                )
            )
    history.append(lb.ChatMessage.user("And tomorrow?"))
    model = fx.model.partition(":")[2]
    _, body = build(model, messages=history, tools=fx.request.tools)
    sent = [m for m in body["messages"] if m["role"] == "assistant"][-1]
    assert body["messages"][-1]["content"][-1] == {"text": "And tomorrow?"}
    kinds = [next(iter(block)) for block in sent["content"]]
    if scenario == "reasoning_tool_call":
        assert kinds == ["reasoningContent", "text", "toolUse"]
        assert sent["content"][0]["reasoningContent"]["reasoningText"]["signature"].startswith(
            "EqQB"
        )
    elif scenario == "redacted_reasoning":
        assert kinds == ["reasoningContent", "text"]
        assert "redactedContent" in sent["content"][0]["reasoningContent"]
    else:
        assert kinds == ["text"]


def test_nova_2_runs_web_grounding_and_the_code_interpreter() -> None:
    _, body = build(
        "us.amazon.nova-2-lite-v1:0",
        tools=[WEATHER],
        tool_choice=ToolChoice(mode="required"),
        hosted_tools=[lb.WebSearch(), lb.CodeExecution()],
    )
    assert body["toolConfig"]["tools"][1:] == [
        {"systemTool": {"name": "nova_grounding"}},
        {"systemTool": {"name": "nova_code_interpreter"}},
    ]
    assert body["toolConfig"]["toolChoice"] == {"any": {}}
    _, body = build("us.amazon.nova-2-lite-v1:0", hosted_tools=[lb.WebSearch()])
    assert body["toolConfig"] == {"tools": [{"systemTool": {"name": "nova_grounding"}}]}
    request = ChatRequest(
        model="us.amazon.nova-2-lite-v1:0",
        messages=[lb.ChatMessage.user("hi")],
        hosted_tools=[lb.WebSearch(max_uses=2)],
    )
    assert any("max_uses" in w for w in build_body(request, provider="bedrock").warnings)
    assert provider().capabilities("us.amazon.nova-2-lite-v1:0").hosted_tools == {
        "web_search",
        "code_execution",
    }
    assert not provider().capabilities("us.amazon.nova-pro-v1:0").hosted_tools
    with pytest.raises(lb.ConfigurationError, match="domain filters"):
        provider().build_request(
            ChatRequest(
                model="us.amazon.nova-2-lite-v1:0",
                messages=[lb.ChatMessage.user("hi")],
                hosted_tools=[lb.WebSearch(allowed_domains=["aws.amazon.com"])],
            )
        )


def test_count_tokens_sends_arns_as_they_are() -> None:
    arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123def456"
    built = provider().count_tokens_request(
        ChatRequest(model=arn, messages=[lb.ChatMessage.user("hi")])
    )
    assert (
        "/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Aapplication-inference-profile%2Fabc123def456/count-tokens"
        in built.url
    )


def test_cache_point_lifetimes_round_up_to_what_bedrock_offers() -> None:
    from llmbridge.providers.bedrock.messages import cache_point

    assert [
        cache_point(CachePoint(ttl=t))["cachePoint"].get("ttl") for t in (None, 60, 300, 301, 7200)
    ] == [None, "5m", "5m", "1h", "1h"]
