"""The Anthropic decoder on the failure modes and quirks a user would notice."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmbridge.errors import (
    InvalidRequestError,
    MalformedStreamError,
    OverloadedError,
    RateLimitError,
    ServerError,
    StreamTruncatedError,
)
from llmbridge.events import (
    Finish,
    ProviderItem,
    ReasoningDelta,
    StreamStart,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from llmbridge.providers.anthropic import AnthropicDecoder
from llmbridge.response import accumulate
from llmbridge.testing import assert_split_invariant, check_invariants, decode_body, decode_collect
from llmbridge.types import RawPart
from tests.fakes import named_sse, sse_body


def start(mid: str = "msg_1", usage: dict[str, Any] | None = None, **msg: Any) -> dict[str, Any]:
    message = {
        "id": mid,
        "model": "claude-x",
        "content": [],
        "usage": usage or {"input_tokens": 10, "output_tokens": 1},
    }
    message.update(msg)
    return {"type": "message_start", "message": message}


def block(i: int, **b: Any) -> dict[str, Any]:
    return {"type": "content_block_start", "index": i, "content_block": b}


def delta(i: int, **d: Any) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": i, "delta": d}


def stop(i: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": i}


def mdelta(reason: str | None = "end_turn", **usage: Any) -> dict[str, Any]:
    return {
        "type": "message_delta",
        "delta": {"stop_reason": reason},
        "usage": usage or {"output_tokens": 5},
    }


MSTOP = {"type": "message_stop"}
PING = {"type": "ping"}


def text_stream(*parts: str) -> list[dict[str, Any]]:
    return [
        start(),
        block(0, type="text", text=""),
        *(delta(0, type="text_delta", text=p) for p in parts),
        stop(0),
        mdelta(),
        MSTOP,
    ]


def decode(*events: dict[str, Any]) -> list[Any]:
    return decode_body(AnthropicDecoder(), [named_sse(*events)])


def test_text_stream_gives_start_text_and_one_finish() -> None:
    events = decode(*text_stream("Hel", "lo"))
    assert isinstance(events[0], StreamStart) and events[0].response_id == "msg_1"
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Hel", "lo"]
    assert isinstance(events[-1], Finish) and events[-1].reason == "stop"
    check_invariants(events)


def test_streams_without_event_lines_decode_the_same() -> None:
    body = text_stream("a", "b")
    assert decode_body(AnthropicDecoder(), [sse_body(*body)]) == decode(*body)


def test_ping_anywhere_and_unknown_events_are_ignored() -> None:
    events = decode(
        PING,
        start(),
        PING,
        {"type": "brand_new_event", "payload": [1, 2]},
        block(0, type="text", text=""),
        delta(0, type="text_delta", text="ok"),
        delta(0, type="future_delta", stuff=1),
        stop(0),
        mdelta(),
        PING,
        MSTOP,
    )
    assert accumulate(events).text == "ok"


def test_mid_stream_overloaded_error_raises_typed_error_after_earlier_events() -> None:
    err = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    events, error = decode_collect(
        AnthropicDecoder(), [named_sse(*text_stream("partial")[:3], err)]
    )
    assert isinstance(error, OverloadedError) and error.retryable
    assert error.provider_message == "Overloaded" and error.status is None
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["partial"]


@pytest.mark.parametrize(
    ("kind", "cls"),
    [
        ("api_error", ServerError),
        ("rate_limit_error", RateLimitError),
        ("invalid_request_error", InvalidRequestError),
    ],
)
def test_in_stream_error_types_map_to_classes(kind: str, cls: type[Exception]) -> None:
    err = {"type": "error", "error": {"type": kind, "message": "boom"}}
    _, error = decode_collect(AnthropicDecoder(), [named_sse(start(), err)])
    assert type(error) is cls


def test_decoder_refuses_input_after_an_error() -> None:
    dec = AnthropicDecoder()
    with pytest.raises(OverloadedError):
        dec.feed("error", '{"type":"error","error":{"type":"overloaded_error","message":"x"}}')
    with pytest.raises(MalformedStreamError):
        dec.feed("message_start", json.dumps(start()))


def test_non_json_data_is_malformed_stream() -> None:
    dec = AnthropicDecoder()
    with pytest.raises(MalformedStreamError):
        dec.feed("content_block_delta", "{not json")


@pytest.mark.parametrize("data", ["[1, 2]", '"text"', "null"])
def test_non_object_data_is_malformed_stream(data: str) -> None:
    with pytest.raises(MalformedStreamError):
        AnthropicDecoder().feed("message_start", data)


def test_odd_shapes_never_leak_python_errors() -> None:
    dec = AnthropicDecoder()
    dec.feed("message_start", json.dumps({"type": "message_start", "message": None}))
    for payload in (
        {"type": "content_block_delta", "index": "x", "delta": None},
        {"type": "content_block_delta", "index": 7, "delta": {"type": "text_delta"}},
        {"type": "content_block_stop", "index": None},
        {"type": "message_delta", "delta": [], "usage": "lots"},
    ):
        assert dec.feed(payload["type"], json.dumps(payload)) == []
    with pytest.raises(MalformedStreamError):
        dec.feed("content_block_start", json.dumps({"type": "content_block_start", "index": 0}))


def test_end_of_body_before_message_stop_is_truncated() -> None:
    events, error = decode_collect(AnthropicDecoder(), [named_sse(*text_stream("cut")[:3])])
    assert isinstance(error, StreamTruncatedError)
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["cut"]


def test_empty_body_is_truncated() -> None:
    _, error = decode_collect(AnthropicDecoder(), [b""])
    assert isinstance(error, StreamTruncatedError)


def test_cut_inside_a_tool_call_is_truncated_and_call_stays_open() -> None:
    body = named_sse(
        start(),
        block(0, type="tool_use", id="t1", name="f", input={}),
        delta(0, type="input_json_delta", partial_json='{"a":'),
    )
    events, error = decode_collect(AnthropicDecoder(), [body])
    assert isinstance(error, StreamTruncatedError)
    assert not any(isinstance(e, ToolCallEnd) for e in events)
    partial = accumulate(events)
    assert (
        partial.tool_calls[0].error is not None and partial.tool_calls[0].raw_arguments == '{"a":'
    )


def test_gateway_stream_without_message_stop_still_finishes() -> None:
    # Vercel's AI Gateway drops message_stop; a stop reason with no open block means the
    # turn is complete, so we finish instead of raising (decision documented in decode.py).
    events = decode(
        start(usage={"input_tokens": 0, "output_tokens": 0}),
        mdelta("end_turn", input_tokens=13, output_tokens=5),
    )
    assert events[-1] == Finish(
        reason="stop", raw_reason="end_turn", usage=Usage(input_tokens=13, output_tokens=5)
    )


def test_tool_call_with_split_escapes_and_empty_fragments() -> None:
    frags = ["", '{"q": "a\\', "nb \\u00", 'e9", "n": 1', "", "}"]
    events = decode(
        start(),
        block(0, type="tool_use", id="toolu_1", name="search", input={}),
        *(delta(0, type="input_json_delta", partial_json=f) for f in frags),
        stop(0),
        mdelta("tool_use"),
        MSTOP,
    )
    check_invariants(events)
    end = next(e for e in events if isinstance(e, ToolCallEnd))
    assert end.arguments == {"q": "a\nb é", "n": 1} and end.error is None
    assert sum(e.type == "tool_call_chunk" for e in events) == 4  # empty fragments emit nothing
    assert events[-1].reason == "tool_calls"


@pytest.mark.parametrize("deltas", [[], [""]])
def test_no_input_tool_ends_with_empty_object(deltas: list[str]) -> None:
    events = decode(
        start(),
        block(0, type="tool_use", id="t", name="ping_server", input={}),
        *(delta(0, type="input_json_delta", partial_json=d) for d in deltas),
        stop(0),
        mdelta("tool_use"),
        MSTOP,
    )
    end = next(e for e in events if isinstance(e, ToolCallEnd))
    assert (end.arguments, end.raw_arguments, end.error) == ({}, "", None)


def test_malformed_tool_json_is_flagged_not_raised() -> None:
    events = decode(
        start(),
        block(0, type="tool_use", id="t", name="f", input={}),
        delta(0, type="input_json_delta", partial_json='{"a": tru'),
        stop(0),
        mdelta("tool_use"),
        MSTOP,
    )
    end = next(e for e in events if isinstance(e, ToolCallEnd))
    assert end.arguments == {} and end.raw_arguments == '{"a": tru' and end.error


def test_thinking_signature_and_redacted_thinking_round_trip_data() -> None:
    events = decode(
        start(),
        block(0, type="thinking", thinking="", signature=""),
        delta(0, type="thinking_delta", thinking="Let me "),
        delta(0, type="thinking_delta", thinking="think."),
        delta(0, type="signature_delta", signature="SIG"),
        stop(0),
        block(1, type="redacted_thinking", data="OPAQUE"),
        stop(1),
        block(2, type="text", text=""),
        delta(2, type="text_delta", text="Done."),
        stop(2),
        mdelta(),
        MSTOP,
    )
    reasoning = [e for e in events if isinstance(e, ReasoningDelta)]
    assert reasoning[-2] == ReasoningDelta(text="", signature="SIG")
    assert reasoning[-1] == ReasoningDelta(
        text="", provider_data={"type": "redacted_thinking", "data": "OPAQUE"}
    )
    parts = accumulate(events, provider="anthropic").message.content
    assert [p.type for p in parts] == ["reasoning", "reasoning", "text"]
    assert parts[0].text == "Let me think." and parts[0].signature == "SIG"  # type: ignore[union-attr]


def test_usage_merges_repeated_counts_instead_of_adding() -> None:
    first = {
        "input_tokens": 5,
        "cache_read_input_tokens": 100,
        "cache_creation_input_tokens": 20,
        "output_tokens": 1,
    }
    events = decode(
        start(usage=first),
        mdelta("end_turn", input_tokens=5, cache_read_input_tokens=100, output_tokens=7),
        mdelta("end_turn", output_tokens=9, output_tokens_details={"thinking_tokens": 4}),
        MSTOP,
    )
    assert events[-1].usage == Usage(
        input_tokens=125,
        output_tokens=9,
        cached_input_tokens=100,
        cache_write_tokens=20,
        reasoning_tokens=4,
    )


def test_no_usage_anywhere_gives_none() -> None:
    msg = {"type": "message_start", "message": {"id": "m", "model": "x", "content": []}}
    events = decode(msg, {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}, MSTOP)
    assert events[-1].usage is None


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("tool_use", "tool_calls"),
        ("refusal", "content_filter"),
        ("pause_turn", "other"),
        ("something_new", "other"),
    ],
)
def test_stop_reasons(raw: str, reason: str) -> None:
    events = decode(start(), mdelta(raw), MSTOP)
    assert (events[-1].reason, events[-1].raw_reason) == (reason, raw)


def test_server_tool_blocks_are_kept_whole_not_tool_calls() -> None:
    events = decode(
        start(),
        block(0, type="server_tool_use", id="srv_1", name="web_search", input={}),
        delta(0, type="input_json_delta", partial_json='{"query": '),
        delta(0, type="input_json_delta", partial_json='"llamas"}'),
        stop(0),
        block(
            1,
            type="web_search_tool_result",
            tool_use_id="srv_1",
            content=[{"type": "web_search_result"}],
        ),
        stop(1),
        block(2, type="compaction", content=None),
        delta(2, type="compaction_delta", content="Earlier: "),
        delta(2, type="compaction_delta", content="we talked."),
        stop(2),
        mdelta(),
        MSTOP,
    )
    assert not any(e.type.startswith("tool_call") for e in events)
    kept = [e.data for e in events if isinstance(e, ProviderItem)]
    assert kept[0] == {
        "type": "server_tool_use",
        "id": "srv_1",
        "name": "web_search",
        "input": {"query": "llamas"},
    }
    assert kept[1]["type"] == "web_search_tool_result"
    assert kept[2] == {"type": "compaction", "content": "Earlier: we talked."}
    assert events[-1].provider_data is None  # nothing left behind in Finish


def test_duplicate_message_start_for_open_message_is_ignored() -> None:
    events = decode(start(), *text_stream("hi"))
    assert sum(isinstance(e, StreamStart) for e in events) == 1
    check_invariants(events)


def test_spliced_message_start_while_open_is_malformed() -> None:
    body = named_sse(start("msg_a"), block(0, type="text", text=""), start("msg_b"))
    _, error = decode_collect(AnthropicDecoder(), [body])
    assert isinstance(error, MalformedStreamError)


def test_concatenated_messages_continue_one_response() -> None:
    second = text_stream("second")
    second[0] = start("msg_2", usage={"input_tokens": 20, "output_tokens": 1})
    events = decode(*text_stream("first "), *second)
    check_invariants(events)
    resp = accumulate(events)
    assert resp.text == "first second"
    assert resp.usage == Usage(input_tokens=30, output_tokens=10)  # two messages, two bills
    assert resp.provider_data == {"anthropic": {"message_ids": ["msg_1", "msg_2"]}}


def test_content_given_in_message_start_is_decoded() -> None:
    msg = start(
        content=[
            {
                "type": "code_execution_tool_result",
                "tool_use_id": "srv",
                "content": {"stdout": "4\n"},
            },
            {"type": "tool_use", "id": "toolu_x", "name": "lookup", "input": {"id": 3}},
        ],
        stop_reason="tool_use",
    )
    events = decode(msg, MSTOP)
    check_invariants(events)
    resp = accumulate(events)
    assert [(c.id, c.arguments) for c in resp.tool_calls] == [("toolu_x", {"id": 3})]
    assert resp.finish_reason == "tool_calls"
    raw = resp.message.content[0]
    assert isinstance(raw, RawPart) and raw.data["type"] == "code_execution_tool_result"


def test_message_stop_closes_blocks_left_open() -> None:
    events = decode(
        start(),
        block(0, type="tool_use", id="t", name="f", input={}),
        delta(0, type="input_json_delta", partial_json="{}"),
        mdelta("tool_use"),
        MSTOP,
    )
    check_invariants(events)


def test_block_start_after_message_stop_is_malformed_not_a_call_left_open() -> None:
    tool = block(0, type="tool_use", id="toolu_1", name="f", input={})
    events, error = decode_collect(
        AnthropicDecoder(), [named_sse(start(), tool, stop(0), mdelta("tool_use"), MSTOP, tool)]
    )
    assert isinstance(error, MalformedStreamError)
    check_invariants(events, complete=False)  # the call before came whole; no Finish
    assert [type(e) for e in events] == [StreamStart, ToolCallStart, ToolCallEnd]


def test_stray_deltas_and_stops_after_message_stop_are_skipped() -> None:
    events = decode(*text_stream("hi"), delta(0, type="text_delta", text="late"), stop(0), PING)
    check_invariants(events)
    assert accumulate(events).text == "hi"


def test_message_after_message_stop_may_still_open_blocks() -> None:
    second = [
        start("msg_2"),
        block(0, type="tool_use", id="toolu_2", name="f", input={}),
        delta(0, type="input_json_delta", partial_json='{"a": 1}'),
        stop(0),
        mdelta("tool_use"),
        MSTOP,
    ]
    events = decode(*text_stream("first"), *second)
    check_invariants(events)
    resp = accumulate(events)
    assert [(c.id, c.arguments) for c in resp.tool_calls] == [("toolu_2", {"a": 1})]
    assert resp.finish_reason == "tool_calls"


_STREAM = named_sse(
    start(),
    PING,
    block(0, type="thinking", thinking=""),
    delta(0, type="thinking_delta", thinking="ünïcode ✓ "),
    delta(0, type="signature_delta", signature="c2ln"),
    stop(0),
    block(1, type="text", text=""),
    delta(1, type="text_delta", text="naïve – “quotes” 🚀"),
    stop(1),
    block(2, type="tool_use", id="t", name="f", input={}),
    delta(2, type="input_json_delta", partial_json='{"k": "\\u00e9'),
    delta(2, type="input_json_delta", partial_json='"}'),
    stop(2),
    mdelta("tool_use"),
    MSTOP,
)


def test_split_anywhere_gives_same_events() -> None:
    assert_split_invariant(AnthropicDecoder, _STREAM)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(_STREAM)), max_size=12))
def test_random_multi_splits_give_same_events(cuts: list[int]) -> None:
    points = sorted(set(cuts))
    chunks = [_STREAM[a:b] for a, b in zip([0, *points], [*points, len(_STREAM)], strict=True)]
    assert decode_body(AnthropicDecoder(), chunks) == decode_body(AnthropicDecoder(), [_STREAM])


# -- blocks whose deltas come with the next index (after server-tool results) ---------------

_SHIFTED = [
    start(),
    block(0, type="server_tool_use", id="srvtoolu_1", name="bash_code_execution", input={}),
    delta(0, type="input_json_delta", partial_json='{"command": "ls"}'),
    stop(0),
    block(1, type="bash_code_execution_tool_result", tool_use_id="srvtoolu_1", content={}),
    stop(1),
    block(1, type="text", text=""),  # starts with the result's index ...
    delta(2, type="text_delta", text="Two "),  # ... while its deltas and stop use the next
    delta(2, type="text_delta", text="files."),
    stop(2),
    block(2, type="server_tool_use", id="srvtoolu_2", name="bash_code_execution", input={}),
    delta(3, type="input_json_delta", partial_json='{"command": "pwd"}'),
    stop(3),
    mdelta(),
    MSTOP,
]


def test_blocks_addressed_by_the_next_index_are_read_by_position_with_a_warning() -> None:
    events = decode(*_SHIFTED)
    check_invariants(events)
    response = accumulate(events, provider="anthropic")
    assert response.text == "Two files."  # was dropped: deltas for an index no block had
    items = [p.data for p in response.message.content if isinstance(p, RawPart)]
    assert [i.get("input") for i in items if i["type"] == "server_tool_use"] == [
        {"command": "ls"},
        {"command": "pwd"},  # the server tool input is kept too
    ]
    finish = events[-1]
    assert isinstance(finish, Finish) and finish.provider_data is not None
    warnings = finish.provider_data["anthropic"]["warnings"]
    assert warnings[0].startswith("content block started with index 1 was addressed as 2")
    assert len(warnings) == 2


@given(st.lists(st.integers(min_value=0, max_value=len(named_sse(*_SHIFTED))), max_size=12))
def test_recovered_blocks_decode_the_same_split_anywhere(cuts: list[int]) -> None:
    body = named_sse(*_SHIFTED)
    points = sorted(set(cuts))
    chunks = [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)]
    assert decode_body(AnthropicDecoder(), chunks) == decode_body(AnthropicDecoder(), [body])


def test_a_delta_for_a_stopped_block_is_still_skipped() -> None:
    events = decode(
        start(),
        block(0, type="text", text=""),
        delta(0, type="text_delta", text="a"),
        stop(0),
        block(1, type="text", text=""),
        delta(0, type="text_delta", text="late"),  # block 0 is closed: not block 1's text
        delta(1, type="text_delta", text="b"),
        stop(1),
        mdelta(),
        MSTOP,
    )
    assert accumulate(events, provider="anthropic").text == "ab"
