"""Settings a preset cannot send are left out of the body and named on StreamStart."""

from __future__ import annotations

import llmbridge as lb
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.testing import decode_body

TOOL = lb.ToolSpec(
    name="f", description="f", parameters={"type": "object", "properties": {}}, strict=True
)
BODY = (
    b'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m",'
    b'"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
)


def _warnings(provider_name: str, **fields: object) -> tuple[list[str], dict[str, object]]:
    provider = create_provider(
        provider_name, ProviderConfig.from_mapping({"api_key": "k", "base_url": "http://h/v1"})
    )
    request = lb.ChatRequest.model_validate(
        {"model": "m", "messages": [lb.ChatMessage.user("x")], **fields}
    )
    prepared = provider.prepare(request)  # type: ignore[attr-defined]
    start = decode_body(prepared.new_decoder(), [BODY])[0]
    assert isinstance(start, lb.StreamStart) and start.warnings == []  # the loop stamps them
    return list(prepared.warnings), prepared.http.json


def test_budget_tokens_without_effort_is_named_not_silently_dropped() -> None:
    warnings, body = _warnings("openai", reasoning={"budget_tokens": 2048})
    assert "reasoning_effort" not in body
    assert any("budget_tokens" in w for w in warnings)


def test_compatible_server_limits_are_warned() -> None:
    warnings, body = _warnings(
        "llamacpp",
        tools=[TOOL],
        tool_mode="native",
        parallel_tool_calls=False,
        response_format={"schema": {"type": "object"}},
        reasoning={"effort": "high"},
    )
    assert "strict" not in body["tools"][0]["function"]  # type: ignore[index]
    joined = " | ".join(warnings)
    for topic in ("strict", "reasoning"):
        assert topic in joined


def test_openai_sends_everything_without_warnings() -> None:
    warnings, body = _warnings(
        "openai", tools=[TOOL], parallel_tool_calls=False, reasoning={"effort": "low"}
    )
    assert warnings == []
    assert body["reasoning_effort"] == "low" and body["parallel_tool_calls"] is False
