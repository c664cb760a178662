"""The Responses decoder at the edges mutation testing found unguarded (tests/MUTATION.md): what
its errors say, terminal events without their usual fields, ``output_text.done`` tails, citations
over several deltas, reasoning parts, and input after the end."""

from __future__ import annotations

import json
from typing import Any

import pytest

from llmbridge.errors import (
    APIError,
    MalformedStreamError,
    RateLimitError,
    ServerError,
    StreamTruncatedError,
)
from llmbridge.events import (
    Citation,
    Finish,
    ProviderItem,
    ReasoningDelta,
    StreamEvent,
    StreamStart,
    TextDelta,
    ToolCallChunk,
    ToolCallEnd,
)
from llmbridge.providers.openai_responses import ResponsesDecoder
from tests.fakes import decode_checked, named_sse
from tests.providers.openai_responses.test_openai_responses_decode import RESP, completed, created

START = StreamStart(response_id="resp_1", model="gpt-5-mini")


def decode(*events: dict[str, Any] | bytes) -> tuple[list[StreamEvent], Any]:
    body = b"".join(e if isinstance(e, bytes) else named_sse(e) for e in events)
    return decode_checked(ResponsesDecoder, body)


def text(delta: str, *, content_index: int = 0) -> dict[str, Any]:
    return {"type": "response.output_text.delta", "output_index": 0, "item_id": "msg_1",
            "content_index": content_index, "delta": delta}  # fmt: skip


def text_done(final: str, *, content_index: int = 0) -> dict[str, Any]:
    return {"type": "response.output_text.done", "output_index": 0, "item_id": "msg_1",
            "content_index": content_index, "text": final}  # fmt: skip


def plain(response: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.completed", "response": response}


# -- what the errors say ------------------------------------------------------------------------


def test_data_that_is_not_json_is_quoted_up_to_120_characters() -> None:
    line = "x" * 119 + "yz" + "w" * 200
    events, error = decode(created(), text("hi"), f"data: {line}\n\n".encode())
    assert events == [START, TextDelta("hi")]
    assert isinstance(error, MalformedStreamError) and error.provider == "openai-responses"
    assert str(error) == (
        f"Responses stream data is not JSON: {line[:120]!r} (provider=openai-responses)"
    )


def test_json_that_is_not_an_object_is_quoted_in_the_error() -> None:
    events, error = decode(created(), b"data: [1, 2]\n\n")
    assert events == [START]
    assert isinstance(error, MalformedStreamError)
    assert str(error) == (
        "Responses stream event is not a JSON object: '[1, 2]' (provider=openai-responses)"
    )


@pytest.mark.parametrize("data", ["", "   ", "\t", "[DONE]"])
def test_blank_data_and_the_done_marker_are_no_events_even_first(data: str) -> None:
    dec = ResponsesDecoder()
    assert dec.feed("", data) == []
    assert dec.feed("", json.dumps(created())) == [START]


def test_an_error_object_without_a_type_is_still_the_providers_error() -> None:
    error_only = {"error": {"code": "rate_limit_exceeded", "message": "Slow down."}}
    events, error = decode(created(), text("par"), error_only)
    assert events == [START, TextDelta("par")]
    assert isinstance(error, RateLimitError) and error.provider == "openai-responses"
    assert error.provider_message == "Slow down."


def test_a_failed_response_without_an_error_says_it_failed() -> None:
    failed = {"type": "response.failed", "response": {**RESP, "status": "failed"}}
    events, error = decode(created(), text("par"), failed)
    assert events == [START, TextDelta("par")]
    assert isinstance(error, APIError) and error.provider == "openai-responses"
    assert error.message == "the response failed"


def test_an_error_event_without_a_message_says_it_was_an_error_event() -> None:
    events, error = decode(created(), {"type": "error", "code": "server_error"})
    assert events == [START]
    assert isinstance(error, ServerError)
    assert error.message == "error event in the response stream"


def test_a_stream_cut_before_its_terminal_event_says_so() -> None:
    events, error = decode(created(), text("cut"))
    assert events == [START, TextDelta("cut")]
    assert isinstance(error, StreamTruncatedError) and error.provider == "openai-responses"
    assert str(error) == (
        "the Responses stream ended before response.completed (provider=openai-responses)"
    )
    with pytest.raises(StreamTruncatedError):
        ResponsesDecoder().close()  # no event at all


# -- start and end ------------------------------------------------------------------------------


def test_a_stream_joined_midway_starts_without_id_and_its_first_delta_is_kept() -> None:
    events, error = decode(text("mid"), text("way"), plain({"status": "completed"}))
    assert error is None
    assert events == [
        StreamStart(),
        TextDelta("mid"),
        TextDelta("way"),
        Finish("stop", "completed"),
    ]


def test_a_resumed_stream_whose_first_event_is_the_text_does_not_repeat_it() -> None:
    content = [{"type": "output_text", "text": "midway", "annotations": []}]
    item = {"type": "message", "id": "msg_1", "role": "assistant", "content": content}
    events, error = decode(text("midway"), text_done("midway"),
                           {"type": "response.output_item.done", "output_index": 0, "item": item},
                           plain({"status": "completed"}))  # fmt: skip
    assert error is None
    assert events == [StreamStart(), TextDelta("midway"), Finish("stop", "completed")]


def test_the_raw_reason_of_a_completed_response_is_its_status_or_completed() -> None:
    events, _ = decode(created(), plain({**RESP, "status": "done-ish"}))
    assert events[-1] == Finish("stop", "done-ish")
    events, _ = decode(created(), plain({"id": "resp_1"}))
    assert events[-1] == Finish("stop", "completed")


def test_an_incomplete_response_without_details_is_other_with_raw_reason_incomplete() -> None:
    events, error = decode(created(), text("a"), {"type": "response.incomplete", "response": RESP})
    assert error is None
    assert events == [START, TextDelta("a"), Finish("other", "incomplete")]
    details = {"type": "response.incomplete", "response": {**RESP, "incomplete_details": {}}}
    events, _ = decode(created(), details)
    assert events[-1] == Finish("other", "incomplete")


def test_events_after_the_terminal_event_are_ignored() -> None:
    events, error = decode(created(), text("a"), completed(), text("late"), completed())
    assert error is None
    assert [e for e in events if isinstance(e, TextDelta)] == [TextDelta("a")]
    dec = ResponsesDecoder()
    dec.feed("", json.dumps(created()))
    dec.feed("", json.dumps(completed()))
    assert dec.feed("", json.dumps(text("late"))) == []
    assert dec.feed("", "not json") == []
    assert dec.close() == []


# -- text ---------------------------------------------------------------------------------------


def test_a_text_done_adds_only_a_tail_that_extends_the_streamed_text() -> None:
    events, _ = decode(created(), text("Hello"), text_done("Hello"), completed())
    assert [e for e in events if isinstance(e, TextDelta)] == [TextDelta("Hello")]
    events, _ = decode(created(), text("He"), text("llo"), text_done("Hello!"), completed())
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["He", "llo", "!"]
    events, _ = decode(created(), text("Hello"), text_done("Hell"), completed())
    assert [e for e in events if isinstance(e, TextDelta)] == [TextDelta("Hello")]
    events, _ = decode(created(), text("Hello"), text_done("Jello, world"), completed())
    assert [e for e in events if isinstance(e, TextDelta)] == [TextDelta("Hello")]


def test_each_text_part_is_compared_with_its_own_deltas() -> None:
    events, _ = decode(created(), text("ab"), text_done("ab"),
                       text("c", content_index=1), text_done("cd", content_index=1),
                       completed())  # fmt: skip
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["ab", "c", "d"]


def _cite(start: int, end: int, url: str = "https://a.example") -> dict[str, Any]:
    note = {"type": "url_citation", "url": url, "title": "A", "start_index": start,
            "end_index": end}  # fmt: skip
    return {"type": "response.output_text.annotation.added", "output_index": 0,
            "item_id": "msg_1", "content_index": 0, "annotation_index": 0,
            "annotation": note}  # fmt: skip


def test_a_citation_reads_its_span_across_every_delta_streamed_so_far() -> None:
    events, error = decode(created(), text("Paris "), text("is "), text("lovely"),
                           _cite(6, 15), text("."), _cite(0, 5, "https://b.example"),
                           completed())  # fmt: skip
    assert error is None
    assert [e for e in events if isinstance(e, Citation)] == [
        Citation("https://a.example", "A", "is lovely"),
        Citation("https://b.example", "A", "Paris"),
    ]


def test_a_citation_before_any_text_has_no_cited_text() -> None:
    events, _ = decode(created(), _cite(0, 3), text("abc"), completed())
    assert events[1] == Citation("https://a.example", "A", None)


# -- reasoning ----------------------------------------------------------------------------------


def _thought(delta: str, item: str = "rs_1", **index: int) -> dict[str, Any]:
    return {"type": "response.reasoning_text.delta", "item_id": item, "delta": delta, **index}


def test_a_reasoning_delta_without_an_index_is_part_zero() -> None:
    events, _ = decode(created(), _thought("a"), _thought("b", content_index=0), _thought("c"),
                       _thought("d", content_index=1), completed())  # fmt: skip
    assert [e for e in events if isinstance(e, ReasoningDelta)] == [
        ReasoningDelta("a"),
        ReasoningDelta("b"),
        ReasoningDelta("c"),
        ReasoningDelta("\n\nd"),
    ]


def test_reasoning_of_two_items_is_not_joined_by_a_part_break() -> None:
    events, _ = decode(created(), _thought("a", "rs_1", content_index=0),
                       _thought("b", "rs_2", content_index=0),
                       _thought("c", "rs_1", content_index=0), completed())  # fmt: skip
    assert [e.text for e in events if isinstance(e, ReasoningDelta)] == ["a", "b", "c"]


@pytest.mark.parametrize("delta", ["", 5, ["a"], {"text": "a"}])
def test_empty_or_non_text_deltas_are_no_events(delta: Any) -> None:
    refusal = {"type": "response.refusal.delta", "output_index": 0, "delta": delta}
    events, _ = decode(created(), {**text(""), "delta": delta}, _thought(delta), refusal,
                       completed())  # fmt: skip
    assert events == [START, events[-1]] and isinstance(events[-1], Finish)
    assert events[-1].provider_data is None


# -- a held compaction item when the stream fails ---------------------------------------------


def _compaction(form: str) -> dict[str, Any]:
    return {"id": "cmp_1", "type": "compaction", "encrypted_content": form}


def test_an_error_event_releases_the_held_compaction_before_it_raises() -> None:
    done = {"type": "response.output_item.done", "output_index": 0, "item": _compaction("D")}
    events, error = decode(created(), done, {"type": "error", "code": "server_error"})
    assert events == [START, ProviderItem(_compaction("D"))]
    assert isinstance(error, ServerError)


def test_a_failed_response_releases_the_compaction_in_the_form_it_carries() -> None:
    done = {"type": "response.output_item.done", "output_index": 0, "item": _compaction("D")}
    response = {**RESP, "status": "failed", "output": [_compaction("F")],
                "error": {"code": "server_error", "message": "boom"}}  # fmt: skip
    events, error = decode(created(), done, {"type": "response.failed", "response": response})
    assert events == [START, ProviderItem(_compaction("F"))]
    assert isinstance(error, ServerError) and error.provider == "openai-responses"


# -- tool calls ---------------------------------------------------------------------------------


def _args(delta: Any) -> dict[str, Any]:
    return {"type": "response.function_call_arguments.delta", "output_index": 1,
            "item_id": "fc_1", "delta": delta}  # fmt: skip


_CALL = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": ""}


def test_a_stream_resumed_inside_a_call_gives_the_call_whole_at_its_done_item() -> None:
    events, error = decode(_args('{"a"'))  # the call started before the resume point
    assert events == [StreamStart()] and isinstance(error, StreamTruncatedError)
    done = {"type": "response.output_item.done", "output_index": 1,
            "item": {**_CALL, "arguments": '{"a": 1}'}}  # fmt: skip
    events, error = decode(_args('{"a"'), _args(": 1}"), done, plain({"status": "completed"}))
    assert error is None
    (end,) = [e for e in events if isinstance(e, ToolCallEnd)]
    assert (end.id, end.arguments) == ("call_1", {"a": 1})
    assert events[-1] == Finish("tool_calls", "completed")


def test_an_argument_delta_that_is_not_text_adds_nothing() -> None:
    added = {"type": "response.output_item.added", "output_index": 1, "item": _CALL}
    done = {"type": "response.output_item.done", "output_index": 1,
            "item": {**_CALL, "arguments": "{}"}}  # fmt: skip
    events, error = decode(
        created(), added, _args(5), _args(["{}"]), _args("{}"), done, completed()
    )
    assert error is None
    chunks = [e.arguments_delta for e in events if isinstance(e, ToolCallChunk)]
    assert chunks == ["{}"]


def _search(execution: str, **more: Any) -> dict[str, Any]:
    item = {"type": "tool_search_call", "id": "tsc_1", "call_id": "call_s1", "status": "completed",
            "arguments": {"query": "rates"}, "execution": execution, **more}  # fmt: skip
    return {"type": "response.output_item.done", "output_index": 0, "item": item}


def test_a_client_tool_search_ends_the_response_as_work_for_the_app() -> None:
    events, _ = decode(created(), _search("client"), completed())
    assert isinstance(events[-1], Finish) and events[-1].reason == "tool_calls"
    events, _ = decode(created(), _search("server"), completed())
    assert isinstance(events[-1], Finish) and events[-1].reason == "stop"


# -- events the decoder skips -------------------------------------------------------------------


def test_an_event_without_a_type_or_error_and_an_unknown_one_with_an_error_are_skipped() -> None:
    unknown = {"type": "response.future_feature", "error": {"code": "server_error"}}
    events, error = decode(created(), {"delta": "x"}, unknown, text("ok"), completed())
    assert error is None
    assert events[:2] == [START, TextDelta("ok")]
