"""Decoder behaviour a user would notice, one failure mode per test (pure, no IO)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmbridge.errors import (
    APIError,
    ContextLengthError,
    LLMBridgeError,
    MalformedStreamError,
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
    ToolCallChunk,
    ToolCallEnd,
    ToolCallStart,
)
from llmbridge.providers.openai_responses import ResponsesDecoder
from llmbridge.response import accumulate
from llmbridge.testing import assert_split_invariant, check_invariants, decode_collect
from tests.fakes import named_sse, sse_body

RESP = {"id": "resp_1", "model": "gpt-5-mini", "status": "in_progress", "output": []}
USAGE = {
    "input_tokens": 50,
    "input_tokens_details": {"cached_tokens": 20},
    "output_tokens": 30,
    "output_tokens_details": {"reasoning_tokens": 12},
    "total_tokens": 80,
}


def created() -> dict[str, Any]:
    return {"type": "response.created", "response": RESP}


def completed(**extra: Any) -> dict[str, Any]:
    return {
        "type": "response.completed",
        "response": {**RESP, "status": "completed", "usage": USAGE, **extra},
    }


def fc_added(idx: int, item_id: str, call_id: str, name: str) -> dict[str, Any]:
    item = {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id,
        "name": name,
        "arguments": "",
    }
    return {"type": "response.output_item.added", "output_index": idx, "item": item}


def fc_delta(idx: int, item_id: str, delta: str) -> dict[str, Any]:
    return {
        "type": "response.function_call_arguments.delta",
        "output_index": idx,
        "item_id": item_id,
        "delta": delta,
    }


def fc_args_done(idx: int, item_id: str, arguments: str) -> dict[str, Any]:
    return {
        "type": "response.function_call_arguments.done",
        "output_index": idx,
        "item_id": item_id,
        "arguments": arguments,
    }


def fc_item_done(idx: int, item_id: str, call_id: str, name: str, arguments: str) -> dict[str, Any]:
    item = {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
    }
    return {"type": "response.output_item.done", "output_index": idx, "item": item}


def decode(body: bytes):  # type: ignore[no-untyped-def]
    """Events and error, after checking the body decodes the same split anywhere."""
    assert_split_invariant(ResponsesDecoder, body)
    return decode_collect(ResponsesDecoder(), [body])


def ends(events: list[Any]) -> list[ToolCallEnd]:
    return [e for e in events if isinstance(e, ToolCallEnd)]


# -- tool-call arguments -------------------------------------------------------------------


def test_arguments_only_in_done_event_are_one_chunk() -> None:
    body = named_sse(
        created(),
        fc_added(0, "fc_1", "call_1", "get_weather"),
        fc_args_done(0, "fc_1", '{"city":"Oslo"}'),
        fc_item_done(0, "fc_1", "call_1", "get_weather", '{"city":"Oslo"}'),
        completed(),
    )
    events, error = decode(body)
    assert error is None
    check_invariants(events)
    chunks = [e.arguments_delta for e in events if isinstance(e, ToolCallChunk)]
    assert chunks == ['{"city":"Oslo"}']
    (end,) = ends(events)
    assert end.arguments == {"city": "Oslo"}
    assert end.id == "call_1" and end.provider_data == {"item_id": "fc_1"}


def test_arguments_both_streamed_and_in_done_are_not_doubled() -> None:
    body = named_sse(
        created(),
        fc_added(0, "fc_1", "call_1", "f"),
        fc_delta(0, "fc_1", '{"a":'),
        fc_delta(0, "fc_1", "1}"),
        fc_args_done(0, "fc_1", '{"a":1}'),
        fc_item_done(0, "fc_1", "call_1", "f", '{"a":1}'),
        completed(),
    )
    events, _ = decode(body)
    check_invariants(events)
    (end,) = ends(events)
    assert end.raw_arguments == '{"a":1}'
    assert sum(isinstance(e, ToolCallChunk) for e in events) == 2


def test_done_arguments_that_extend_the_deltas_add_only_the_tail() -> None:
    body = named_sse(
        created(),
        fc_added(0, "fc_1", "call_1", "f"),
        fc_delta(0, "fc_1", '{"a":'),
        fc_item_done(0, "fc_1", "call_1", "f", '{"a":1}'),
        completed(),
    )
    events, _ = decode(body)
    check_invariants(events)
    chunks = [e.arguments_delta for e in events if isinstance(e, ToolCallChunk)]
    assert chunks == ['{"a":', "1}"]


def test_function_call_seen_only_when_done_still_gives_full_call() -> None:
    """A resumed stream can start after the item was added."""
    body = named_sse(fc_item_done(0, "fc_9", "call_9", "lookup", '{"q":"x"}'), completed())
    events, error = decode(body)
    assert error is None
    check_invariants(events)
    assert isinstance(events[0], StreamStart) and events[0].response_id is None
    assert [type(e) for e in events[1:4]] == [ToolCallStart, ToolCallChunk, ToolCallEnd]
    assert ends(events)[0].arguments == {"q": "x"}


def test_malformed_arguments_flag_the_call_instead_of_crashing() -> None:
    body = named_sse(
        created(),
        fc_added(0, "fc_1", "call_1", "f"),
        fc_delta(0, "fc_1", '{"a": tru'),
        fc_args_done(0, "fc_1", '{"a": tru'),
        completed(),
    )
    events, error = decode(body)
    assert error is None
    (end,) = ends(events)
    assert end.arguments == {} and end.error and end.raw_arguments == '{"a": tru'


def test_parallel_calls_keep_their_own_ids_indexes_and_arguments() -> None:
    body = named_sse(
        created(),
        fc_added(0, "fc_1", "call_1", "a"),
        fc_added(1, "fc_2", "call_2", "b"),
        fc_delta(1, "fc_2", '{"y":2}'),
        fc_delta(0, "fc_1", '{"x":1}'),
        fc_item_done(0, "fc_1", "call_1", "a", '{"x":1}'),
        fc_item_done(1, "fc_2", "call_2", "b", '{"y":2}'),
        completed(),
    )
    events, _ = decode(body)
    check_invariants(events)
    resp = accumulate(events)
    assert [(c.id, c.name, c.arguments) for c in resp.tool_calls] == [
        ("call_1", "a", {"x": 1}),
        ("call_2", "b", {"y": 2}),
    ]
    assert resp.finish_reason == "tool_calls"


def test_item_ids_rotating_mid_stream_are_tolerated() -> None:
    """GitHub Copilot and Azure send a new item id on every event; output_index is stable."""
    body = named_sse(
        {"type": "response.created", "response": {**RESP, "id": "cap-1"}},
        {"type": "response.in_progress", "response": {**RESP, "id": "cap-2"}},
        fc_added(0, "cap-3", "call_1", "f"),
        fc_delta(0, "cap-4", '{"k":'),
        fc_delta(0, "cap-5", '"v"}'),
        fc_args_done(0, "cap-6", '{"k":"v"}'),
        fc_item_done(0, "cap-7", "call_1", "f", '{"k":"v"}'),
        completed(id="cap-8"),
    )
    events, error = decode(body)
    assert error is None
    check_invariants(events)
    assert ends(events)[0].arguments == {"k": "v"}
    assert events[0] == StreamStart(response_id="cap-1", model="gpt-5-mini")


def test_open_calls_are_closed_by_completion() -> None:
    body = named_sse(
        created(), fc_added(0, "fc_1", "call_1", "f"), fc_delta(0, "fc_1", "{}"), completed()
    )
    events, _ = decode(body)
    check_invariants(events)
    assert ends(events)[0].raw_arguments == "{}"


def _one_call_stream() -> list[dict[str, Any]]:
    return [
        created(),
        fc_added(0, "fc_1", "call_1", "f"),
        fc_delta(0, "fc_1", '{"k":'),
        fc_delta(0, "fc_1", '"v"}'),
        fc_args_done(0, "fc_1", '{"k":"v"}'),
        fc_item_done(0, "fc_1", "call_1", "f", '{"k":"v"}'),
        completed(),
    ]


@pytest.mark.parametrize(
    "repeat",
    [
        fc_added(0, "fc_1", "call_1", "f"),  # an exact duplicate
        fc_added(0, "cap-9", "call_rotated", "f"),  # ids rotated (Azure / Copilot): same index
        {**fc_added(0, "fc_1", "call_1", "f"), "output_index": None},  # found by its item id
    ],
)
def test_repeated_output_item_added_for_the_open_call_is_ignored(repeat: dict[str, Any]) -> None:
    stream = _one_call_stream()
    plain, _ = decode(named_sse(*stream))
    events, error = decode(named_sse(*stream[:3], repeat, *stream[3:]))
    assert error is None
    check_invariants(events)
    assert events == plain  # one start, the first id kept, the arguments intact
    assert [(e.id, e.arguments) for e in ends(events)] == [("call_1", {"k": "v"})]


def test_output_item_added_after_its_done_does_not_start_the_call_again() -> None:
    stream = _one_call_stream()
    added, done = stream[1], stream[5]
    body = named_sse(stream[0], done, *stream[2:5], added, stream[6])
    events, error = decode(body)
    assert error is None
    check_invariants(events)
    assert sum(isinstance(e, ToolCallStart) for e in events) == 1
    assert [(e.id, e.arguments) for e in ends(events)] == [("call_1", {"k": "v"})]
    assert accumulate(events).finish_reason == "tool_calls"


def test_late_duplicate_added_after_the_call_ended_is_ignored() -> None:
    stream = _one_call_stream()
    events, error = decode(named_sse(*stream[:6], stream[1], stream[6]))
    assert error is None
    check_invariants(events)
    assert sum(isinstance(e, ToolCallStart) for e in events) == 1


def test_another_item_reusing_a_call_id_is_malformed_after_earlier_events() -> None:
    stream = _one_call_stream()
    events, error = decode(named_sse(*stream[:6], fc_added(1, "fc_2", "call_1", "g"), stream[6]))
    assert isinstance(error, MalformedStreamError)
    check_invariants(events, complete=False)
    assert [e.id for e in ends(events)] == ["call_1"]  # the first call arrived whole
    assert not any(isinstance(e, Finish) for e in events)


def test_decoder_refuses_input_after_a_malformed_event() -> None:
    decoder = ResponsesDecoder()
    for ev in _one_call_stream()[:6]:
        decoder.feed(ev["type"], json.dumps(ev))
    clash = fc_added(1, "fc_2", "call_1", "g")
    with pytest.raises(MalformedStreamError):
        decoder.feed(clash["type"], json.dumps(clash))
    with pytest.raises(MalformedStreamError):
        decoder.feed("response.completed", json.dumps(completed()))
    with pytest.raises(MalformedStreamError):
        decoder.close()


def test_calls_without_any_id_get_distinct_generated_ids() -> None:
    bare = {"type": "function_call", "name": "f", "arguments": "{}"}
    body = named_sse(
        created(),
        fc_added(0, "fc_1", "call_1", "g"),  # a provider id equal to the next generated one
        {"type": "response.output_item.added", "output_index": 1, "item": {**bare, "id": ""}},
        {"type": "response.output_item.added", "output_index": 2, "item": bare},
        completed(),
    )
    events, error = decode(body)
    assert error is None
    check_invariants(events)
    got = ends(events)
    assert [e.id for e in got] == ["call_1", "call_2", "call_3"]  # generated ids skip "call_1"
    assert [(e.provider_data or {}).get("generated_id") for e in got] == [None, True, True]


# -- text, reasoning, refusal, built-in tools ------------------------------------------------


def test_text_only_in_done_item_is_not_lost_and_not_doubled() -> None:
    item = {"type": "message", "id": "m", "role": "assistant",
            "content": [{"type": "output_text", "text": "hi there", "annotations": []}]}  # fmt: skip
    body = named_sse(
        created(),
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        completed(),
    )
    events, _ = decode(body)
    assert accumulate(events).text == "hi there"
    body = named_sse(
        created(),
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "content_index": 0,
            "item_id": "m",
            "delta": "hi",
        },
        {
            "type": "response.output_text.done",
            "output_index": 0,
            "content_index": 0,
            "item_id": "m",
            "text": "hi there",
        },
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        completed(),
    )
    events, _ = decode(body)
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["hi", " there"]


def test_encrypted_reasoning_is_kept_for_the_round_trip() -> None:
    rs = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA-secret"}
    body = named_sse(
        created(),
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**rs, "encrypted_content": None},
        },
        {"type": "response.output_item.done", "output_index": 0, "item": rs},
        completed(),
    )
    events, _ = decode(body)
    assert (
        ReasoningDelta("", provider_data={"id": "rs_1", "encrypted_content": "gAAAA-secret"})
        in events
    )
    (part,) = [
        p
        for p in accumulate(events, provider="openai-responses").message.content
        if p.type == "reasoning"
    ]
    assert part.provider == "openai-responses" and part.provider_data == {
        "id": "rs_1",
        "encrypted_content": "gAAAA-secret",
    }


def test_reasoning_summary_parts_are_separated_and_raw_reasoning_text_is_reasoning() -> None:
    def delta(kind: str, idx: int, text: str) -> dict[str, Any]:
        key = "summary_index" if "summary" in kind else "content_index"
        return {"type": kind, "output_index": 0, "item_id": "rs", key: idx, "delta": text}

    s = "response.reasoning_summary_text.delta"
    body = sse_body(created(), delta(s, 0, "One."), delta(s, 1, "Two."), completed())
    events, _ = decode(body)
    assert accumulate(events).reasoning == "One.\n\nTwo."
    r = "response.reasoning_text.delta"
    events, _ = decode(named_sse(created(), delta(r, 0, "think"), delta(r, 0, "ing"), completed()))
    assert accumulate(events).reasoning == "thinking"


def test_refusal_is_surfaced_as_text_and_provider_data() -> None:
    ev = {"type": "response.refusal.delta", "output_index": 0, "item_id": "m", "content_index": 0}
    body = named_sse(created(), {**ev, "delta": "I can't"}, {**ev, "delta": " help."}, completed())
    events, _ = decode(body)
    assert accumulate(events).text == "I can't help."
    assert isinstance(events[-1], Finish) and events[-1].provider_data == {
        "refusal": "I can't help."
    }


def test_builtin_tool_items_are_provider_items_not_tool_calls() -> None:
    items = [
        {
            "type": "web_search_call",
            "id": "ws_1",
            "status": "completed",
            "action": {"type": "search"},
        },
        {"type": "mcp_call", "id": "mcp_1", "name": "roll", "arguments": "{}", "output": "4"},
        {"type": "code_interpreter_call", "id": "ci_1", "code": "print(1)", "outputs": []},
    ]
    body = named_sse(
        created(),
        *(
            {"type": "response.output_item.added", "output_index": i, "item": it}
            for i, it in enumerate(items)
        ),
        {
            "type": "response.mcp_call_arguments.delta",
            "output_index": 1,
            "item_id": "mcp_1",
            "delta": "{}",
        },
        *(
            {"type": "response.output_item.done", "output_index": i, "item": it}
            for i, it in enumerate(items)
        ),
        completed(),
    )
    events, _ = decode(body)
    assert not any(isinstance(e, (ToolCallStart, ToolCallEnd)) for e in events)
    finish = events[-1]
    assert isinstance(finish, Finish) and finish.reason == "stop"
    assert finish.provider_data is None
    assert [e.data for e in events if isinstance(e, ProviderItem)] == items


# -- lifecycle, finish reasons, usage ------------------------------------------------------------


def test_usage_follows_the_convention() -> None:
    events, _ = decode(named_sse(created(), completed()))
    finish = events[-1]
    assert isinstance(finish, Finish) and finish.usage is not None
    u = finish.usage
    assert (u.input_tokens, u.cached_input_tokens, u.output_tokens, u.reasoning_tokens) == (
        50,
        20,
        30,
        12,
    )


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("max_output_tokens", "length"),
        ("content_filter", "content_filter"),
        ("server_timeout", "other"),
    ],
)
def test_incomplete_reasons(reason: str, expected: str) -> None:
    resp = {
        **RESP,
        "status": "incomplete",
        "incomplete_details": {"reason": reason},
        "usage": USAGE,
    }
    events, error = decode(named_sse(created(), {"type": "response.incomplete", "response": resp}))
    assert error is None
    finish = events[-1]
    assert isinstance(finish, Finish)
    assert (finish.reason, finish.raw_reason) == (expected, reason)


def test_background_stream_starts_with_queued_and_done_marker_is_ignored() -> None:
    queued = {"type": "response.queued", "response": {**RESP, "id": "resp_bg", "status": "queued"}}
    body = sse_body(queued, created(), completed()) + b": keep-alive\n\ndata: [DONE]\n\n"
    events, error = decode(body)
    assert error is None
    assert [type(e) for e in events] == [StreamStart, Finish]
    assert isinstance(events[0], StreamStart) and events[0].response_id == "resp_bg"


def test_the_encoder_reports_its_warnings_and_the_decoder_none() -> None:
    from llmbridge import ChatMessage, ChatRequest
    from llmbridge.providers import ProviderConfig, create_provider

    provider = create_provider("openai-responses", ProviderConfig.from_mapping({"api_key": "k"}))
    request = ChatRequest(model="gpt-5", messages=[ChatMessage.user("hi")], stop=["x"])
    prepared = provider.prepare(request)  # type: ignore[attr-defined]
    assert prepared.warnings == ("stop sequences are not supported by the Responses API; dropped",)
    events, _ = decode(named_sse(created(), completed()))  # the attempt loop stamps them
    assert isinstance(events[0], StreamStart) and events[0].warnings == []


def test_unknown_events_and_odd_shapes_are_skipped() -> None:
    body = named_sse(
        created(),
        {"type": "response.future_feature.delta", "delta": "?"},
        {"type": "response.output_item.added", "item": None},
        {"type": "response.output_item.done", "item": "weird"},
        {"type": "response.output_text.delta", "delta": 5},
        {"type": "response.function_call_arguments.delta", "item_id": "nope", "delta": "x"},
        {"type": 7},
        {"type": ["response.output_text.delta"]},
        {"type": {"nested": True}},
        {"type": "response.completed", "response": None},
    )
    events, error = decode(body)
    assert error is None
    check_invariants(events)
    assert isinstance(events[-1], Finish) and events[-1].usage is None


# -- errors ----------------------------------------------------------------------------------------


def test_error_event_raises_typed_error_after_yielding_prior_events() -> None:
    text = {
        "type": "response.output_text.delta",
        "output_index": 0,
        "item_id": "m",
        "delta": "partial",
    }
    err = {"type": "error", "code": "rate_limit_exceeded", "message": "Slow down.", "param": None}
    failed = {
        "type": "response.failed",
        "response": {**RESP, "status": "failed", "error": {"code": "server_error", "message": "x"}},
    }
    events, error = decode(named_sse(created(), text, err, failed))
    assert [type(e) for e in events] == [StreamStart, TextDelta]
    assert isinstance(error, RateLimitError)
    assert error.provider == "openai-responses" and error.provider_message == "Slow down."


def test_response_failed_alone_raises_with_its_error() -> None:
    failed = {
        "type": "response.failed",
        "response": {
            **RESP,
            "status": "failed",
            "error": {"code": "server_error", "message": "boom"},
        },
    }
    _, error = decode(named_sse(created(), failed))
    assert isinstance(error, ServerError) and error.message == "boom"
    ctx = {"type": "error", "code": "context_length_exceeded", "message": "too long"}
    _, error = decode(named_sse(ctx))
    assert isinstance(error, ContextLengthError)


def test_decoder_refuses_input_after_an_error() -> None:
    dec = ResponsesDecoder()
    dec.feed("", json.dumps(created()))
    with pytest.raises(APIError):
        dec.feed("error", json.dumps({"type": "error", "code": "server_error", "message": "x"}))
    with pytest.raises(APIError):
        dec.feed("", json.dumps(completed()))
    with pytest.raises(APIError):
        dec.close()


def test_error_as_first_event_keeps_stream_start_then_raises() -> None:
    """Events completed by the same feed call are returned first; the error comes next."""
    dec = ResponsesDecoder()
    out = dec.feed("error", json.dumps({"type": "error", "code": "server_error", "message": "x"}))
    assert [type(e) for e in out] == [StreamStart]
    with pytest.raises(ServerError):
        dec.close()


def test_missing_terminal_event_is_truncation() -> None:
    text = {"type": "response.output_text.delta", "output_index": 0, "delta": "cut"}
    events, error = decode(named_sse(created(), text))
    assert isinstance(error, StreamTruncatedError)
    assert accumulate(events).text == "cut"


@pytest.mark.parametrize("data", ["not json", "[1, 2]", '"str"'])
def test_non_object_data_is_malformed(data: str) -> None:
    with pytest.raises(MalformedStreamError):
        ResponsesDecoder().feed("", data)


_TYPES = [
    "response.created", "response.output_item.added", "response.output_item.done",
    "response.output_text.delta", "response.output_text.done", "response.refusal.delta",
    "response.reasoning_summary_text.delta", "response.reasoning_text.delta",
    "response.function_call_arguments.delta", "response.function_call_arguments.done",
    "response.completed", "response.incomplete", "response.failed", "error", "x",
]  # fmt: skip
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 3) | st.sampled_from(["", "{}", "fc_1", "function_call", "reasoning", "message"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["type", "id", "call_id", "item", "text", "arguments", "name", "summary", "content"]), inner, max_size=4),
    max_leaves=8,
)  # fmt: skip
_EVENT = st.fixed_dictionaries(
    {"type": st.sampled_from(_TYPES) | _JSON},
    optional={k: _JSON for k in ("item", "delta", "output_index", "item_id", "response", "arguments", "text", "summary_index")},
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_EVENT, max_size=8))
def test_any_event_shapes_raise_only_llmbridge_errors(events: list[dict[str, Any]]) -> None:
    dec = ResponsesDecoder()
    out = []
    try:
        for ev in events:
            out.extend(dec.feed("", json.dumps(ev)))
        out.extend(dec.close())
    except LLMBridgeError:
        return
    check_invariants(out)


def test_refusal_only_in_done_item_is_not_lost() -> None:
    item = {
        "type": "message",
        "id": "m",
        "role": "assistant",
        "content": [{"type": "refusal", "refusal": "No."}],
    }
    events, _ = decode(
        named_sse(
            created(),
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            completed(),
        )
    )
    assert accumulate(events).text == "No."
    assert isinstance(events[-1], Finish) and events[-1].provider_data == {"refusal": "No."}
