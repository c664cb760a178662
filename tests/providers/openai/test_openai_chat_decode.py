"""The Chat Completions decoder on the failure modes real servers produce (issue 3)."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmbridge.errors import (
    APIError,
    InvalidRequestError,
    LLMBridgeError,
    MalformedStreamError,
    StreamTruncatedError,
)
from llmbridge.events import (
    Finish,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallChunk,
    ToolCallEnd,
    ToolCallStart,
)
from llmbridge.providers.openai import ChatCompletionsDecoder
from llmbridge.response import accumulate
from llmbridge.testing import assert_split_invariant, check_invariants, decode_collect
from tests.fakes import sse_body


def chunk(
    delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m"}
    body["choices"] = [{"index": 0, "delta": delta or {}, "finish_reason": finish}]
    body.update(extra)
    return body


sse = partial(sse_body, done=True)


def decode(
    body: bytes, *, use_index: bool = True
) -> tuple[list[StreamEvent], LLMBridgeError | None]:
    def new() -> ChatCompletionsDecoder:
        return ChatCompletionsDecoder(provider="openai", use_index=use_index)

    assert_split_invariant(new, body, max_splits=60)
    events, error = decode_collect(new(), [body])
    check_invariants(events, complete=error is None)
    return events, error


def calls(events: list[StreamEvent]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(e.id, e.name, e.arguments) for e in events if isinstance(e, ToolCallEnd)]


def tc(
    index: int | None = None, id: str | None = None, name: str | None = None, args: Any = ...
) -> dict[str, Any]:
    frag: dict[str, Any] = {}
    if index is not None:
        frag["index"] = index
    if id is not None:
        frag["id"] = id
        frag["type"] = "function"
    fn: dict[str, Any] = {}
    if name is not None:
        fn["name"] = name
    if args is not ...:
        fn["arguments"] = args
    frag["function"] = fn
    return frag


def test_index_only_continuations_attach_to_the_right_interleaved_call() -> None:
    events, error = decode(
        sse(
            chunk({"tool_calls": [tc(0, "call_a", "f", "")]}),
            chunk({"tool_calls": [tc(1, "call_b", "g", "")]}),
            chunk({"tool_calls": [tc(1, args='{"y":')]}),
            chunk({"tool_calls": [tc(0, args='{"x":')]}),
            chunk({"tool_calls": [tc(0, args="1}"), tc(1, args="2}")]}),
            chunk(finish="tool_calls"),
        )
    )
    assert error is None
    assert calls(events) == [("call_a", "f", {"x": 1}), ("call_b", "g", {"y": 2})]


def test_gateway_sending_index_zero_for_every_call_is_split_by_id() -> None:
    events, _ = decode(
        sse(
            chunk({"tool_calls": [tc(0, "call_a", "f", '{"x":1}')]}),
            chunk({"tool_calls": [tc(0, "call_b", "f", "")]}),
            chunk({"tool_calls": [tc(0, args='{"x":2}')]}),
            chunk(finish="tool_calls"),
        )
    )
    assert calls(events) == [("call_a", "f", {"x": 1}), ("call_b", "f", {"x": 2})]
    assert [e.index for e in events if isinstance(e, ToolCallStart)] == [0, 1]


def test_first_wire_index_one_still_gives_position_zero() -> None:
    events, _ = decode(
        sse(chunk({"tool_calls": [tc(1, "call_a", "f", "{}")]}), chunk(finish="tool_calls"))
    )
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert [(s.id, s.index) for s in starts] == [("call_a", 0)]


@pytest.mark.parametrize("args", [..., None, ""])
def test_absent_or_null_arguments_give_an_empty_object(args: Any) -> None:
    events, _ = decode(
        sse(chunk({"tool_calls": [tc(0, "call_a", "ping", args)]}), chunk(finish="tool_calls"))
    )
    end = next(e for e in events if isinstance(e, ToolCallEnd))
    assert (end.arguments, end.raw_arguments, end.error) == ({}, "", None)


def test_a_call_whose_arguments_already_parse_stays_open_until_finish() -> None:
    decoder = ChatCompletionsDecoder(provider="openai")
    first = decoder.feed("", json.dumps(chunk({"tool_calls": [tc(0, "call_a", "f", '{"x": 1}')]})))
    more = decoder.feed("", json.dumps(chunk({"tool_calls": [tc(0, args=" ")]})))
    assert not any(isinstance(e, ToolCallEnd) for e in first + more)
    ended = decoder.feed("", json.dumps(chunk(finish="tool_calls")))
    assert [type(e) for e in ended] == [ToolCallEnd]
    assert decoder.feed("", "[DONE]")[-1] == Finish("tool_calls", "tool_calls", None)


def test_missing_ids_and_index_and_object_arguments() -> None:
    events, _ = decode(
        sse(
            chunk({"tool_calls": [{"function": {"name": "f", "arguments": {"x": 1}}}]}),
            chunk({"tool_calls": [{"function": {"name": "f", "arguments": {"x": 2}}}]}),
            chunk(finish="stop"),
        )
    )
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [(e.arguments, e.provider_data) for e in ends] == [
        ({"x": 1}, {"generated_id": True}),
        ({"x": 2}, {"generated_id": True}),
    ]
    assert len({e.id for e in ends}) == 2
    assert events[-1].reason == "tool_calls"  # type: ignore[union-attr]


def test_mistral_fragments_without_index_repeat_ids() -> None:
    body = sse(
        chunk({"tool_calls": [{"id": "a1", "function": {"name": "f", "arguments": '{"x":'}}]}),
        chunk({"tool_calls": [{"id": "a1", "function": {"arguments": "1}"}}]}),
        chunk({"tool_calls": [{"id": "b2", "function": {"name": "g", "arguments": "{}"}}]}),
        chunk(finish="tool_calls"),
    )
    events, _ = decode(body, use_index=False)
    assert calls(events) == [("a1", "f", {"x": 1}), ("b2", "g", {})]


def test_malformed_arguments_are_flagged_not_raised() -> None:
    events, error = decode(
        sse(chunk({"tool_calls": [tc(0, "c", "f", '{"x": ')]}), chunk(finish="length"))
    )
    end = next(e for e in events if isinstance(e, ToolCallEnd))
    assert error is None and end.arguments == {} and end.error and end.raw_arguments == '{"x": '


def test_usage_is_the_last_snapshot_not_a_sum() -> None:
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    events, _ = decode(
        sse(
            chunk({"content": "a"}, usage={**usage, "completion_tokens": 1}),
            chunk({"content": "b"}, usage=usage),
            chunk(finish="stop", usage=usage),
            {"id": "chatcmpl-1", "choices": [], "usage": usage},
        )
    )
    finish = events[-1]
    assert isinstance(finish, Finish) and finish.usage is not None
    assert (finish.usage.input_tokens, finish.usage.output_tokens) == (10, 5)


def test_no_usage_chunk_at_all_gives_none() -> None:
    events, _ = decode(sse(chunk({"content": "hi"}), chunk(finish="stop")))
    assert events[-1] == Finish("stop", "stop", None)


def test_content_as_typed_parts_mistral_and_databricks() -> None:
    events, _ = decode(
        sse(
            chunk(
                {"content": [{"type": "thinking", "thinking": [{"type": "text", "text": "hmm"}]}]}
            ),
            chunk(
                {
                    "content": [
                        {"type": "reasoning", "summary": [{"type": "summary_text", "text": " ok"}]}
                    ]
                }
            ),
            chunk({"content": [{"type": "text", "text": "Hi"}, {"type": "image_url"}]}),
            chunk(finish="stop"),
        )
    )
    response = accumulate(events)
    assert (response.reasoning, response.text) == ("hmm ok", "Hi")


def test_reasoning_spellings_without_double_counting() -> None:
    events, _ = decode(
        sse(
            chunk({"reasoning_content": "a"}),
            chunk(
                {"reasoning": "b", "reasoning_details": [{"type": "reasoning.text", "text": "b"}]}
            ),
            chunk(
                {"reasoning": None, "reasoning_details": [{"type": "reasoning.text", "text": "c"}]}
            ),
            chunk({"reasoning_details": [{"type": "reasoning.encrypted", "data": "opaque"}]}),
            chunk(finish="stop"),
        )
    )
    assert accumulate(events).reasoning == "abc"


def test_reasoning_details_with_a_non_text_value_then_text_keep_decoding() -> None:
    """A mangled detail (``text: true``) followed by real text for the same index: the text
    replaces it, the stream goes on (it used to raise a bare TypeError)."""
    detail = {"type": "reasoning.text", "index": 0}
    events, error = decode(
        sse(
            chunk({"reasoning_details": [{**detail, "text": True}]}),
            chunk({"reasoning_details": [{**detail, "text": "think"}]}),
            chunk({"content": "ok"}, finish="stop"),
        )
    )
    assert error is None
    assert accumulate(events).text == "ok"
    kept = [e for e in events if getattr(e, "provider_data", None)]
    assert kept[0].provider_data["reasoning_details"] == [{**detail, "text": "think"}]


def test_refusal_is_surfaced() -> None:
    events, _ = decode(sse(chunk({"content": None, "refusal": "No."}), chunk(finish="stop")))
    response = accumulate(events)
    assert response.text == "No."
    assert response.finish_reason == "content_filter"
    assert response.provider_data == {"refusal": "No."}


def test_groq_event_error_without_done_raises_after_the_text() -> None:
    body = sse(chunk({"content": "partial"}), done=False) + (
        b'event: error\ndata: {"error":{"message":"bad","type":"invalid_request_error",'
        b'"code":"tool_use_failed"}}\n\n'
    )
    events, error = decode(body)
    assert isinstance(error, InvalidRequestError) and error.provider_message == "bad"
    assert accumulate(events).text == "partial"


def test_openrouter_error_in_a_chunk_then_done_raises_after_that_chunks_events() -> None:
    body = sse(
        chunk({"content": "x"}),
        chunk({"content": "y"}, error={"code": 502, "message": "Upstream died"}),
    )
    events, error = decode(body)
    assert isinstance(error, APIError) and error.status == 502
    assert accumulate(events).text == "xy"


def test_non_json_data_line_raises_malformed_after_earlier_events() -> None:
    events, error = decode(sse(chunk({"content": "ok"}), b"data: <html>oops</html>\n\n"))
    assert isinstance(error, MalformedStreamError)
    assert [e for e in events if isinstance(e, TextDelta)] == [TextDelta("ok")]


def test_end_without_finish_or_done_is_truncated() -> None:
    events, error = decode(sse(chunk({"content": "cut"}), done=False))
    assert isinstance(error, StreamTruncatedError)
    assert not any(isinstance(e, Finish) for e in events)


def test_finish_without_done_and_done_without_finish_both_complete() -> None:
    events, error = decode(sse(chunk({"content": "a"}, finish="stop"), done=False))
    assert error is None and events[-1] == Finish("stop", "stop", None)
    events, error = decode(sse(chunk({"content": "a"})))
    assert error is None and events[-1] == Finish("stop", None, None)


def test_keepalives_unknown_events_and_vendor_fields_are_ignored() -> None:
    body = (
        b": OPENROUTER PROCESSING\n\n"
        + b'event: ping\ndata: {"t": 1}\n\n'
        + sse(chunk({"content": "a", "channel": "final"}, x_vendor={"k": 1}, obfuscation="abc"))
    )
    events, error = decode(body)
    assert error is None and accumulate(events).text == "a"


def test_feeding_after_an_error_raises_again() -> None:
    decoder = ChatCompletionsDecoder(provider="openai")
    with pytest.raises(MalformedStreamError):
        decoder.feed("", "{not json")
    with pytest.raises(MalformedStreamError):
        decoder.feed("", "[DONE]")


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "choices",
                    "delta",
                    "tool_calls",
                    "function",
                    "index",
                    "id",
                    "name",
                    "arguments",
                    "content",
                    "finish_reason",
                    "usage",
                    "error",
                    "reasoning",
                    "type",
                    "text",
                    "refusal",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.dictionaries(st.sampled_from(["choices", "usage", "id", "error"]), _json), max_size=5
    )
)
def test_odd_shapes_raise_only_llmbridge_errors(chunks: list[dict[str, Any]]) -> None:
    decoder = ChatCompletionsDecoder(provider="openai")
    events: list[StreamEvent] = []
    try:
        for item in chunks:
            events.extend(decoder.feed("", json.dumps(item)))
        events.extend(decoder.close())
    except LLMBridgeError:
        return
    check_invariants(events)


def test_chunks_and_starts_share_ids() -> None:
    events, _ = decode(
        sse(chunk({"tool_calls": [tc(0, "c", "f", "{}")]}), chunk(finish="tool_calls"))
    )
    kinds = [type(e) for e in events if isinstance(e, ToolCallStart | ToolCallChunk | ToolCallEnd)]
    assert kinds == [ToolCallStart, ToolCallChunk, ToolCallEnd]
    assert not any(isinstance(e, ReasoningDelta) for e in events)


def test_legacy_function_call_delta_and_finish_reason() -> None:
    events, _ = decode(
        sse(
            chunk({"function_call": {"name": "f", "arguments": '{"a"'}}),
            chunk({"function_call": {"arguments": ": 1}"}}),
            chunk(finish="function_call"),
        )
    )
    response = accumulate(events)
    assert [(c.name, c.arguments) for c in response.tool_calls] == [("f", {"a": 1})]
    assert (response.finish_reason, response.raw_finish_reason) == ("tool_calls", "function_call")


def test_only_choice_zero_is_followed() -> None:
    two = {
        "id": "x",
        "choices": [
            {"index": 1, "delta": {"content": "other"}, "finish_reason": None},
            {"index": 0, "delta": {"content": "mine"}, "finish_reason": None},
        ],
    }
    events, _ = decode(sse(two, chunk(finish="stop")))
    assert accumulate(events).text == "mine"
