"""The ``<function_call>`` parser at the edges mutation testing found unguarded (tests/MUTATION.md):
what a bad call says, what is held when the stream ends after a call, trailers and arrays."""

from __future__ import annotations

import pytest
from helpers import ends, run, same_everywhere, text_of

from llmbridge.errors import UsageError
from llmbridge.events import TextDelta, ToolCallEnd, ToolCallStart
from llmbridge.prompt_tools import ToolCallParser
from llmbridge.prompt_tools.dialects import FUNCTION_CALL, KIMI, MISTRAL

CALL = '<function_call>{"name": "nope", "arguments": {"a": 1}}</function_call>'


@pytest.mark.parametrize(
    ("declared", "said"), [(("search", "get_weather"), "get_weather, search"), ((), "none")]
)
def test_an_unknown_tool_says_which_tools_were_declared(
    declared: tuple[str, ...], said: str
) -> None:
    (end,) = ends(same_everywhere("Hi " + CALL + " bye", tool_names=declared))
    assert end.name == "nope" and end.arguments == {"a": 1}
    assert end.error == f"unknown tool 'nope' (declared: {said})"
    assert end.provider_data == {"raw_text": CALL}


def test_a_good_call_carries_no_raw_text() -> None:
    (end,) = ends(run(['<function_call>{"name": "noop", "arguments": {}}</function_call>']))
    assert (end.error, end.provider_data) == (None, None)


def test_a_call_with_no_name_is_flagged_with_an_empty_name() -> None:
    events = run(['<function_call>{"arguments": {"a": 1}}</function_call>'])
    (end,) = ends(events)
    assert end.name == "" and end.error is not None
    assert [e.name for e in events if isinstance(e, ToolCallStart)] == [""]


def test_feeding_a_closed_parser_is_a_usage_error() -> None:
    parser = ToolCallParser(tool_names=["noop"])
    parser.close()
    with pytest.raises(UsageError, match=r"^ToolCallParser\.feed\(\) after close\(\)"):
        parser.feed("a <b")


@pytest.mark.parametrize("held", ["  </func", " \n ", "  `"])
def test_what_follows_a_call_when_the_stream_ends_is_text(held: str) -> None:
    """The stream ends after the call's JSON, inside a close marker / whitespace / fence."""
    events = same_everywhere('<function_call>{"name": "noop", "arguments": {}}' + held)
    (end,) = ends(events)
    assert end.error is None and end.raw_arguments == "{}"
    assert text_of(events) == held and isinstance(events[-1], TextDelta)


def test_a_stream_ending_in_a_marker_prefix_gives_the_prefix_as_text() -> None:
    events = same_everywhere("see <function_ca")
    assert events == [TextDelta("see <function_ca")]


KIMI_CALL = (
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.noop:0"
    '<|tool_call_argument_begin|>{"x": 1}<|tool_call_end|>'
)


@pytest.mark.parametrize(
    ("after", "text"),
    [
        (" <|tool_calls_section_end|>done", "done"),  # the trailer is swallowed
        ("\n<|tool_calls_section_end|>", ""),
        ("  hello", "  hello"),  # no trailer: the text after the call is text
        ("  <|tool_calls_sec", "  <|tool_calls_sec"),  # the stream ends in a trailer prefix
        (" <|tool_calls_sex|>", " <|tool_calls_sex|>"),
    ],
)
def test_kimi_trailers(after: str, text: str) -> None:
    events = same_everywhere("Go. " + KIMI_CALL + after, dialects=(KIMI,))
    (end,) = ends(events)
    assert (end.name, end.arguments, end.error) == ("noop", {"x": 1}, None)
    assert text_of(events) == "Go. " + text


@pytest.mark.parametrize("gap", ["", " ", "\n  "])
def test_mistral_arrays_give_one_call_per_object(gap: str) -> None:
    doc = (
        f'[TOOL_CALLS][{{"name": "noop", "arguments": {{}}}},{gap}'
        f'{{"name": "search", "arguments": {{"q": "x"}}}}{gap}] done'
    )
    events = same_everywhere(doc, dialects=(MISTRAL, FUNCTION_CALL))
    got = [(e.name, e.index, e.arguments, e.error) for e in events if isinstance(e, ToolCallEnd)]
    assert got == [("noop", 0, {}, None), ("search", 1, {"q": "x"}, None)]
    assert text_of(events).strip() == "done"


def test_a_mistral_array_cut_off_flags_its_open_call() -> None:
    events = run(['[TOOL_CALLS][{"name": "noop", "arguments": {}}, {"name": "search", "argu'],
                 dialects=(MISTRAL,))  # fmt: skip
    assert [(e.name, e.error is None) for e in ends(events)] == [("noop", True), ("search", False)]


def test_a_word_after_the_open_marker_means_it_was_prose_not_a_call() -> None:
    """Only a fence's language tag (```` ```json ````) may stand between the marker and ``{``."""
    doc = 'I said <function_call> then {"name": "noop", "arguments": {}} ok'
    assert same_everywhere(doc) == [TextDelta(doc)]
