"""Regressions found against real OpenAI-compatible servers (llama.cpp, llama-cpp-python)."""

from __future__ import annotations

import orjson
import pytest

import llmbridge as lb
from llmbridge.providers.base import ProviderConfig
from llmbridge.providers.openai.errors import map_http_error
from llmbridge.providers.registry import create_provider
from llmbridge.testing import assert_split_invariant, check_invariants, decode_body

REQUEST = lb.ChatRequest(model="m", messages=[lb.ChatMessage.user("weather?")])


def chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
    body = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + orjson.dumps(body) + b"\n\n"


def test_legacy_function_call_beside_tool_calls_is_one_call_not_two() -> None:
    """llama-cpp-python's server sends ``function_call`` and ``tool_calls`` in the same delta."""
    pieces = ['{"ci', 'ty": "Par', 'is"}']
    body = chunk({"role": "assistant", "content": None})
    for i, piece in enumerate(pieces):
        call = {"index": 0, "function": {"arguments": piece}}
        if i == 0:
            call |= {"id": "call_1", "type": "function"}
            call["function"] = {"name": "get_weather", "arguments": piece}
        legacy = {"arguments": piece} | ({"name": "get_weather"} if i == 0 else {})
        body += chunk({"function_call": legacy, "tool_calls": [call]})
    body += chunk({}, "tool_calls") + b"data: [DONE]\n\n"
    provider = create_provider("llamacpp", ProviderConfig(env={}))
    events = decode_body(provider.new_decoder(REQUEST), [body])
    check_invariants(events)
    ends = [e for e in events if isinstance(e, lb.ToolCallEnd)]
    assert [(e.name, e.arguments) for e in ends] == [("get_weather", {"city": "Paris"})]
    assert_split_invariant(lambda: provider.new_decoder(REQUEST), body)


def test_legacy_function_call_alone_still_works() -> None:
    body = chunk({"function_call": {"name": "f", "arguments": "{}"}}) + chunk({}, "function_call")
    provider = create_provider("openai-compatible", ProviderConfig(base_url="http://h/v1", env={}))
    events = decode_body(provider.new_decoder(REQUEST), [body + b"data: [DONE]\n\n"])
    assert [e.name for e in events if isinstance(e, lb.ToolCallEnd)] == ["f"]


def test_a_500_whose_body_names_a_client_error_stays_a_server_error() -> None:
    """The status decides the family (issue 34, item 19): the body's type refines only within
    it, so a 500 naming ``invalid_request_error`` is a retried ``ServerError`` (the llamacpp
    preset says its own 500s repeat: ``server_errors_repeat``)."""
    body = orjson.dumps({"error": {"message": "bad messages", "type": "invalid_request_error"}})
    error = map_http_error(provider="p", status=500, headers={}, body=body)
    assert type(error) is lb.ServerError and error.status == 500
    assert error.retryable and error.error_type == "invalid_request_error"
    plain = map_http_error(provider="p", status=500, headers={}, body=b'{"error": "boom"}')
    assert isinstance(plain, lb.ServerError) and plain.retryable


PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452")


def _with_image_result() -> lb.ChatRequest:
    call = lb.ToolCallPart(id="c1", name="screenshot", arguments={})
    result = lb.ChatMessage.tool_result(
        "c1", [lb.TextPart(text="here it is"), lb.ImagePart(data=PNG, media_type="image/png")]
    )
    return lb.ChatRequest(
        model="m",
        messages=[lb.ChatMessage.user("look"), lb.ChatMessage.assistant(tool_calls=[call]), result],
    )


def test_image_results_to_a_model_without_images_become_a_note_and_a_warning() -> None:
    provider = create_provider("llamacpp", ProviderConfig(env={}, options={"images": False}))
    sent = provider.build_request(_with_image_result())
    tool_message = sent.json["messages"][-1]
    assert tool_message["role"] == "tool"
    assert tool_message["content"] == (
        "here it is\n[image omitted (image/png, 16 bytes): this model takes no images]"
    )
    assert all(m["role"] != "user" or isinstance(m["content"], str) for m in sent.json["messages"])
    warnings = provider.prepare(_with_image_result()).warnings
    assert any("1 image(s) in tool results" in w for w in warnings)


def test_an_image_in_a_user_message_to_a_model_without_images_is_refused() -> None:
    provider = create_provider("llamacpp", ProviderConfig(env={}, options={"images": False}))
    request = lb.ChatRequest(
        model="m",
        messages=[lb.ChatMessage.user("see", lb.ImagePart(data=PNG, media_type="image/png"))],
    )
    with pytest.raises(lb.UnsupportedFeatureError, match="images: False"):
        provider.build_request(request)


def test_image_results_to_a_model_with_images_follow_as_a_user_message() -> None:
    provider = create_provider("llamacpp", ProviderConfig(env={}))
    messages = provider.build_request(_with_image_result()).json["messages"]
    assert messages[-1]["role"] == "user" and messages[-1]["content"][0]["type"] == "image_url"


def test_llamacpp_sends_its_own_reasoning_back_on_tool_call_turns() -> None:
    """Qwen3-style chat templates render ``reasoning_content`` of the assistant turns after the
    last user message (a tool-calling sequence): llama-server takes it, so it goes back."""
    call = lb.ToolCallPart(id="c1", name="get_weather", arguments={"city": "Oslo"})
    mine = lb.ReasoningPart(text="need the weather", provider="llamacpp")
    theirs = lb.ReasoningPart(text="foreign", provider="anthropic", signature="sig")
    request = lb.ChatRequest(
        model="m",
        messages=[
            lb.ChatMessage.user("weather in Oslo?"),
            lb.ChatMessage.assistant(tool_calls=[call], reasoning=[mine, theirs]),
            lb.ChatMessage.tool_result("c1", "Sunny"),
        ],
    )
    provider = create_provider("llamacpp", ProviderConfig(env={}))
    assistant = provider.build_request(request).json["messages"][1]
    assert assistant["reasoning_content"] == "need the weather"
