"""Custom (freeform) tools on Chat Completions (issue 19, part 1), pure, no IO.

Declared as the openai SDK's ``ChatCompletionCustomToolParam`` (grammar *nested*:
``{"type": "grammar", "grammar": {"definition", "syntax"}}``); sent back as
``ChatCompletionMessageCustomToolCallParam``. Streaming: the SDK's chunk type has no custom
member (``ChoiceDeltaToolCall.type`` is ``"function"`` only, openai 3.54); the streamed shape
decoded here, ``{"index", "id", "type": "custom", "custom": {"name", "input"}}``, is the
non-streaming message shape as reported in openai/openai-python#2530 and
openai/openai-openapi#576. ``test_openai_chat_sdk_crosscheck.py`` shows what the SDK makes of it.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

import llmbridge as lb
from llmbridge.events import ToolCallChunk, ToolCallEnd, ToolCallStart
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.openai import ChatCompletionsDecoder
from llmbridge.providers.openai.messages import encode_messages
from llmbridge.providers.openai.tools import encode_tools
from llmbridge.response import accumulate
from llmbridge.testing import check_invariants, decode_body, load_fixture
from tests.fakes import sse_body

openai = pytest.importorskip("openai")
from openai.types.chat import (  # noqa: E402
    ChatCompletionCustomToolParam,
    ChatCompletionMessageCustomToolCallParam,
)

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "openai"
LARK = 'start: "SELECT " /[^;]+/ ";"\n'


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": "gpt-5",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


sse = partial(sse_body, done=True)


def custom_call(
    parts: list[str], *, call_id: str = "call_1", index: int = 0
) -> list[dict[str, Any]]:
    first = {"index": index, "id": call_id, "type": "custom",
             "custom": {"name": "run", "input": ""}}  # fmt: skip
    rest = [{"index": index, "custom": {"input": p}} for p in parts]
    return [chunk({"tool_calls": [f]}) for f in [first, *rest]]


# -- declaring --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "wire"),
    [
        (lb.ToolSpec.custom("shell"),
         {"type": "custom", "custom": {"name": "shell", "format": {"type": "text"}}}),
        (lb.ToolSpec.custom("sql", "Run SQL.", grammar=LARK),
         {"type": "custom", "custom": {"name": "sql", "description": "Run SQL.", "format": {
             "type": "grammar", "grammar": {"definition": LARK, "syntax": "lark"}}}}),
        (lb.ToolSpec.custom("day", grammar=r"^\d+$", syntax="regex"),
         {"type": "custom", "custom": {"name": "day", "format": {
             "type": "grammar", "grammar": {"definition": r"^\d+$", "syntax": "regex"}}}}),
    ],
)  # fmt: skip
def test_custom_tools_are_sent_as_the_sdk_declares_them(spec: lb.ToolSpec, wire: Any) -> None:
    (encoded,) = encode_tools(tools=[spec], strict_supported=True)
    assert encoded == wire
    assert TypeAdapter(ChatCompletionCustomToolParam).validate_python(encoded) == encoded


def test_function_tools_beside_custom_ones_are_unchanged() -> None:
    function = lb.ToolSpec(name="f", description="F.")
    encoded = encode_tools(tools=[function, lb.ToolSpec.custom("g")], strict_supported=False)
    assert encoded[0] == {"type": "function", "function": {"name": "f", "description": "F.",
                          "parameters": {"type": "object", "properties": {}}}}  # fmt: skip
    assert encoded[1]["type"] == "custom"


# -- decoding ---------------------------------------------------------------------------------
def test_streamed_custom_call_is_a_tool_call_with_raw_text() -> None:
    text = "SELECT 1;\n-- not JSON {"
    body = sse(*custom_call(["SELECT 1;", "\n-- not JSON {"]), chunk({}, "tool_calls"))
    events = decode_body(ChatCompletionsDecoder(provider="openai"), [body])
    check_invariants(events)
    start = next(e for e in events if isinstance(e, ToolCallStart))
    end = next(e for e in events if isinstance(e, ToolCallEnd))
    assert (start.id, start.name) == ("call_1", "run")
    assert (end.arguments, end.raw_arguments, end.error) == ({"input": text}, text, None)
    assert end.provider_data == {"custom": True}
    assert events[-1].reason == "tool_calls"  # type: ignore[union-attr]


def test_custom_and_function_calls_in_parallel_keep_their_kinds() -> None:
    function = [
        chunk({"tool_calls": [{"index": 1, "id": "call_2", "type": "function",
                               "function": {"name": "f", "arguments": '{"a":'}}]}),
        chunk({"tool_calls": [{"index": 1, "function": {"arguments": "1}"}}]}),
    ]  # fmt: skip
    body = sse(*custom_call(["ls"]), *function, chunk({}, "tool_calls"))
    events = decode_body(ChatCompletionsDecoder(provider="openai"), [body])
    check_invariants(events)
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [(e.id, e.arguments, e.provider_data) for e in ends] == [
        ("call_1", {"input": "ls"}, {"custom": True}),
        ("call_2", {"a": 1}, None),
    ]


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)


@settings(max_examples=60, deadline=None)
@given(parts=st.lists(_TEXT, max_size=6), cuts=st.lists(st.integers(0, 3000), max_size=8))
def test_any_custom_input_split_anywhere_gives_the_same_events(
    parts: list[str], cuts: list[int]
) -> None:
    body = sse(*custom_call(parts), chunk({}, "tool_calls"))
    bounds = sorted({0, len(body), *(c % (len(body) + 1) for c in cuts)})
    chunks = [body[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    whole = decode_body(ChatCompletionsDecoder(provider="openai"), [body])
    split = decode_body(ChatCompletionsDecoder(provider="openai"), chunks)
    assert split == whole
    check_invariants(split)
    text = "".join(parts)
    end = next(e for e in split if isinstance(e, ToolCallEnd))
    assert (end.raw_arguments, end.arguments) == (text, {"input": text})
    chunks_text = "".join(e.arguments_delta for e in split if isinstance(e, ToolCallChunk))
    assert chunks_text == text


# -- the round trip -----------------------------------------------------------------------------
def test_history_round_trips_to_the_next_turns_recorded_request() -> None:
    turn1 = load_fixture(FIXTURES / "custom_tool_call")
    turn2 = load_fixture(FIXTURES / "custom_tool_round_trip")
    provider = create_provider("openai", ProviderConfig.from_mapping({"api_key": "k"}))
    events = decode_body(provider.new_decoder(turn1.request), [turn1.body])
    message = accumulate(events).message
    messages = [*turn1.request.messages, message, turn2.request.messages[2]]
    wire = encode_messages(messages=messages, provider="openai", send_reasoning_content=False)
    assert wire == turn2.http_request["body"]["messages"]
    (call,) = wire[1]["tool_calls"]
    assert TypeAdapter(ChatCompletionMessageCustomToolCallParam).validate_python(call) == call


def test_a_call_from_responses_goes_back_in_the_custom_shape() -> None:
    call = lb.ToolCallPart(id="call_7", name="shell", arguments={"input": "ls"},
                           raw_arguments="ls", provider_data={"item_id": "ctc_1", "custom": True})  # fmt: skip
    wire = encode_messages(
        messages=[lb.ChatMessage(role="assistant", content=[call])],
        provider="openai",
        send_reasoning_content=False,
    )
    assert wire[0]["tool_calls"] == [
        {"id": "call_7", "type": "custom", "custom": {"name": "shell", "input": "ls"}}
    ]
