"""``CachePoint``: "cache the prompt up to here", mapped to each API's own breakpoint (checked
against the SDKs' request types), dropped with a warning where a provider has none."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter

import llmbridge as lb
from llmbridge.providers import ProviderConfig, create_provider

LONG = "You are the support agent of a large product. " * 50


def build(name: str, messages: list[lb.ChatMessage]) -> tuple[dict[str, Any], list[str]]:
    provider = create_provider(name, ProviderConfig.from_mapping({"api_key": "k"}))
    request = lb.ChatRequest(model="m-1", messages=messages)
    body = provider.build_request(request).json
    assert body is not None
    warnings = list(provider.prepare(request).warnings)  # what StreamStart is stamped with
    return body, warnings


def conversation(**cache: Any) -> list[lb.ChatMessage]:
    return [
        lb.ChatMessage.system(LONG, lb.CachePoint(**cache)),
        lb.ChatMessage.user("Here is the manual.", lb.CachePoint(), "Question: how do I reset it?"),
    ]


def test_anthropic_marks_the_block_before_each_point() -> None:
    body, warnings = build("anthropic", conversation(ttl=3600))
    assert body["system"] == [
        {"type": "text", "text": LONG, "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    ]
    first, second = body["messages"][0]["content"]
    assert first["cache_control"] == {"type": "ephemeral"} and "cache_control" not in second
    assert warnings == []
    params = pytest.importorskip("anthropic.types")
    TypeAdapter(list[params.TextBlockParam]).validate_python(body["system"])


def test_anthropic_keeps_the_last_four_breakpoints() -> None:
    parts: list[Any] = []
    for n in range(6):
        parts += [f"chunk {n}", lb.CachePoint()]
    body, warnings = build("anthropic", [lb.ChatMessage.user(*parts)])
    marked = [b["text"] for b in body["messages"][0]["content"] if "cache_control" in b]
    assert marked == ["chunk 2", "chunk 3", "chunk 4", "chunk 5"]
    assert any("at most 4 cache breakpoints" in w for w in warnings)


def test_openai_chat_sends_explicit_breakpoints() -> None:
    body, warnings = build("openai", conversation(ttl=7200))
    system, user = body["messages"]
    assert system["content"] == [
        {
            "type": "text",
            "text": LONG,
            "prompt_cache_breakpoint": {"mode": "explicit", "ttl": "12h"},
        }
    ]
    assert user["content"][0]["prompt_cache_breakpoint"] == {"mode": "explicit"}
    assert "prompt_cache_breakpoint" not in user["content"][1] and warnings == []
    params = pytest.importorskip("openai.types.chat")
    TypeAdapter(list[params.ChatCompletionMessageParam]).validate_python(body["messages"])


def test_compatible_servers_without_breakpoints_get_plain_text_and_a_warning() -> None:
    body, warnings = build("vllm", conversation())
    assert body["messages"][0]["content"] == LONG
    assert "prompt_cache_breakpoint" not in str(body)
    assert any("CachePoint: vllm takes no prompt-cache breakpoints" in w for w in warnings)


def test_responses_marks_user_content_and_warns_for_instructions() -> None:
    body, warnings = build("openai-responses", conversation())
    content = body["input"][0]["content"]
    assert content[0]["prompt_cache_breakpoint"] == {"mode": "explicit"}
    assert body["instructions"] == LONG
    assert any("instructions are a string" in w for w in warnings)
    params = pytest.importorskip("openai.types.responses")
    TypeAdapter(params.ResponseInputMessageContentListParam).validate_python(content)


def test_gemini_ignores_points_with_a_warning() -> None:
    body, warnings = build("gemini", conversation())
    assert "cache" not in str(body).lower()
    assert any(w.startswith("CachePoint: Gemini caches") for w in warnings)


def test_cache_points_round_trip_through_json() -> None:
    message = conversation(ttl=60)[0]
    assert lb.ChatMessage.model_validate_json(message.model_dump_json()) == message


def get_weather(city: str) -> str:
    """Current weather for a city."""
    return city


def lookup(term: str) -> str:
    """Look a term up."""
    return term


def test_a_cache_point_among_the_tools_marks_the_tool_definitions() -> None:
    client = lb.Client()
    request = client.build_request(
        "claude-sonnet-4-5",
        [lb.ChatMessage.user("hi")],
        tools=[get_weather, lookup, lb.CachePoint(ttl=3600)],
    )
    assert [t.name for t in request.tools] == ["get_weather", "lookup"]
    provider = create_provider("anthropic", ProviderConfig.from_mapping({"api_key": "k"}))
    body = provider.build_request(request).json
    assert body is not None
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert "cache_control" not in body["tools"][0]
    chat = create_provider("openai", ProviderConfig.from_mapping({"api_key": "k"}))
    warnings = chat.prepare(request).warnings  # what StreamStart is stamped with
    assert any("CachePoint among the tools" in w for w in warnings)


def test_the_tools_point_counts_toward_anthropics_four() -> None:
    parts: list[Any] = []
    for n in range(4):
        parts += [f"chunk {n}", lb.CachePoint()]
    request = lb.Client().build_request(
        "claude-sonnet-4-5", [lb.ChatMessage.user(*parts)], tools=[get_weather, lb.CachePoint()]
    )
    provider = create_provider("anthropic", ProviderConfig.from_mapping({"api_key": "k"}))
    body = provider.build_request(request).json
    assert body is not None
    assert "cache_control" not in body["tools"][0]  # the earliest of five breakpoints went
    assert sum("cache_control" in b for b in body["messages"][0]["content"]) == 4
