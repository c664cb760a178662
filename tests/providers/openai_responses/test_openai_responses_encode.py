"""Request building (pure): what the Responses API receives for each kind of input."""

from __future__ import annotations

from typing import Any

import pytest

from llmbridge.errors import ConfigurationError, ContextLengthError, RateLimitError
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.openai_responses import OpenAIResponsesProvider
from llmbridge.tool_spec import ToolSpec
from llmbridge.types import (
    ChatMessage,
    ChatRequest,
    ImagePart,
    RawPart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
)


def provider(**config: Any) -> OpenAIResponsesProvider:
    p = create_provider(
        "openai-responses", ProviderConfig.from_mapping({"api_key": "sk-test-123", **config})
    )
    assert isinstance(p, OpenAIResponsesProvider)
    return p


def body(*messages: ChatMessage, **kw: Any) -> dict[str, Any]:
    return provider().build_request(ChatRequest(model="gpt-5", messages=list(messages), **kw)).json


def test_request_shape_and_auth() -> None:
    req = provider().build_request(ChatRequest(model="gpt-5", messages=[ChatMessage.user("hi")]))
    assert (req.method, req.url) == ("POST", "https://api.openai.com/v1/responses")
    assert req.headers["Authorization"] == "Bearer sk-test-123"
    assert req.json["stream"] is True and req.json["store"] is False
    assert "sk-test-123" not in repr(provider()) and "sk-test-123" not in repr(req)


def test_key_from_environment_base_url_and_org_headers() -> None:
    p = create_provider(
        "openai-responses",
        ProviderConfig.from_mapping(
            {
                "env": {"OPENAI_API_KEY": "sk-env"},
                "base_url": "https://gw.example/v1/",
                "organization": "org-1",
            }
        ),
    )
    req = p.build_request(ChatRequest(model="m", messages=[ChatMessage.user("x")]))
    assert req.url == "https://gw.example/v1/responses"
    assert req.headers["Authorization"] == "Bearer sk-env"
    assert req.headers["OpenAI-Organization"] == "org-1"
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        create_provider("openai-responses", ProviderConfig.from_mapping({"env": {}}))


def test_leading_system_is_instructions_later_system_stays_in_place() -> None:
    b = body(
        ChatMessage.system("A"),
        ChatMessage.system("B"),
        ChatMessage.user("u"),
        ChatMessage.system("C"),
    )
    assert b["instructions"] == "A\n\nB"
    assert b["input"][-1] == {
        "type": "message",
        "role": "system",
        "content": [{"type": "input_text", "text": "C"}],
    }


def test_images_and_tool_results_with_images() -> None:
    img = ImagePart(data=b"\x89PNG", media_type="image/png")
    b = body(
        ChatMessage.user("look", img),
        ChatMessage.assistant(tool_calls=[ToolCallPart(id="c1", name="snap", arguments={})]),
        ChatMessage.tool_result("c1", [TextPart(text="shot:"), ImagePart(url="https://x/y.png")]),
    )
    assert b["input"][0]["content"][1] == {
        "type": "input_image",
        "image_url": "data:image/png;base64,iVBORw==",
        "detail": "auto",
    }
    call, output = b["input"][1], b["input"][2]
    assert call == {"type": "function_call", "call_id": "c1", "name": "snap", "arguments": "{}"}
    assert output["output"] == [
        {"type": "input_text", "text": "shot:"},
        {"type": "input_image", "image_url": "https://x/y.png", "detail": "auto"},
    ]


def test_reasoning_round_trip_rules() -> None:
    ours = ReasoningPart(
        text="t",
        provider="openai-responses",
        provider_data={"id": "rs_1", "encrypted_content": "E"},
    )
    no_enc = ReasoningPart(text="t", provider="openai-responses", provider_data={"id": "rs_2"})
    other = ReasoningPart(text="t", provider="anthropic", signature="sig")
    call = ToolCallPart(
        id="c1",
        name="f",
        raw_arguments='{"a":1}',
        arguments={"a": 1},
        provider_data={"item_id": "fc_1"},
    )
    msg = ChatMessage(role="assistant", content=[other, no_enc, call])
    b = body(ChatMessage.user("q"), msg, reasoning={"effort": "high"})
    # reasoning without encrypted content cannot be resolved statelessly; the fc id would then
    # be rejected without its reasoning item, so it is left out too
    assert b["input"][1:] == [
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": '{"a":1}'}
    ]
    assert b["include"] == ["reasoning.encrypted_content"]
    assert b["reasoning"] == {"effort": "high", "summary": "auto"}

    msg = ChatMessage(role="assistant", content=[ours, call])
    b = body(ChatMessage.user("q"), msg)
    assert b["input"][1] == {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "t"}],
        "encrypted_content": "E",
    }
    assert b["input"][2]["id"] == "fc_1"
    # with store: true the server resolves reasoning by id
    b = body(
        ChatMessage.user("q"),
        ChatMessage(role="assistant", content=[no_enc]),
        extra={"store": True},
    )
    assert b["input"][1] == {
        "type": "reasoning",
        "id": "rs_2",
        "summary": [{"type": "summary_text", "text": "t"}],
    }
    assert "store" in b and b["store"] is True and "include" not in b


def test_raw_parts_of_this_provider_go_back_verbatim() -> None:
    item = {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search"},
    }
    msg = ChatMessage(
        role="assistant",
        content=[
            RawPart(provider="openai-responses", data=item),
            RawPart(provider="anthropic", data={"x": 1}),
            TextPart(text="ok"),
        ],
    )
    b = body(ChatMessage.user("q"), msg)
    assert b["input"][1:] == [
        item,
        {"type": "message", "role": "assistant", "content": "ok"},
    ]


def test_tools_choice_format_and_options() -> None:
    spec = ToolSpec.from_json_schema(
        "get_weather", "Weather.", {"type": "object", "properties": {}}
    )
    b = body(
        ChatMessage.user("q"),
        tools=[spec],
        tool_choice="get_weather",
        parallel_tool_calls=False,
        max_tokens=100,
        top_p=0.5,
        response_format={"name": "r", "schema": {"type": "object"}},
        extra={
            "tools": [{"type": "web_search"}],
            "include": ["web_search_call.action.sources"],
            "text": {"verbosity": "low"},
        },
    )
    assert b["tools"] == [
        {
            "type": "function",
            "name": "get_weather",
            "description": "Weather.",
            "parameters": {"type": "object", "properties": {}},
            "strict": False,
        },
        {"type": "web_search"},
    ]
    assert b["tool_choice"] == {"type": "function", "name": "get_weather"}
    assert (b["parallel_tool_calls"], b["max_output_tokens"], b["top_p"]) == (False, 100, 0.5)
    assert b["text"] == {
        "format": {
            "type": "json_schema",
            "name": "r",
            "schema": {  # strict mode: a closed object
                "type": "object",
                "properties": {},
                "required": [],
                "additionalProperties": False,
            },
            "strict": True,
        },
        "verbosity": "low",
    }
    assert b["include"] == ["web_search_call.action.sources"]
    assert "tools" not in body(ChatMessage.user("q"), tools=[spec], tool_mode="prompt")


def test_dropped_settings_become_warnings() -> None:
    p = provider()
    req = ChatRequest(
        model="m", messages=[ChatMessage.user("q")], stop=["END"], reasoning={"budget_tokens": 2000}
    )
    assert "stop" not in p.build_request(req).json
    assert len(p.prepare(req).warnings) == 2


def test_http_errors_are_typed() -> None:
    p = provider()
    err = p.map_error(
        status=400,
        headers={"x-request-id": "req_1"},
        body=b'{"error":{"message":"too long","type":"invalid_request_error","code":"context_length_exceeded"}}',
    )
    assert isinstance(err, ContextLengthError) and err.request_id == "req_1"
    err = p.map_error(
        status=429, headers={"retry-after": "3"}, body=b'{"error":{"message":"slow"}}'
    )
    assert isinstance(err, RateLimitError) and err.retry_after == 3.0
