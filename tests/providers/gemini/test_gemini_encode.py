"""Gemini request encoding: contents, tools, configs, the signature / id round trip."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.response import accumulate
from llmbridge.testing import decode_body, load_fixture
from llmbridge.testing.prepared import prepared_decoder
from llmbridge.tool_spec import ToolSpec
from llmbridge.types import (
    ChatMessage,
    ChatRequest,
    ImagePart,
    RawPart,
    ReasoningConfig,
    ReasoningPart,
    ResponseFormat,
    TextPart,
    ToolCallPart,
)

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"


def provider(name: str = "gemini", **options: Any) -> Any:
    extra = {"project": "p"} if name == "vertex" else {}
    return create_provider(name, ProviderConfig.from_mapping({"api_key": "k", **extra, **options}))


def body(request: ChatRequest, name: str = "gemini", **options: Any) -> dict[str, Any]:
    return provider(name, **options).build_request(request).json  # type: ignore[no-any-return]


def req(*messages: ChatMessage, **kw: Any) -> ChatRequest:
    return ChatRequest(model="gemini-2.5-flash", messages=list(messages), **kw)


def test_signature_and_generated_id_round_trip_from_a_decoded_response() -> None:
    fx = load_fixture(FIXTURES / "gemini" / "single_call")
    gemini = provider()
    events = decode_body(prepared_decoder(gemini, fx.request)(), fx.body_chunks())
    answer = accumulate(events, provider="gemini")
    (call,) = answer.tool_calls
    follow_up = req(
        *fx.request.messages,
        answer.message,
        ChatMessage.tool_result(call.id, '{"temp_c": 18}'),
    )
    contents = body(follow_up)["contents"]
    model_turn, result_turn = contents[1], contents[2]
    assert model_turn == {
        "role": "model",
        "parts": [
            {
                "functionCall": {
                    "name": "get_weather",
                    "args": {"city": "Lyon", "unit": "celsius"},
                },
                "thoughtSignature": "CiQB0e2Kb7xhY3Rvb2xjYWxsc2lnbmF0dXJlZm9ydGVzdGluZ29ubHk=",
            }
        ],
    }
    # the generated id goes neither on the call nor on its response; the name is matched by id
    assert result_turn == {
        "role": "user",
        "parts": [{"functionResponse": {"name": "get_weather", "response": {"temp_c": 18}}}],
    }


def test_thought_then_signed_text_round_trips_to_the_same_parts() -> None:
    fx = load_fixture(FIXTURES / "gemini" / "thoughts")
    gemini = provider()
    answer = accumulate(
        decode_body(prepared_decoder(gemini, fx.request)(), fx.body_chunks()), provider="gemini"
    )
    parts = body(req(ChatMessage.user("q"), answer.message))["contents"][1]["parts"]
    assert [sorted(p) for p in parts] == [["text", "thought"], ["text", "thoughtSignature"]]
    assert parts[1]["text"] == "No. 221 = 13 × 17."


def test_foreign_reasoning_and_signatures_are_not_sent() -> None:
    message = ChatMessage(
        role="assistant",
        content=[
            ReasoningPart(text="hmm", signature="anthropic-sig", provider="anthropic"),
            ToolCallPart(
                id="t1", name="f", provider_data={"provider": "anthropic", "thoughtSignature": "x"}
            ),
            RawPart(provider="anthropic", data={"type": "server_tool_use"}),
        ],
    )
    parts = body(req(ChatMessage.user("q"), message))["contents"][1]["parts"]
    assert parts == [{"functionCall": {"name": "f", "args": {}, "id": "t1"}}]


def test_tool_results_are_grouped_wrapped_and_errors_marked() -> None:
    calls = ChatMessage.assistant(
        tool_calls=[ToolCallPart(id="a", name="one"), ToolCallPart(id="b", name="two")]
    )
    request = req(
        ChatMessage.user("go"),
        calls,
        ChatMessage.tool_result("a", "[1, 2]"),
        ChatMessage.tool_result("b", "broken", is_error=True),
        ChatMessage.user("thanks"),
    )
    contents = body(request)["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    assert contents[2]["parts"] == [
        {"functionResponse": {"name": "one", "response": {"result": [1, 2]}, "id": "a"}},
        {"functionResponse": {"name": "two", "response": {"error": "broken"}, "id": "b"}},
        {"text": "thanks"},
    ]


def test_images_become_inline_or_file_data() -> None:
    message = ChatMessage.user(
        ImagePart(data=b"\x89PNG", media_type="image/png"),
        ImagePart(url="data:image/gif;base64,R0lG"),
        ImagePart(url="gs://bucket/a.webp"),
    )
    assert body(req(message))["contents"][0]["parts"] == [
        {"inlineData": {"mimeType": "image/png", "data": "iVBORw=="}},
        {"inlineData": {"mimeType": "image/gif", "data": "R0lG"}},
        {"fileData": {"fileUri": "gs://bucket/a.webp", "mimeType": "image/webp"}},
    ]


def test_system_messages_join_into_system_instruction() -> None:
    request = req(ChatMessage.system("A"), ChatMessage.system("B"), ChatMessage.user("q"))
    built = body(request)
    assert built["systemInstruction"] == {"parts": [{"text": "A"}, {"text": "B"}]}
    assert built["contents"] == [{"role": "user", "parts": [{"text": "q"}]}]


def test_tool_choice_modes() -> None:
    tool = ToolSpec(
        name="f", parameters={"type": "object", "properties": {"a": {"type": "string"}}}
    )
    expected = {
        "auto": {"mode": "AUTO"},
        "none": {"mode": "NONE"},
        "required": {"mode": "ANY"},
        "f": {"mode": "ANY", "allowedFunctionNames": ["f"]},
    }
    for choice, config in expected.items():
        built = body(req(ChatMessage.user("q"), tools=[tool], tool_choice=choice))
        assert built["toolConfig"] == {"functionCallingConfig": config}


def test_prompt_tool_mode_sends_no_native_tools() -> None:
    tool = ToolSpec(name="f")
    assert "tools" not in body(req(ChatMessage.user("q"), tools=[tool], tool_mode="prompt"))


def test_json_schema_option_sends_schemas_untouched() -> None:
    schema = {"type": "object", "properties": {"a": {"type": ["string", "null"]}}, "$defs": {}}
    tool = ToolSpec(name="f", parameters=schema)
    built = body(
        req(ChatMessage.user("q"), tools=[tool], response_format=ResponseFormat(schema=schema)),
        json_schema=True,
    )
    assert built["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"] == schema
    assert built["generationConfig"]["responseJsonSchema"] == schema


def test_thinking_config_budget_level_and_2x_fallback() -> None:
    def thinking(model: str, **kw: Any) -> Any:
        request = ChatRequest(
            model=model, messages=[ChatMessage.user("q")], reasoning=ReasoningConfig(**kw)
        )
        return body(request)["generationConfig"]["thinkingConfig"]

    assert thinking("gemini-2.5-pro", budget_tokens=0) == {
        "includeThoughts": True,
        "thinkingBudget": 0,
    }
    assert thinking("gemini-3-pro-preview", effort="high") == {
        "includeThoughts": True,
        "thinkingLevel": "HIGH",
    }
    assert thinking("gemini-2.5-flash", effort="low", include_thoughts=False) == {
        "includeThoughts": False,
        "thinkingBudget": 1024,
    }


def test_extra_merges_one_level_deep() -> None:
    built = body(
        req(
            ChatMessage.user("q"),
            temperature=0.1,
            extra={"generationConfig": {"topK": 3}, "labels": {}},
        )
    )
    assert built["generationConfig"] == {"temperature": 0.1, "topK": 3}
    assert built["labels"] == {}


def test_pending_signatures_never_lost_when_parts_have_their_own() -> None:
    message = ChatMessage(
        role="assistant",
        content=[
            ReasoningPart(signature="S1", provider="gemini"),
            ReasoningPart(text="t", signature="S2", provider="gemini"),
            TextPart(text="x"),
        ],
    )
    parts = body(req(ChatMessage.user("q"), message))["contents"][1]["parts"]
    assert parts == [
        {"text": "", "thoughtSignature": "S1"},
        {"text": "t", "thought": True, "thoughtSignature": "S2"},
        {"text": "x"},
    ]
