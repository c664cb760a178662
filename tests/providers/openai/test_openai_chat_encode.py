"""Request building for Chat Completions and its presets: what a server receives."""

from __future__ import annotations

from typing import Any

import pytest

from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.openai.tools import strict_schema
from llmbridge.tool_spec import ToolSpec
from llmbridge.types import (
    ChatMessage,
    ChatRequest,
    ImagePart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
)

TOOL = ToolSpec(
    name="get_weather",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def body(provider: str, **fields: Any) -> dict[str, Any]:
    config = ProviderConfig.from_mapping({"api_key": "k", "base_url": "http://h/v1"})
    fields.setdefault("messages", [ChatMessage.user("hi")])
    return create_provider(provider, config).build_request(ChatRequest(model="m", **fields)).json


def test_strict_schema_requires_everything_and_makes_optionals_nullable() -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["c", "f"]},
            "days": {
                "type": "array",
                "items": {"type": "object", "properties": {"d": {"type": "integer"}}},
            },
            "where": {"$ref": "#/$defs/Place"},
        },
        "required": ["city"],
        "$defs": {
            "Place": {
                "type": "object",
                "properties": {"lat": {"type": "number"}},
                "required": ["lat"],
            }
        },
    }
    out = strict_schema(schema)
    assert out["required"] == ["city", "unit", "days", "where"]
    assert out["additionalProperties"] is False
    assert out["properties"]["city"] == {"type": "string"}
    assert out["properties"]["unit"] == {"type": ["string", "null"], "enum": ["c", "f", None]}
    assert out["properties"]["days"]["type"] == ["array", "null"]
    assert out["properties"]["days"]["items"]["additionalProperties"] is False
    assert out["properties"]["days"]["items"]["required"] == ["d"]
    assert out["properties"]["where"] == {"anyOf": [{"$ref": "#/$defs/Place"}, {"type": "null"}]}
    assert out["$defs"]["Place"]["additionalProperties"] is False
    assert schema["required"] == ["city"]  # the caller's schema is untouched


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "required"),
        ("get_weather", {"type": "function", "function": {"name": "get_weather"}}),
    ],
)
def test_tool_choice_mapping(choice: str, wire: Any) -> None:
    assert body("openai", tools=[TOOL], tool_choice=choice)["tool_choice"] == wire


def test_strict_only_where_the_preset_accepts_it() -> None:
    strict_tool = TOOL.model_copy(update={"strict": True})
    assert body("openai", tools=[strict_tool])["tools"][0]["function"]["strict"] is True
    assert "strict" not in body("mistral", tools=[strict_tool])["tools"][0]["function"]


def test_tool_fields_left_out_without_tools_or_in_prompt_mode() -> None:
    b = body("openai", parallel_tool_calls=False, tool_choice="auto")
    assert not {"tools", "tool_choice", "parallel_tool_calls"} & set(b)
    assert "tools" not in body("openai", tools=[TOOL], tool_mode="prompt")


@pytest.mark.parametrize(
    ("provider", "field"),
    [
        ("openai", "max_completion_tokens"),
        ("azure", "max_completion_tokens"),
        ("groq", "max_completion_tokens"),
        ("ollama", "max_tokens"),
        ("deepseek", "max_tokens"),
        ("mistral", "max_tokens"),
    ],
)
def test_max_tokens_field_per_preset(provider: str, field: str) -> None:
    b = body(provider, max_tokens=99)
    assert b[field] == 99 and ({"max_tokens", "max_completion_tokens"} - {field}).isdisjoint(b)


@pytest.mark.parametrize(
    ("provider", "sent"),
    [("openai", True), ("vllm", True), ("mistral", False), ("llamacpp", True), ("lmstudio", False)],
)
def test_stream_options_only_where_accepted(provider: str, sent: bool) -> None:
    b = body(provider)
    assert b["stream"] is True
    assert ("stream_options" in b) is sent


def test_preset_flags_can_be_overridden_by_options() -> None:
    config = ProviderConfig.from_mapping(
        {"base_url": "http://h/v1", "accepts_stream_options": False}
    )
    provider = create_provider("openai-compatible", config)
    assert "stream_options" not in provider.build_request(ChatRequest(model="m", messages=[])).json


def test_extra_is_merged_last() -> None:
    b = body("openai", temperature=0.1, extra={"temperature": 0.9, "logprobs": True})
    assert (b["temperature"], b["logprobs"]) == (0.9, True)


def test_json_schema_format_and_json_object_fallback() -> None:
    fmt = {"name": "out", "schema": {"type": "object", "properties": {"a": {"type": "string"}}}}
    assert body("openai", response_format=fmt)["response_format"]["json_schema"]["schema"][
        "required"
    ] == ["a"]
    assert body("deepseek", response_format=fmt)["response_format"] == {"type": "json_object"}


def test_images_url_and_base64_and_tool_results() -> None:
    messages = [
        ChatMessage.user(
            "look",
            ImagePart(url="https://x/a.png"),
            ImagePart(data=b"\x89PNG", media_type="image/png"),
        ),
        ChatMessage.assistant(
            tool_calls=[ToolCallPart(id="c1", name="get_weather", arguments={"city": "Oslo"})]
        ),
        ChatMessage.tool_result(
            "c1", [TextPart(text="cold"), ImagePart(url="https://x/radar.png")]
        ),
    ]
    m = body("openai", messages=messages)["messages"]
    assert m[0]["content"][1:] == [
        {"type": "image_url", "image_url": {"url": "https://x/a.png"}},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}},
    ]
    assert m[1] == {
        "role": "assistant",
        "content": "",  # not null: llama-cpp-python answers 500 to null
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
            }
        ],
    }
    assert m[2] == {"role": "tool", "tool_call_id": "c1", "content": "cold"}
    assert m[3] == {
        "role": "user",
        "content": [{"type": "image_url", "image_url": {"url": "https://x/radar.png"}}],
    }


def test_raw_arguments_round_trip_exactly_unless_flagged() -> None:
    good = ToolCallPart(id="a", name="f", arguments={"x": 1}, raw_arguments='{ "x" : 1 }')
    bad = ToolCallPart(id="b", name="f", raw_arguments='{"x": ', error="cut")
    calls = body("openai", messages=[ChatMessage.assistant(tool_calls=[good, bad])])["messages"][0][
        "tool_calls"
    ]
    assert [c["function"]["arguments"] for c in calls] == ['{ "x" : 1 }', "{}"]


def _reasoning_turn(provider_tag: str, with_call: bool) -> list[ChatMessage]:
    calls = [ToolCallPart(id="c", name="f", arguments={})] if with_call else None
    return [
        ChatMessage.assistant(
            "ok", tool_calls=calls, reasoning=[ReasoningPart(text="think", provider=provider_tag)]
        )
    ]


def test_deepseek_sends_its_own_reasoning_back_on_tool_call_turns_only() -> None:
    assert (
        body("deepseek", messages=_reasoning_turn("deepseek", True))["messages"][0][
            "reasoning_content"
        ]
        == "think"
    )
    assert (
        "reasoning_content"
        not in body("deepseek", messages=_reasoning_turn("deepseek", False))["messages"][0]
    )
    # another provider's reasoning is never sent, but the field must be there (empty) on a
    # tool-call turn: DeepSeek answers 400 without it
    foreign = body("deepseek", messages=_reasoning_turn("anthropic", True))["messages"][0]
    assert foreign["reasoning_content"] == ""
    assert (
        "reasoning_content"
        not in body("openai", messages=_reasoning_turn("openai", True))["messages"][0]
    )


def test_reasoning_effort_styles() -> None:
    assert body("openai", reasoning={"effort": "high"})["reasoning_effort"] == "high"
    assert body("openrouter", reasoning={"effort": "low"})["reasoning"] == {"effort": "low"}
    assert "reasoning_effort" not in body("deepseek", reasoning={"effort": "high"})
