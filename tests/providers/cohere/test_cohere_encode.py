"""``cohere`` requests: the body (checked against the ``cohere`` SDK's types), keys, base URL,
warnings, the model list."""

from __future__ import annotations

from typing import Any

import pytest

import llmbridge as lb
from llmbridge.providers import ProviderConfig, create_provider
from tests.sdk_requests import check_cohere_body

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
WEATHER = lb.ToolSpec.from_json_schema(
    "get_weather", "Weather.", {"type": "object", "properties": {"city": {"type": "string"}}}
)
OTHER = lb.ToolSpec.from_json_schema("other", "", {"type": "object", "properties": {}})


def _provider(**config: Any) -> Any:
    return create_provider("cohere", ProviderConfig.from_mapping({"api_key": "k", **config}))


def _body(request: lb.ChatRequest, **config: Any) -> dict[str, Any]:
    body = _provider(**config).build_request(request).json
    check_cohere_body(body)
    return body  # type: ignore[no-any-return]


def test_a_whole_conversation() -> None:
    plan = lb.RawPart(provider="cohere", data={"type": "tool_plan", "tool_plan": "I will look."})
    messages = [
        lb.ChatMessage.system("Be brief."),
        lb.ChatMessage.user(
            "Look",
            lb.ImagePart(data=PNG, media_type="image/png"),
            lb.DocumentPart(data=b"Quito is high.", media_type="text/plain", name="q.txt"),
        ),
        lb.ChatMessage(
            role="assistant",
            content=[
                lb.ReasoningPart(text="mine", provider="cohere"),
                plan,
                lb.ToolCallPart(
                    id="get_weather_ab12",
                    name="get_weather",
                    arguments={"city": "Quito"},
                    raw_arguments='{"city": "Quito"}',
                ),
            ],
        ),
        lb.ChatMessage.tool_result(
            "get_weather_ab12",
            [lb.TextPart(text="18 C"), lb.ImagePart(data=PNG, media_type="image/png")],
        ),
    ]
    request = lb.ChatRequest(
        model="command-a-03-2025",
        messages=messages,
        tools=[WEATHER],
        tool_choice=lb.ToolChoice(mode="required"),
        temperature=0.3,
        top_p=0.8,
        top_k=20,
        seed=5,
        max_tokens=200,
        stop=["END"],
        presence_penalty=0.1,
        frequency_penalty=0.2,
        reasoning=lb.ReasoningConfig(budget_tokens=1024),
    )
    body = _body(request, safety_mode="OFF", priority=1)
    assert body["messages"][:2] == [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Look"},
                {
                    "type": "image_url",
                    "image_url": {"url": "data:image/png;base64,iVBORw0KGgoAAAAAAAAAAA=="},
                },
            ],
        },
    ]
    assert body["documents"] == [
        {"id": "doc:0", "data": {"title": "q.txt", "text": "Quito is high."}}
    ]
    assert body["messages"][2] == {
        "role": "assistant",
        "content": [{"type": "thinking", "thinking": "mine"}],
        "tool_plan": "I will look.",
        "tool_calls": [
            {
                "id": "get_weather_ab12",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Quito"}'},
            }
        ],
    }
    result = body["messages"][3]
    assert result["role"] == "tool" and result["tool_call_id"] == "get_weather_ab12"
    assert result["content"][0] == {"type": "text", "text": "18 C"}
    assert result["content"][1]["text"].startswith("[image omitted (image/png")
    for key, value in {
        "tool_choice": "REQUIRED",
        "temperature": 0.3,
        "p": 0.8,
        "k": 20,
        "seed": 5,
        "max_tokens": 200,
        "stop_sequences": ["END"],
        "presence_penalty": 0.1,
        "frequency_penalty": 0.2,
        "thinking": {"type": "enabled", "token_budget": 1024},
        "safety_mode": "OFF",
        "priority": 1,
        "stream": True,
    }.items():
        assert body[key] == value, key
    assert any("images" in w for w in _provider().prepare(request).warnings)


def test_tool_choices_and_formats() -> None:
    base = lb.ChatRequest(model="m", messages=[lb.ChatMessage.user("hi")], tools=[WEATHER, OTHER])
    named = _body(base.model_copy(update={"tool_choice": lb.ToolChoice.tool("other")}))
    assert named["tool_choice"] == "REQUIRED" and [
        t["function"]["name"] for t in named["tools"]
    ] == ["other"]
    assert (
        _body(base.model_copy(update={"tool_choice": lb.ToolChoice(mode="none")}))["tool_choice"]
        == "NONE"
    )
    assert "tool_choice" not in _body(base)
    assert "tools" not in _body(base.model_copy(update={"tool_mode": "prompt"}))
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    fmt = _body(base.model_copy(update={"response_format": lb.ResponseFormat(schema=schema)}))
    assert fmt["response_format"] == {"type": "json_object", "json_schema": schema}
    loose = _body(base.model_copy(update={"response_format": lb.ResponseFormat(schema={})}))
    assert loose["response_format"] == {"type": "json_object"}
    off = _body(base.model_copy(update={"reasoning": lb.ReasoningConfig(budget_tokens=0)}))
    assert off["thinking"] == {"type": "disabled"}
    effort = base.model_copy(
        update={"reasoning": lb.ReasoningConfig(effort="high"), "parallel_tool_calls": True}
    )
    assert _body(effort)["thinking"] == {"type": "enabled"}
    warnings = _provider().prepare(effort).warnings
    assert any("effort" in w for w in warnings) and any("parallel" in w for w in warnings)


def test_history_from_elsewhere_is_made_sendable() -> None:
    messages = [
        lb.ChatMessage.user("hi"),
        lb.ChatMessage(
            role="assistant",
            content=[
                lb.ReasoningPart(text="x", provider="anthropic", signature="sig" * 10),
                lb.RawPart(provider="anthropic", data={"type": "server_tool_use"}),
                lb.ToolCallPart(id="toolu bad/id", name="get_weather", arguments={}),
            ],
        ),
        lb.ChatMessage.tool_result("toolu bad/id", "ok"),
    ]
    body = _body(lb.ChatRequest(model="m", messages=messages, tools=[WEATHER]))
    call_id = body["messages"][1]["tool_calls"][0]["id"]
    assert call_id != "toolu bad/id" and body["messages"][2]["tool_call_id"] == call_id
    assert "sig" not in str(body) and "server_tool_use" not in str(body)


def test_keys_base_url_and_models() -> None:
    request = lb.ChatRequest(model="m", messages=[lb.ChatMessage.user("hi")])
    provider = create_provider(
        "cohere", ProviderConfig.from_mapping({"env": {"CO_API_KEY": "co-secret"}})
    )
    built = provider.build_request(request)
    assert built.url == "https://api.cohere.com/v2/chat"
    assert built.headers["authorization"] == "Bearer co-secret" and "co-secret" not in repr(built)
    fallback = ProviderConfig.from_mapping(
        {"env": {"COHERE_API_KEY": "k2", "CO_API_URL": "https://proxy.test/v1"}}
    )
    other = create_provider("cohere", fallback)
    assert other.build_request(request).headers["authorization"] == "Bearer k2"
    assert other.build_request(request).url == "https://proxy.test/v2/chat"
    with pytest.raises(lb.ConfigurationError, match="CO_API_KEY"):
        create_provider("cohere", ProviderConfig.from_mapping({"env": {}}))
    named = _provider(client_name="my-app").build_request(request)
    assert named.headers["X-Client-Name"] == "my-app"
    page = _provider().models_request("tok")
    assert (
        page.url == "https://api.cohere.com/v1/models?endpoint=chat&page_size=1000&page_token=tok"
    )
    models, cursor = _provider().parse_models(
        {
            "models": [
                {"name": "command-a-03-2025", "context_length": 256000.0, "endpoints": ["chat"]}
            ],
            "next_page_token": "n",
        }
    )
    assert (
        cursor == "n"
        and models[0].context_window == 256000
        and models[0].model == "cohere:command-a-03-2025"
    )
    assert _provider().parse_models({"models": []}) == ([], None)


def test_the_sdk_checks_catch_unknown_fields() -> None:
    from tests.sdk_requests import check_ollama_body

    body = _body(lb.ChatRequest(model="m", messages=[lb.ChatMessage.user("hi")], tools=[WEATHER]))
    bad_message = {**body, "messages": [{**body["messages"][0], "tool_plan_x": 1}]}
    bad_tool = {**body, "tools": [{**body["tools"][0], "strict": True}]}
    for bad in (bad_message, bad_tool, {**body, "unknown": 1}):
        with pytest.raises(AssertionError):
            check_cohere_body(bad)
    ollama = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}
    check_ollama_body(ollama)
    with pytest.raises(AssertionError):
        check_ollama_body(
            {**ollama, "messages": [{"role": "user", "content": "hi", "tool_call_id": "x"}]}
        )
