"""The Cohere decoder at the edges mutation testing found unguarded (tests/MUTATION.md): tool-call
and citation events of odd shapes (a flagged call or a skipped field, never a broken stream), and
what the error of a delta before its call says."""

from __future__ import annotations

from typing import Any

import pytest

import llmbridge as lb
from llmbridge.providers.cohere import CohereDecoder
from tests.fakes import decode_checked
from tests.providers.cohere.test_cohere_decode import START, _end, _ev, _m


def decode(body: bytes, provider: str = "cohere") -> tuple[list[lb.StreamEvent], Any]:
    return decode_checked(lambda: CohereDecoder(provider=provider), body)


def _start(index: int, call: Any) -> bytes:
    return _m("tool-call-start", {"tool_calls": call}, index=index)


def _delta(index: int, call: Any) -> bytes:
    return _m("tool-call-delta", {"tool_calls": call}, index=index)


F = {"id": "f_1", "type": "function", "function": {"name": "f", "arguments": ""}}


def test_a_delta_before_its_call_names_the_index_and_the_provider() -> None:
    body = START + _delta(5, {"function": {"arguments": "{}"}}) + _end("TOOL_CALL")
    events, error = decode(body, provider="cohere-eu")
    assert [type(e) for e in events] == [lb.StreamStart]
    assert isinstance(error, lb.MalformedStreamError) and error.provider == "cohere-eu"
    assert str(error) == "tool-call-delta for index 5 before its start (provider=cohere-eu)"


def test_an_empty_or_shapeless_delta_for_an_unknown_index_is_skipped() -> None:
    for call in ({"function": {"arguments": ""}}, {"function": None}, None):
        events, error = decode(START + _delta(3, call) + _end("COMPLETE"))
        assert error is None and [type(e) for e in events] == [lb.StreamStart, lb.Finish]


def test_shapeless_deltas_of_an_open_call_add_nothing() -> None:
    body = (
        START
        + _start(0, F)
        + _delta(0, "not an object")
        + _delta(0, {"function": "not an object"})
        + _delta(0, {"function": {"arguments": '{"a": 1}'}})
        + _ev({"type": "tool-call-end", "index": 0})
        + _end("TOOL_CALL")
    )
    events, error = decode(body)
    assert error is None
    (end,) = [e for e in events if isinstance(e, lb.ToolCallEnd)]
    assert (end.id, end.name, end.raw_arguments, end.arguments) == (
        "f_1",
        "f",
        '{"a": 1}',
        {"a": 1},
    )


def test_a_call_start_of_an_odd_shape_is_a_flagged_call_not_a_broken_stream() -> None:
    for call in ("odd", {"id": "f_1", "function": "odd"}):
        body = START + _start(0, call) + _m("content-delta", {"content": {"text": "ok"}})
        events, error = decode(body + _end("TOOL_CALL"))
        assert error is None
        (end,) = [e for e in events if isinstance(e, lb.ToolCallEnd)]
        assert end.name == "" and end.error == "the provider never named this tool call"
        assert lb.TextDelta("ok") in events


def _cite(citation: Any) -> bytes:
    return _m("citation-start", {"citations": citation}, index=0)


def _citations(events: list[lb.StreamEvent]) -> list[tuple[str, str | None, str | None]]:
    return [(c.url, c.title, c.cited_text) for c in events if isinstance(c, lb.Citation)]


def test_sources_of_odd_shapes_are_skipped_and_the_rest_kept() -> None:
    sources = [
        "not a source",
        {"type": "document", "id": "doc:1", "document": {"url": "https://y.test", "title": 7}},
        {"type": "tool", "tool_output": {}},
    ]
    citation = {"start": 0, "end": 2, "text": ["no"], "sources": sources}
    events, error = decode(START + _cite(citation) + _end("COMPLETE"))
    assert error is None
    assert _citations(events) == [("https://y.test", None, None), ("", None, None)]
    finish = events[-1]
    assert isinstance(finish, lb.Finish)
    assert finish.provider_data == {"cohere": {"citations": [citation]}}


def test_a_citation_without_a_list_of_sources_is_kept_but_cites_nothing() -> None:
    citation = {"start": 0, "end": 2, "text": "hi", "sources": None}
    events, error = decode(START + _cite(citation) + _cite("odd") + _end("COMPLETE"))
    assert error is None and _citations(events) == []
    finish = events[-1]
    assert isinstance(finish, lb.Finish)
    assert finish.provider_data == {"cohere": {"citations": [citation]}}


def test_arguments_given_with_the_call_start_are_its_arguments() -> None:
    start = _start(0, {**F, "function": {"name": "f", "arguments": '{"a": 1}'}})
    events, error = decode(
        START + start + _ev({"type": "tool-call-end", "index": 0}) + _end("TOOL_CALL")
    )
    assert error is None
    (end,) = [e for e in events if isinstance(e, lb.ToolCallEnd)]
    assert (end.id, end.name, end.arguments) == ("f_1", "f", {"a": 1})


def test_a_call_id_or_name_that_is_not_a_string_is_not_used() -> None:
    events, error = decode(
        START + _start(0, {"id": 7, "function": {"name": 8}}) + _end("TOOL_CALL")
    )
    assert error is None
    (start,) = [e for e in events if isinstance(e, lb.ToolCallStart)]
    assert (start.id, start.name) == ("call_0", "")


def test_events_without_a_message_and_plans_of_odd_shapes_add_nothing() -> None:
    body = (
        START
        + _ev({"type": "content-delta", "index": 0, "delta": None})
        + _ev({"type": "content-delta", "index": 0, "delta": {"message": "odd"}})
        + _m("tool-plan-delta", {"tool_plan": ""})
        + _m("tool-plan-delta", {"tool_plan": 5})
        + _end("COMPLETE")
    )
    events, error = decode(body)
    assert error is None
    assert events == [lb.StreamStart(response_id="r1"), lb.Finish("stop", "COMPLETE")]


def test_a_message_end_of_an_odd_shape_is_a_finish_with_no_reason() -> None:
    for end in ({"type": "message-end", "delta": "odd"}, {"type": "message-end"}):
        events, error = decode(START + _ev(end))
        assert error is None and events[-1] == lb.Finish("other", None)
    end = {"type": "message-end", "delta": {"finish_reason": 3}}
    events, _ = decode(START + _ev(end))
    assert events[-1] == lb.Finish("other", None)


def test_after_a_cut_stream_the_decoder_refuses_input_and_a_second_close_adds_nothing() -> None:
    dec = CohereDecoder(provider="cohere-eu")
    dec.feed("message-start", '{"type": "message-start", "id": "r1"}')
    with pytest.raises(lb.StreamTruncatedError) as cut:
        dec.close()
    assert str(cut.value) == "the stream ended before message-end (provider=cohere-eu)"
    assert dec.close() == []
    with pytest.raises(lb.MalformedStreamError, match="already failed"):
        dec.feed("content-delta", '{"type": "content-delta"}')


def test_a_finished_stream_closes_once() -> None:
    dec = CohereDecoder()
    for event in (START + _end("COMPLETE")).split(b"\n\n")[:-1]:
        name, data = event.split(b"\n")
        dec.feed(name[7:].decode(), data[6:].decode())
    assert dec.close() == [lb.Finish("stop", "COMPLETE")]
    assert dec.close() == []


def test_only_a_string_id_of_message_start_is_the_response_id() -> None:
    events, _ = decode(_ev({"type": "message-start", "id": 7}) + _end("COMPLETE"))
    assert events[0] == lb.StreamStart()
    joined = _ev({"type": "content-delta", "id": "x", "delta": {"message": {}}})
    events, _ = decode(joined + _end("COMPLETE"))  # joined without its message-start
    assert events[0] == lb.StreamStart()


def test_what_the_errors_of_unreadable_data_say() -> None:
    line = "{" + "x" * 200
    _, error = decode(START + f"event: content-delta\ndata: {line}\n\n".encode())
    assert isinstance(error, lb.MalformedStreamError) and str(error) == (
        f"event 'content-delta' carries non-JSON data: {line[:120]!r} (provider=cohere)"
    )
    line = "[" + "1, " * 100 + "1]"
    _, error = decode(START + f"event: content-delta\ndata: {line}\n\n".encode())
    assert isinstance(error, lb.MalformedStreamError) and str(error) == (
        f"event 'content-delta' is not a JSON object: {line[:120]!r} (provider=cohere)"
    )
    events, error = decode(START + _start([0], F))  # an index that cannot key a call
    assert [type(e) for e in events] == [lb.StreamStart]
    assert isinstance(error, lb.MalformedStreamError) and str(error) == (
        "unreadable 'tool-call-start' event: TypeError: unhashable type: 'list' (provider=cohere)"
    )


def test_an_unnamed_event_whose_type_is_not_a_string_is_skipped() -> None:
    odd = (
        b"data: " + b'{"type": ["content-delta"]}' + b"\n\ndata: " + b'{"type": {"a": 1}}' + b"\n\n"
    )
    events, error = decode(START + odd + _end("COMPLETE"))
    assert error is None and [type(e) for e in events] == [lb.StreamStart, lb.Finish]


def test_a_call_that_starts_after_message_end_is_ended_at_close() -> None:
    events, error = decode(START + _end("TOOL_CALL") + _start(0, F))
    assert error is None
    assert [type(e) for e in events] == [
        lb.StreamStart, lb.ToolCallStart, lb.ToolCallEnd, lb.Finish
    ]  # fmt: skip
