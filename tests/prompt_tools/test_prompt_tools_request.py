"""Request side: instructions, history rewriting, prepare_request, tool-mode choice."""

from __future__ import annotations

import pytest
from helpers import ends, run

from llmbridge import (
    ChatMessage,
    ChatRequest,
    ImagePart,
    TextPart,
    ToolCallPart,
    ToolChoice,
    ToolSpec,
)
from llmbridge.prompt_tools import (
    FUNCTION_CALL,
    TOOL_CALL,
    Dialect,
    call_id_prefix,
    choose_tool_mode,
    prepare_request,
    render_call,
    render_instructions,
    rewrite_history,
)
from llmbridge.prompt_tools.instructions import instructions_size
from llmbridge.providers import Capabilities

WEATHER = ToolSpec.from_json_schema(
    "get_weather",
    "Current weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
SEARCH = ToolSpec.from_json_schema(
    "search", "Web search.", {"type": "object", "properties": {"q": {"type": "string"}}}
)


def request(**kwargs: object) -> ChatRequest:
    base: dict[str, object] = {
        "model": "m",
        "messages": [ChatMessage.system("Be brief."), ChatMessage.user("Weather in Paris?")],
        "tools": [WEATHER, SEARCH],
    }
    base.update(kwargs)
    return ChatRequest(**base)  # type: ignore[arg-type]


def test_instructions_list_tools_schema_and_format_deterministically() -> None:
    text = render_instructions([WEATHER, SEARCH], dialect=FUNCTION_CALL)
    assert text == render_instructions([WEATHER, SEARCH], dialect=FUNCTION_CALL)
    assert text.index("## get_weather") < text.index("## search")
    assert "Current weather for a city." in text
    assert '"required":["city"]' in text  # compact: small models have small contexts
    assert (
        '<function_call>{"name": "tool_name", "arguments": {"argument": "value"}}</function_call>'
        in text
    )
    assert "Several calls" in text and "stop and wait" in text
    assert '<function_result name="tool_name" id="call_id">' in text
    assert render_instructions([], dialect=FUNCTION_CALL) == ""


def test_instructions_are_compact() -> None:
    """The fixed part stays small (a 2,048-token context must hold 13 tools and a turn)."""
    for dialect in (FUNCTION_CALL, TOOL_CALL):
        for choice in (None, ToolChoice(mode="tool", name="get_weather")):
            fixed, per_tool = instructions_size(
                [WEATHER, SEARCH], dialect=dialect, tool_choice=choice
            )
            assert fixed <= 600, (dialect.tag, choice, fixed)
            assert per_tool["get_weather"] < 250


def test_instruction_example_parses_as_a_call() -> None:
    for dialect in (FUNCTION_CALL, TOOL_CALL):
        text = render_instructions([WEATHER], dialect=dialect)
        (end,) = ends(run([text], dialects=(dialect,), tool_names=None))
        assert (end.name, end.arguments, end.error) == ("tool_name", {"argument": "value"}, None)


def test_hermes_dialect_lists_tools_as_json_in_tools_tag() -> None:
    text = render_instructions([WEATHER], dialect=TOOL_CALL)
    assert '<tools>\n{"type":"function","function":{"name":"get_weather"' in text
    assert "<tool_call>" in text and "<tool_response" in text


@pytest.mark.parametrize(
    ("choice", "parallel", "expected"),
    [
        ("required", None, "You must call at least one tool in this response."),
        ("search", None, "You must call the tool search in this response, and no other tool."),
        ("none", None, "Do not call any tool in this response"),
        ("auto", False, "Call at most one tool per response."),
    ],
)
def test_tool_choice_is_honoured_through_the_text(
    choice: str, parallel: bool | None, expected: str
) -> None:
    text = render_instructions(
        [WEATHER, SEARCH],
        dialect=FUNCTION_CALL,
        tool_choice=ToolChoice.model_validate(choice),
        parallel_tool_calls=parallel,
    )
    assert expected in text


def test_prepare_request_merges_system_clears_tools_and_is_pure() -> None:
    original = request(tool_choice=ToolChoice(mode="required"), parallel_tool_calls=True)
    snapshot = original.model_dump()
    prepared = prepare_request(original)
    assert original.model_dump() == snapshot
    assert (
        prepared.tools == []
        and prepared.tool_choice is None
        and prepared.parallel_tool_calls is None
    )
    system = prepared.messages[0]
    assert system.role == "system"
    assert system.text.startswith("Be brief.\n\n# Tools")
    assert "You must call at least one tool" in system.text
    assert prepared.messages[1:] == original.messages[1:]
    assert prepare_request(original) == prepared


def test_prepare_request_adds_a_system_message_when_there_is_none() -> None:
    prepared = prepare_request(request(messages=[ChatMessage.user("hi")]))
    assert [m.role for m in prepared.messages] == ["system", "user"]
    assert prepared.messages[0].text.startswith("# Tools")


def conversation() -> list[ChatMessage]:
    calls = [
        ToolCallPart(
            id="call_0",
            name="get_weather",
            arguments={"city": "Paris"},
            raw_arguments='{"city": "Paris"}',
        ),
        ToolCallPart(id="call_1", name="search", arguments={"q": "x"}),
    ]
    return [
        ChatMessage.system("Be brief."),
        ChatMessage.user("Weather in Paris?"),
        ChatMessage.assistant("Checking.", tool_calls=calls),
        ChatMessage.tool_result("call_0", "18°C, sunny"),
        ChatMessage.tool_result(
            "call_1",
            [TextPart(text="no results"), ImagePart(url="https://x.test/a.png")],
            is_error=True,
        ),
        ChatMessage.user("Thanks! And Rome?"),
    ]


def test_history_calls_become_tagged_text_and_results_user_text() -> None:
    out = rewrite_history(conversation(), dialect=FUNCTION_CALL)
    assert [m.role for m in out] == ["system", "user", "assistant", "user"]
    assistant = out[2]
    assert assistant.text == (
        "Checking.\n"
        '<function_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</function_call>\n'
        '<function_call>{"name": "search", "arguments": {"q":"x"}}</function_call>'
    )
    user = out[3]
    assert user.text == (
        '<function_result name="get_weather" id="call_0">\n18°C, sunny\n</function_result>\n\n'
        '<function_result name="search" id="call_1" error="true">\nno results\n</function_result>\n\n'
        "Thanks! And Rome?"
    )
    assert any(isinstance(p, ImagePart) for p in user.content)


def test_history_round_trips_through_the_parser() -> None:
    out = rewrite_history(conversation(), dialect=FUNCTION_CALL)
    got = ends(run([out[2].text]))
    assert [(e.name, e.arguments) for e in got] == [
        ("get_weather", {"city": "Paris"}),
        ("search", {"q": "x"}),
    ]


def test_flagged_call_is_written_back_as_the_model_wrote_it() -> None:
    raw = '<function_call>{"name": "search", "arguments": {"q": 1,}}</function_call>'
    bad = ToolCallPart(
        id="call_0",
        name="search",
        raw_arguments='{"q": 1,}',
        error="bad",
        provider_data={"raw_text": raw},
    )
    (out,) = rewrite_history([ChatMessage.assistant(tool_calls=[bad])], dialect=FUNCTION_CALL)
    assert out.text == raw


def test_rewrite_is_pure() -> None:
    messages = conversation()
    dumped = [m.model_dump() for m in messages]
    rewrite_history(messages, dialect=TOOL_CALL)
    assert [m.model_dump() for m in messages] == dumped


def test_choose_tool_mode() -> None:
    no_tools, tools = Capabilities(native_tools=False), Capabilities(native_tools=True)
    assert choose_tool_mode(request(tool_mode="auto"), no_tools) == "prompt"
    assert choose_tool_mode(request(tool_mode="auto"), tools) == "native"
    assert choose_tool_mode(request(tool_mode="prompt"), tools) == "prompt"
    assert choose_tool_mode(request(tool_mode="native"), no_tools) == "native"
    assert choose_tool_mode(request(tool_mode="auto", tools=[]), no_tools) == "native"


def test_call_id_prefix_differs_per_turn() -> None:
    assert call_id_prefix(request()) == "call_0_"
    assert call_id_prefix(request(messages=conversation())) == "call_1_"


def test_dialect_validation_and_render_call() -> None:
    with pytest.raises(ValueError, match="invalid tag name"):
        Dialect(tag="bad<tag", result_tag="r")
    assert (
        render_call(name="a", arguments={"x": 1}, dialect=TOOL_CALL)
        == '<tool_call>{"name": "a", "arguments": {"x":1}}</tool_call>'
    )


def test_the_result_tag_is_a_stop_sequence_after_the_callers_own() -> None:
    assert prepare_request(request()).stop == ["<function_result"]
    assert prepare_request(request(stop="END")).stop == ["END", "<function_result"]
    four = ["a", "b", "c", "d"]
    assert prepare_request(request(stop=four)).stop == four  # OpenAI takes at most four
    assert prepare_request(request(), dialect=TOOL_CALL).stop == [f"<{TOOL_CALL.result_tag}"]
