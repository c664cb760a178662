"""Custom (freeform) tools on the Responses API (issue 19, part 1), pure, no IO.

Declared as the openai SDK's ``CustomToolParam``; called with raw text through
``custom_tool_call`` items and ``response.custom_tool_call_input.delta`` / ``.done``; decoded as
ordinary tool-call events (``arguments == {"input": text}``, ``raw_arguments == text``,
``provider_data["custom"]``); sent back as ``custom_tool_call`` + ``custom_tool_call_output``.
The wire-exact fixtures are ``fixtures/openai-responses/custom_tool_*`` (the SDK reads them in
``test_openai_responses_sdk.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

import llmbridge as lb
from llmbridge.errors import UnsupportedFeatureError
from llmbridge.events import ProviderItem, ToolCallChunk, ToolCallEnd, ToolCallStart
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.anthropic.tools import encode_tool as anthropic_tool
from llmbridge.providers.gemini.tools import encode_tools as gemini_tools
from llmbridge.providers.openai_responses import ResponsesDecoder
from llmbridge.providers.openai_responses.messages import encode_messages
from llmbridge.providers.openai_responses.tools import encode_tool
from llmbridge.request import CustomToolFormat
from llmbridge.response import accumulate
from llmbridge.testing import assert_split_invariant, check_invariants, decode_body, load_fixture
from tests.fakes import named_sse

openai = pytest.importorskip("openai")
from openai.types.responses import (  # noqa: E402
    CustomToolParam,
    ResponseInputItemParam,
    ToolChoiceCustomParam,
)

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "openai-responses"
LARK = 'start: "SELECT " /[^;]+/ ";"\n'


def _stream(text_deltas: list[str], *, done: str | None, item_input: str | None) -> bytes:
    item = {"id": "ctc_1", "type": "custom_tool_call", "call_id": "call_1", "name": "run"}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "r", "model": "gpt-5"}},
        {"type": "response.output_item.added", "output_index": 0,
         "item": {**item, "status": "in_progress", "input": ""}},
    ]  # fmt: skip
    events += [
        {"type": "response.custom_tool_call_input.delta", "output_index": 0,
         "item_id": "ctc_1", "delta": d}
        for d in text_deltas
    ]  # fmt: skip
    if done is not None:
        events.append(
            {"type": "response.custom_tool_call_input.done", "output_index": 0,
             "item_id": "ctc_1", "input": done}
        )  # fmt: skip
    if item_input is not None:
        events.append(
            {"type": "response.output_item.done", "output_index": 0,
             "item": {**item, "status": "completed", "input": item_input}}
        )  # fmt: skip
    events.append({"type": "response.completed", "response": {"status": "completed"}})
    return named_sse(*events)


# -- declaring ------------------------------------------------------------------------------
def test_custom_spec_is_plain_data_and_function_specs_keep_their_four_fields() -> None:
    spec = lb.ToolSpec.custom("run_sql", "Run SQL.", grammar=LARK, syntax="lark")
    assert spec.is_custom
    assert spec.input_format == CustomToolFormat(type="grammar", syntax="lark", definition=LARK)
    assert spec.parameters["required"] == ["input"]
    again = lb.ToolSpec.model_validate_json(spec.model_dump_json())
    assert again == spec and again.is_custom
    assert spec != spec.as_function()
    assert set(lb.ToolSpec(name="f").model_dump()) == {
        "name",
        "description",
        "parameters",
        "strict",
    }


def test_custom_spec_validates_the_documented_arguments_shape() -> None:
    spec = lb.ToolSpec.custom("shell")
    assert spec.validate_arguments({"input": "ls -la"}) == {"input": "ls -la"}
    with pytest.raises(lb.ToolArgumentsError):
        spec.validate_arguments({"command": "ls"})


@pytest.mark.parametrize(
    "bad",
    [
        {"input_format": {"type": "grammar", "syntax": "lark"}},  # no definition
        {"input_format": {"type": "text", "definition": "x", "syntax": "regex"}},
        {
            "input_format": {"type": "text"},
            "parameters": {"type": "object", "properties": {"a": {}}},
        },
    ],
)
def test_inconsistent_custom_specs_are_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="grammar|custom tool"):
        lb.ToolSpec(name="t", **bad)


@pytest.mark.parametrize(
    ("spec", "wire"),
    [
        (lb.ToolSpec.custom("shell"), {"type": "custom", "name": "shell", "format": {"type": "text"}}),
        (
            lb.ToolSpec.custom("sql", "Run SQL.", grammar=LARK),
            {"type": "custom", "name": "sql", "description": "Run SQL.",
             "format": {"type": "grammar", "syntax": "lark", "definition": LARK}},
        ),
        (
            lb.ToolSpec.custom("day", grammar=r"^\d{4}-\d{2}-\d{2}$", syntax="regex"),
            {"type": "custom", "name": "day",
             "format": {"type": "grammar", "syntax": "regex", "definition": r"^\d{4}-\d{2}-\d{2}$"}},
        ),
    ],
)  # fmt: skip
def test_custom_tools_are_sent_as_the_sdk_declares_them(spec: lb.ToolSpec, wire: Any) -> None:
    encoded = encode_tool(spec)
    assert encoded == wire
    # the SDK's request type (a TypedDict: pydantic checks keys, required fields and literals)
    assert TypeAdapter(CustomToolParam).validate_python(encoded) == encoded


def test_named_tool_choice_shape_of_the_sdk_for_custom_tools_is_known() -> None:
    # ToolChoice naming a custom tool: the SDK's ToolChoiceCustomParam is {"type": "custom",
    # "name"}; the encoder is not told which tools are custom yet (see docs/tools.md).
    assert TypeAdapter(ToolChoiceCustomParam).validate_python({"type": "custom", "name": "x"})


# -- decoding -------------------------------------------------------------------------------
def test_custom_call_is_a_tool_call_with_raw_text_not_a_provider_item() -> None:
    text = 'SELECT "a"\nFROM t;'
    events = decode_body(ResponsesDecoder(), [_stream(['SELECT "a"', "\nFROM t;"],
                                                      done=text, item_input=text)])  # fmt: skip
    check_invariants(events)
    assert not [e for e in events if isinstance(e, ProviderItem)]
    start, *chunks, end = [
        e for e in events if isinstance(e, ToolCallStart | ToolCallChunk | ToolCallEnd)
    ]
    assert isinstance(start, ToolCallStart) and start.name == "run" and start.id == "call_1"
    assert "".join(c.arguments_delta for c in chunks if isinstance(c, ToolCallChunk)) == text
    assert isinstance(end, ToolCallEnd)
    assert (end.arguments, end.raw_arguments, end.error) == ({"input": text}, text, None)
    assert end.provider_data == {"item_id": "ctc_1", "custom": True}
    assert events[-1].reason == "tool_calls"  # type: ignore[union-attr]


def test_custom_input_only_in_the_done_events_is_one_chunk() -> None:
    events = decode_body(ResponsesDecoder(), [_stream([], done=None, item_input="echo hi")])
    chunks = [e for e in events if isinstance(e, ToolCallChunk)]
    assert [c.arguments_delta for c in chunks] == ["echo hi"]
    end = next(e for e in events if isinstance(e, ToolCallEnd))
    assert end.arguments == {"input": "echo hi"}


def test_text_that_looks_like_json_stays_raw_text() -> None:
    events = decode_body(
        ResponsesDecoder(), [_stream(['{"a":', " 1}"], done=None, item_input=None)]
    )
    end = next(e for e in events if isinstance(e, ToolCallEnd))
    assert end.arguments == {"input": '{"a": 1}'} and end.error is None


def test_not_json_is_no_error_for_a_custom_call() -> None:
    events = decode_body(
        ResponsesDecoder(), [_stream(["{not json"], done="{not json", item_input=None)]
    )
    end = next(e for e in events if isinstance(e, ToolCallEnd))
    assert end.error is None and end.raw_arguments == "{not json"


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=60, deadline=None)
@given(
    parts=st.lists(_TEXT, max_size=6),
    tail=_TEXT,
    cuts=st.lists(st.integers(min_value=0, max_value=4000), max_size=8),
)
def test_any_input_split_anywhere_gives_the_same_custom_call(
    parts: list[str], tail: str, cuts: list[int]
) -> None:
    streamed = "".join(parts)
    body = _stream(parts, done=streamed + tail, item_input=streamed + tail)
    bounds = sorted({0, len(body), *(c % (len(body) + 1) for c in cuts)})
    chunks = [body[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    whole = decode_body(ResponsesDecoder(), [body])
    split = decode_body(ResponsesDecoder(), chunks)
    assert split == whole
    check_invariants(split)
    end = next(e for e in split if isinstance(e, ToolCallEnd))
    assert end.raw_arguments == streamed + tail and end.arguments == {"input": streamed + tail}


def test_the_fixture_split_at_every_offset_agrees() -> None:
    fx = load_fixture(FIXTURES / "custom_tool_grammar_call")
    events, error = assert_split_invariant(ResponsesDecoder, fx.body, max_splits=400)
    assert error is None
    assert [e.type for e in events if isinstance(e, ToolCallEnd)] == ["tool_call_end"] * 2


# -- the round trip ---------------------------------------------------------------------------
def test_history_round_trips_to_the_next_turns_recorded_request() -> None:
    turn1 = load_fixture(FIXTURES / "custom_tool_grammar_call")
    turn2 = load_fixture(FIXTURES / "custom_tool_round_trip")
    provider = create_provider("openai-responses", ProviderConfig.from_mapping({"api_key": "k"}))
    events = decode_body(provider.new_decoder(turn1.request), [turn1.body])
    message = accumulate(events, provider="openai-responses").message
    results = turn2.request.messages[2]
    messages = [*turn1.request.messages, message, results]
    _, items = encode_messages(messages, store=False)
    assert items == turn2.http_request["body"]["input"]
    adapter: TypeAdapter[Any] = TypeAdapter(ResponseInputItemParam)
    for item in items:  # every item is one the SDK's input type knows
        checked = adapter.validate_python(item)
        if item["type"].startswith(("custom_tool_call", "function_call")):
            assert checked == item  # field for field (a TypedDict ignores unknown keys)


def test_a_call_from_chat_completions_goes_back_as_a_custom_tool_call() -> None:
    call = lb.ToolCallPart(id="call_9", name="shell", arguments={"input": "ls"},
                           provider_data={"custom": True})  # fmt: skip
    result = lb.ToolResultPart(tool_call_id="call_9", content=[lb.TextPart(text="a.txt")])
    messages = [
        lb.ChatMessage.user("files?"),
        lb.ChatMessage(role="assistant", content=[call]),
        lb.ChatMessage(role="tool", content=[result]),
    ]
    _, items = encode_messages(messages, store=False)
    assert items[1:] == [
        {"type": "custom_tool_call", "call_id": "call_9", "name": "shell", "input": "ls"},
        {"type": "custom_tool_call_output", "call_id": "call_9", "output": "a.txt"},
    ]


# -- providers without custom tools ---------------------------------------------------------
def test_anthropic_and_gemini_refuse_a_custom_tool_by_name() -> None:
    spec = lb.ToolSpec.custom("apply_patch", grammar=LARK)
    with pytest.raises(UnsupportedFeatureError, match="apply_patch"):
        anthropic_tool(spec)
    with pytest.raises(UnsupportedFeatureError, match="apply_patch"):
        gemini_tools([spec], json_schema=False, vertex=False)
    fallback = spec.as_function()  # the documented fallback: one string parameter
    assert anthropic_tool(fallback)["input_schema"]["properties"]["input"]["type"] == "string"
    assert gemini_tools([fallback], json_schema=False, vertex=False)[0]["name"] == "apply_patch"


@pytest.mark.anyio
async def test_the_client_refuses_before_sending_anything() -> None:
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(500)

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    async with lb.Client(http_client=http, providers={"anthropic": {"api_key": "k"}}) as client:
        with pytest.raises(UnsupportedFeatureError, match="shell"):
            await client.complete(
                "anthropic:claude-sonnet-4-5",
                [lb.ChatMessage.user("hi")],
                tools=[lb.ToolSpec.custom("shell")],
            )
    assert not sent


def test_sdk_reads_the_same_custom_call_from_the_fixture() -> None:
    fx = load_fixture(FIXTURES / "custom_tool_grammar_call")
    done = [
        orjson.loads(line[5:])["item"]
        for line in fx.body.splitlines()
        if line.startswith(b"data:") and b'"response.output_item.done"' in line
    ]
    from openai.types.responses import ResponseCustomToolCall

    sdk = [
        ResponseCustomToolCall.model_validate(i) for i in done if i["type"] == "custom_tool_call"
    ]
    events = decode_body(ResponsesDecoder(), [fx.body])
    ends = [
        e for e in events if isinstance(e, ToolCallEnd) and (e.provider_data or {}).get("custom")
    ]
    assert [(e.id, e.name, e.raw_arguments) for e in ends] == [
        (c.call_id, c.name, c.input) for c in sdk
    ]


def test_a_tool_choice_naming_a_custom_tool_uses_the_custom_shape_on_both_apis() -> None:
    from llmbridge.providers.openai.presets import PRESETS
    from llmbridge.providers.openai.request import build_body as chat_body
    from llmbridge.providers.openai_responses.request import build_body as responses_body

    tools = [
        lb.ToolSpec.custom("run_sql", "Run one SQL query", grammar="start: /SELECT .+/"),
        lb.ToolSpec.from_json_schema("lookup", "Look up", {"type": "object", "properties": {}}),
    ]
    for name, want_chat, want_responses in (
        (
            "run_sql",
            {"type": "custom", "custom": {"name": "run_sql"}},
            {"type": "custom", "name": "run_sql"},
        ),
        (
            "lookup",
            {"type": "function", "function": {"name": "lookup"}},
            {"type": "function", "name": "lookup"},
        ),
    ):
        request = lb.ChatRequest(
            model="gpt-5",
            messages=[lb.ChatMessage.user("go")],
            tools=tools,
            tool_choice=lb.ToolChoice.tool(name),
        )
        chat = chat_body(request=request, preset=PRESETS["openai"], provider="openai").body
        assert chat["tool_choice"] == want_chat
        assert responses_body(request).body["tool_choice"] == want_responses
    chat_types = pytest.importorskip("openai.types.chat")
    TypeAdapter(chat_types.ChatCompletionToolChoiceOptionParam).validate_python(
        {"type": "custom", "custom": {"name": "run_sql"}}
    )
    responses_types = pytest.importorskip("openai.types.responses.response_create_params")
    TypeAdapter(responses_types.ToolChoice).validate_python({"type": "custom", "name": "run_sql"})
