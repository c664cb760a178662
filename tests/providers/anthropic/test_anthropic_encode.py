"""The Anthropic request builder and provider wiring (pure; no network)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from llmbridge.errors import ConfigurationError, OverloadedError, RateLimitError
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.anthropic import AnthropicProvider
from llmbridge.response import accumulate
from llmbridge.testing import decode_body, load_fixture
from llmbridge.tool_spec import ToolSpec
from llmbridge.types import (
    ChatMessage,
    ChatRequest,
    ImagePart,
    RawPart,
    ReasoningConfig,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolChoice,
)

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "anthropic"
TOOL = ToolSpec(
    name="get_weather", parameters={"type": "object", "properties": {"city": {"type": "string"}}}
)


def provider(**options: Any) -> AnthropicProvider:
    return AnthropicProvider(ProviderConfig.from_mapping({"api_key": "sk-ant-secret", **options}))


def body(req: ChatRequest, **options: Any) -> dict[str, Any]:
    return provider(**options).build_request(req).json


def req(*messages: ChatMessage, **kw: Any) -> ChatRequest:
    return ChatRequest(model=kw.pop("model", "claude-sonnet-4-6"), messages=list(messages), **kw)


def test_registry_builds_the_provider_with_env_key() -> None:
    p = create_provider("anthropic", ProviderConfig(env={"ANTHROPIC_API_KEY": "sk-env"}))
    built = p.build_request(req(ChatMessage.user("hi")))
    assert built.url == "https://api.anthropic.com/v1/messages"
    assert built.headers["authorization"] == "Bearer sk-env"
    assert built.headers["anthropic-version"] == "2026-10-21"


def test_missing_key_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="ANTHROPIC_API_KEY"):
        AnthropicProvider(ProviderConfig(env={}))


def test_key_never_shows_in_reprs() -> None:
    p = provider()
    built = p.build_request(req(ChatMessage.user("hi")))
    assert "sk-ant-secret" not in repr(p) and "sk-ant-secret" not in repr(built)


def test_options_base_url_auth_version_and_betas() -> None:
    p = provider(
        base_url="https://gw.example/anthropic/",
        auth="x-api-key",
        api_version="2023-06-01",
        betas="a-2025,b-2026",
        headers={"anthropic-beta": "c-2027, a-2025", "X-Trace": "1"},
    )
    built = p.build_request(req(ChatMessage.user("hi"), temperature=0.2, top_p=0.9))
    assert built.url == "https://gw.example/anthropic/v1/messages"
    assert built.headers["x-api-key"] == "sk-ant-secret" and "authorization" not in built.headers
    assert built.headers["anthropic-beta"] == "a-2025,b-2026,c-2027"
    assert built.headers["x-trace"] == "1"
    assert (
        built.json["temperature"] == 0.2 and built.json["top_p"] == 0.9
    )  # the old version takes them


def test_unknown_auth_scheme_is_rejected() -> None:
    with pytest.raises(ConfigurationError):
        provider(auth="basic")


def test_sampling_params_dropped_with_warning_on_current_version() -> None:
    r = req(ChatMessage.user("hi"), temperature=0.2)
    assert "temperature" not in body(r)
    assert provider().prepare(r).warnings == (
        "temperature was dropped: anthropic-version 2026-10-21 does not accept it",
    )


def test_system_messages_go_top_level_and_turns_merge() -> None:
    r = req(
        ChatMessage.system("Be brief."),
        ChatMessage.user("a"),
        ChatMessage.user("b"),
        ChatMessage.assistant("c"),
        ChatMessage.system("Late rule."),
        ChatMessage.assistant("d"),
    )
    b = body(r)
    assert b["system"] == [
        {"type": "text", "text": "Be brief."},
        {"type": "text", "text": "Late rule."},
    ]
    assert [(m["role"], [c["text"] for c in m["content"]]) for m in b["messages"]] == [
        ("user", ["a", "b"]),
        ("assistant", ["c", "d"]),
    ]


def test_tool_results_merge_into_one_user_turn_before_text() -> None:
    r = req(
        ChatMessage.user("go"),
        ChatMessage.assistant(
            tool_calls=[ToolCallPart(id="t1", name="f"), ToolCallPart(id="t2", name="f")]
        ),
        ChatMessage.tool_result("t1", "one"),
        ChatMessage.tool_result("t2", "bad", is_error=True),
        ChatMessage.user("and now?"),
    )
    last = body(r)["messages"][-1]
    assert last == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "one"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "bad", "is_error": True},
            {"type": "text", "text": "and now?"},
        ],
    }
    # a user text before the results is moved after them (the API wants results first)
    r2 = req(ChatMessage.user("x"), ChatMessage.tool_result("t1", "one"))
    assert [c["type"] for c in body(r2)["messages"][0]["content"]] == ["tool_result", "text"]


def test_images_bytes_and_url_sources() -> None:
    png = b"\x89PNG\r\n\x1a\nfake"
    r = req(
        ChatMessage.user(
            ImagePart(data=png, media_type="image/png"), ImagePart(url="https://x.test/a.jpg")
        )
    )
    blocks = body(r)["messages"][0]["content"]
    assert blocks[0] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgpmYWtl"},
    }
    assert blocks[1] == {"type": "image", "source": {"type": "url", "url": "https://x.test/a.jpg"}}


def test_reasoning_is_sent_back_only_for_this_provider() -> None:
    r = req(
        ChatMessage.user("q"),
        ChatMessage.assistant(
            "a",
            reasoning=[
                ReasoningPart(text="mine", signature="S1", provider="anthropic"),
                ReasoningPart(text="theirs", signature="S2", provider="gemini"),
                ReasoningPart(text="unsigned", provider="anthropic"),
                ReasoningPart(
                    provider="anthropic", provider_data={"type": "redacted_thinking", "data": "R"}
                ),
            ],
        ),
        ChatMessage(
            role="assistant",
            content=[RawPart(provider="anthropic", data={"type": "server_tool_use", "id": "s"})],
        ),
    )
    content = body(r)["messages"][1]["content"]
    assert content == [
        {"type": "thinking", "thinking": "mine", "signature": "S1"},
        {"type": "redacted_thinking", "data": "R"},
        {"type": "text", "text": "a"},
        {"type": "server_tool_use", "id": "s"},
    ]


def test_cache_control_rides_on_text_provider_data() -> None:
    part = TextPart(
        text="long doc", provider_data={"cache_control": {"type": "ephemeral"}, "openai": {"x": 1}}
    )
    b = body(req(ChatMessage(role="user", content=[part])))
    assert b["messages"][0]["content"] == [
        {"type": "text", "text": "long doc", "cache_control": {"type": "ephemeral"}}
    ]


@pytest.mark.parametrize(
    ("choice", "parallel", "expected"),
    [
        (None, None, None),
        (None, False, {"type": "auto", "disable_parallel_tool_use": True}),
        ("auto", None, {"type": "auto"}),
        ("required", False, {"type": "any", "disable_parallel_tool_use": True}),
        ("get_weather", None, {"type": "tool", "name": "get_weather"}),
        ("none", False, {"type": "none"}),
    ],
)
def test_tool_choice(
    choice: str | None, parallel: bool | None, expected: dict[str, Any] | None
) -> None:
    tc = ToolChoice.model_validate(choice) if choice else None
    b = body(req(ChatMessage.user("q"), tools=[TOOL], tool_choice=tc, parallel_tool_calls=parallel))
    assert b.get("tool_choice") == expected
    assert b["tools"] == [{"name": "get_weather", "input_schema": TOOL.parameters}]


def test_extra_server_tools_join_app_tools() -> None:
    server = {"type": "web_search_20250305", "name": "web_search"}
    b = body(
        req(ChatMessage.user("q"), tools=[TOOL], extra={"tools": [server], "service_tier": "auto"})
    )
    assert [t["name"] for t in b["tools"]] == ["get_weather", "web_search"]
    assert b["service_tier"] == "auto"


@pytest.mark.parametrize(
    ("model", "reasoning", "thinking", "effort", "max_tokens"),
    [
        ("claude-sonnet-4-6", ReasoningConfig(effort="high"), {"type": "adaptive"}, "high", 64000),
        (
            "claude-sonnet-4-5",
            ReasoningConfig(effort="low"),
            {"type": "enabled", "budget_tokens": 2048},
            None,
            64000,
        ),
        (
            "claude-3-7-sonnet-latest",
            ReasoningConfig(budget_tokens=70000),
            {"type": "enabled", "budget_tokens": 70000},
            None,
            71024,
        ),
        (
            "claude-opus-4-1",
            ReasoningConfig(budget_tokens=500, include_thoughts=False),
            {"type": "enabled", "budget_tokens": 1024, "display": "omitted"},
            None,
            32000,
        ),
    ],
)
def test_thinking_and_max_tokens_defaults(
    model: str,
    reasoning: ReasoningConfig,
    thinking: dict[str, Any],
    effort: str | None,
    max_tokens: int,
) -> None:
    b = body(req(ChatMessage.user("q"), model=model, reasoning=reasoning))
    assert b["thinking"] == thinking
    assert b.get("output_config", {}).get("effort") == effort
    assert b["max_tokens"] == max_tokens


def test_response_format_goes_to_output_config() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    b = body(req(ChatMessage.user("q"), response_format={"schema": schema}))
    sent = {**schema, "additionalProperties": False}  # the only value the API takes
    assert b["output_config"] == {"format": {"type": "json_schema", "schema": sent}}


def test_thinking_tool_use_response_round_trips_into_next_request() -> None:
    """The decoded first turn, appended to history, is sent back exactly as the API wants."""
    first = load_fixture(FIXTURES / "thinking_tool_use")
    second = load_fixture(FIXTURES / "thinking_round_trip")
    p = provider()
    events = decode_body(p.new_decoder(first.request), [first.body])
    assistant = accumulate(events, provider="anthropic").message
    call = assistant.tool_calls[0]
    result = second.request.messages[2]
    history = [*first.request.messages, assistant, result]
    built = p.build_request(first.request.model_copy(update={"messages": history}))
    assert built.json["messages"] == second.http_request["body"]["messages"]
    assert built.json["messages"][1]["content"][1] == {
        "type": "tool_use",
        "id": call.id,
        "name": "get_weather",
        "input": {"city": "Bergen"},
    }


def test_map_error_529_and_429() -> None:
    p = provider()
    body_529 = orjson.dumps(
        {
            "type": "error",
            "error": {"type": "overloaded_error", "message": "Overloaded"},
            "request_id": "req_1",
        }
    )
    err = p.map_error(status=529, headers={}, body=body_529)
    assert isinstance(err, OverloadedError) and err.retryable and err.request_id == "req_1"
    err2 = p.map_error(status=429, headers={"retry-after": "3", "request-id": "req_2"}, body=b"{}")
    assert (
        isinstance(err2, RateLimitError) and err2.retry_after == 3.0 and err2.request_id == "req_2"
    )
