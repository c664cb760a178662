"""The tool-call ledger (``llmbridge/tool_calls.py``) as a decoder drives it: the events an app
sees for each rule of its docstring (ids, positions, held text, one end, final text, errors)."""

from __future__ import annotations

from typing import Any

import pytest

from llmbridge.events import StreamEvent, ToolCallChunk, ToolCallEnd, ToolCallStart
from llmbridge.tool_calls import (
    GENERATED_ID,
    UNNAMED,
    ToolCallLedger,
    arguments_text,
    parse_arguments,
)


def _ended(out: list[StreamEvent]) -> ToolCallEnd:
    ends = [e for e in out if isinstance(e, ToolCallEnd)]
    assert len(ends) == 1, out
    return ends[0]


def test_a_named_call_streams_start_chunks_and_one_end() -> None:
    ledger, out = ToolCallLedger(), []
    call = ledger.open("c1", "get_weather", out)
    ledger.add(call, '{"city":', out)
    ledger.add(call, "", out)  # empty pieces are no chunks
    ledger.add(call, ' "Paris"}', out)
    ledger.end(call, out)
    ledger.end(call, out, final='{"city": "Paris", "x": 1}')  # a later end adds nothing
    ledger.add(call, "more", out)  # nor text after the end
    assert out == [
        ToolCallStart("c1", "get_weather", 0),
        ToolCallChunk("c1", 0, '{"city":'),
        ToolCallChunk("c1", 0, ' "Paris"}'),
        ToolCallEnd("c1", 0, "get_weather", {"city": "Paris"}, '{"city": "Paris"}'),
    ]


def test_text_before_the_name_is_held_and_sent_as_one_chunk_after_the_start() -> None:
    ledger, out = ToolCallLedger(), []
    call = ledger.open("c1", None, out)
    ledger.add(call, '{"a"', out)
    ledger.add(call, ": 1}", out)
    assert out == []
    ledger.name(call, "f", out)
    ledger.name(call, "g", out)  # named once
    ledger.add(call, " ", out)
    assert out == [ToolCallStart("c1", "f", 0), ToolCallChunk("c1", 0, '{"a": 1}'),
                   ToolCallChunk("c1", 0, " ")]  # fmt: skip
    ledger.end(call, out)
    assert _ended(out) == ToolCallEnd("c1", 0, "f", {"a": 1}, '{"a": 1} ')


def test_a_call_named_only_at_its_end_starts_there_with_its_held_text() -> None:
    ledger, out = ToolCallLedger(), []
    call = ledger.open("c1", None, out)
    ledger.add(call, "{}", out)
    ledger.end(call, out, name="f")
    assert out == [ToolCallStart("c1", "f", 0), ToolCallChunk("c1", 0, "{}"),
                   ToolCallEnd("c1", 0, "f", {}, "{}")]  # fmt: skip


def test_a_call_never_named_ends_with_an_empty_name_and_says_so() -> None:
    ledger, out = ToolCallLedger(), []
    ledger.end(ledger.open("c1", None, out), out)
    assert out == [ToolCallStart("c1", "", 0), ToolCallEnd("c1", 0, "", {}, "", UNNAMED)]
    out = []
    ledger.end(ledger.open("c2", None, out), out, error="cut off")
    assert _ended(out).error == "cut off"  # the caller's reason first


def test_a_call_started_with_an_empty_name_takes_the_name_its_end_gives() -> None:
    ledger, out = ToolCallLedger(), []
    call = ledger.open("c1", "", out)
    assert out == [ToolCallStart("c1", "", 0)]
    ledger.end(call, out, name="f")
    assert _ended(out) == ToolCallEnd("c1", 0, "f", {}, "")
    out = []
    named = ledger.open("c2", "g", out)
    ledger.end(named, out, name="other")  # a name it has is kept
    assert _ended(out).name == "g"


def test_ids_positions_and_generated_ids() -> None:
    ledger, out = ToolCallLedger(id_prefix="toolu_"), []
    calls = [ledger.open(i, "f", out) for i in ("a", None, "a", None)]
    assert [c.id for c in calls] == ["a", "toolu_1", "a_2", "toolu_3"]
    assert [c.index for c in calls] == [0, 1, 2, 3]
    assert "a_2" in ledger and "toolu_3" in ledger and "b" not in ledger
    assert (ledger.count, ledger.next_index) == (4, 4)
    ledger.end_all(out)
    ends = [e for e in out if isinstance(e, ToolCallEnd)]
    assert [(e.id, e.index) for e in ends] == [("a", 0), ("toolu_1", 1), ("a_2", 2), ("toolu_3", 3)]
    assert [e.provider_data for e in ends] == [
        None,
        {GENERATED_ID: True},
        None,
        {GENERATED_ID: True},
    ]


def test_a_wrapping_decoder_can_raise_the_next_index() -> None:
    ledger, out = ToolCallLedger(), []
    ledger.next_index = 5
    assert ledger.open(None, "f", out).index == 5
    assert out == [ToolCallStart("call_0", "f", 5)]


def test_end_all_ends_the_open_calls_in_opening_order_once() -> None:
    ledger, out = ToolCallLedger(), []
    first, second, third = (ledger.open(f"c{i}", "f", out) for i in range(3))
    ledger.end(second, out)
    ledger.end_all(out)
    ledger.end_all(out)
    assert [e.id for e in out if isinstance(e, ToolCallEnd)] == ["c1", "c0", "c2"]
    assert first.ended and third.ended


@pytest.mark.parametrize(
    ("streamed", "final", "tail", "raw"),
    [
        ('{"a": ', '{"a": 1}', "1}", '{"a": 1}'),  # the done text extends: its tail is sent
        ('{"a": 1}', '{"a": 1}', None, '{"a": 1}'),  # the same: nothing more
        ('{"a": 1}', '{"b": 2}', None, '{"a": 1}'),  # contradicts: chunks cannot be taken back
        ('{"a": 1}', '{"a"', None, '{"a": 1}'),  # shorter
        ("", "{}", "{}", "{}"),
    ],
)
def test_final_text_adds_only_a_missing_tail(
    streamed: str, final: str, tail: str | None, raw: str
) -> None:
    ledger, out = ToolCallLedger(), []
    call = ledger.open("c", "f", out)
    ledger.add(call, streamed, out)
    ledger.end(call, out, final=final)
    chunks = [e.arguments_delta for e in out if isinstance(e, ToolCallChunk)]
    assert chunks == ([streamed] if streamed else []) + ([tail] if tail else [])
    assert _ended(out).raw_arguments == raw == call.raw_arguments


def test_the_callers_parse_error_and_provider_data_win() -> None:
    ledger, out = ToolCallLedger(), []
    call = ledger.open(None, "f", out, provider_data={"k": 1})
    ledger.add(call, "not json", out)
    ledger.end(call, out, parsed=({"x": 1.0}, None), provider_data={"k": 2, "sig": "s"})
    end = _ended(out)
    assert (end.arguments, end.error) == ({"x": 1.0}, None)
    assert end.provider_data == {GENERATED_ID: True, "k": 2, "sig": "s"}
    out = []
    bare = ledger.open("c", "f", out)
    ledger.end(bare, out, provider_data={"sig": "s"}, error="flagged")
    assert (_ended(out).provider_data, _ended(out).error) == ({"sig": "s"}, "flagged")


def test_unparseable_arguments_end_with_an_error_and_the_raw_text_kept() -> None:
    ledger, out = ToolCallLedger(), []
    call = ledger.open("c", "f", out)
    ledger.add(call, "[1, 2]", out)
    ledger.end(call, out)
    end = _ended(out)
    assert (end.arguments, end.raw_arguments) == ({}, "[1, 2]")
    assert end.error == "tool arguments must be a JSON object, got list"


@pytest.mark.parametrize(
    ("raw", "arguments", "error"),
    [
        ("", {}, None),
        ("  \n", {}, None),
        ('{"a": [1, {"b": null}]}', {"a": [1, {"b": None}]}, None),
        ('"text"', {}, "tool arguments must be a JSON object, got str"),
        ("{", {}, "tool arguments are not valid JSON: "),
    ],
)
def test_parse_arguments(raw: str, arguments: dict[str, Any], error: str | None) -> None:
    got, why = parse_arguments(raw)
    assert got == arguments
    if error is None:
        assert why is None
    else:
        assert why is not None and why.startswith(error) and len(why) > len(error) - 2


def test_arguments_text_is_compact_json_and_exact_for_big_integers() -> None:
    assert arguments_text({"city": "Zürich", "n": [1, 2]}) == '{"city":"Zürich","n":[1,2]}'
    big = {"city": "Zürich", "n": 2**70}
    assert arguments_text(big) == '{"city": "Zürich", "n": 1180591620717411303424}'
    with pytest.raises(ValueError, match="JSON compliant"):
        arguments_text({"x": float("nan"), "n": 2**70})
