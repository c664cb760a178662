"""Rescue of tool markup leaked as text: every dialect's wire text, split everywhere.

The documents are written exactly as the chat templates (and the servers' own tool parsers)
spell them: Mistral v3 ``[TOOL_CALLS][{...}]`` and v11 ``[TOOL_CALLS]NAME[ARGS]{...}``, Llama
3.1/3.2 ``<|python_tag|>{"name", "parameters"}<|eom_id|>``, Hermes/Qwen ``<tool_call>``, Kimi K2
``<|tool_calls_section_begin|>...``, gpt-oss Harmony ``<|channel|>commentary to=functions.NAME
<|constrain|>json<|message|>{...}<|call|>``. Text that merely mentions a marker stays text.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers import ends, same_everywhere, text_of

from llmbridge.errors import UsageError
from llmbridge.prompt_tools import FUNCTION_CALL, KNOWN_DIALECTS, Dialect, ToolCallParser

RESCUE: dict[str, Any] = {"dialects": KNOWN_DIALECTS, "rescue": True}
PARIS = {"city": "Paris"}

# (id, document, expected calls (name, arguments), expected text)
WIRE = [
    (
        "mistral_v3_array",
        '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}, '
        '{"name": "search", "arguments": {"q": "x"}, "id": "a1B2c3D4e"}]',
        [("get_weather", PARIS), ("search", {"q": "x"})],
        "",
    ),
    (
        "mistral_v3_space_then_text",
        'On it. [TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}] ok',
        [("get_weather", PARIS)],
        "On it.  ok",
    ),
    (
        "mistral_v11_args",
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]search[ARGS]{"q": "x"}',
        [("get_weather", PARIS), ("search", {"q": "x"})],
        "",
    ),
    (
        "mistral_v13_call_id",
        '[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{"city": "Paris"}',
        [("get_weather", PARIS)],
        "",
    ),
    (
        "llama_python_tag_eom",
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}<|eom_id|>',
        [("get_weather", PARIS)],
        "",
    ),
    (
        "llama_python_tag_eot",
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}<|eot_id|>',
        [("get_weather", PARIS)],
        "",
    ),
    (
        "llama_python_tag_end_of_text",
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}',
        [("get_weather", PARIS)],
        "",
    ),
    (
        "hermes_qwen",
        'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
        "</tool_call>",
        [("get_weather", PARIS)],
        "Checking.\n",
    ),
    (
        "kimi_k2_section",
        "<|tool_calls_section_begin|>\n<|tool_call_begin|>\nfunctions.get_weather:0"
        '<|tool_call_argument_begin|>\n{"city": "Paris"}\n<|tool_call_end|>\n'
        "<|tool_calls_section_end|>",
        [("get_weather", PARIS)],
        "",
    ),
    (
        "kimi_k2_two_calls_compact",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
        '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_call_begin|>'
        'functions.search:1<|tool_call_argument_begin|>{"q": "x"}<|tool_call_end|>'
        "<|tool_calls_section_end|>Done.",
        [("get_weather", PARIS), ("search", {"q": "x"})],
        "Done.",
    ),
    (
        "harmony_commentary",
        "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
        '{"city":"Paris"}<|call|>',
        [("get_weather", PARIS)],
        "",
    ),
    (
        "harmony_after_analysis",
        "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant"
        "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
        '{"city":"Paris"}<|call|>',
        [("get_weather", PARIS)],
        "<|channel|>analysis<|message|>Need the weather.<|end|>",
    ),
    (
        "harmony_recipient_in_role",
        "<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>"
        '{"city": "Paris"}<|call|>',
        [("get_weather", PARIS)],
        "",
    ),
]


@pytest.mark.parametrize(("doc", "calls", "text"), [w[1:] for w in WIRE], ids=[w[0] for w in WIRE])
def test_leaked_wire_text_is_rescued_split_anywhere(
    doc: str, calls: list[tuple[str, dict[str, Any]]], text: str
) -> None:
    events = same_everywhere(doc, **RESCUE)
    got = ends(events)
    assert [(e.name, e.arguments, e.error) for e in got] == [(n, a, None) for n, a in calls]
    assert text_of(events) == text
    assert [e.id for e in got] == [f"call_{n}" for n in range(len(calls))]


MENTIONS = [
    "Mistral models write [TOOL_CALLS] before their calls.",
    "Use [TOOL_CALLS][ARGS] markers; see [docs](https://x) and [1].",
    "[TOOL_CALLS] then a list: [1, 2, 3]",
    "[TOOL_CALLS][not json] and [TOOL_CALLS]{not json either}",
    'The JSON {"name": "get_weather", "parameters": {"city": "Paris"}} is an example.',
    "Llama ends a call with <|eom_id|> after <|python_tag|>, e.g. <|python_tag|>print(1)",
    "Kimi: <|tool_calls_section_begin|> ... <|tool_calls_section_end|>",
    "<|tool_call_begin|>functions.get weather now<|tool_call_argument_begin|>{}",
    "Harmony has <|channel|>final<|message|>Hello<|end|> and <|start|>user<|message|>Hi",
    "<|channel|>commentary<|message|>Calling a tool next.<|end|>",
    "Wrap it as <tool_call>, </tool_call> or <function_call> please.",
    "[TOOL_CALLS]" + "x" * 400 + "[ARGS]{}",
    "a [ b < c [TOOL_CALL <|python_ta",
]


@pytest.mark.parametrize("doc", MENTIONS)
def test_text_that_mentions_a_marker_stays_text(doc: str) -> None:
    events = same_everywhere(doc, **RESCUE)
    assert ends(events) == []
    assert text_of(events) == doc


UNDECLARED = [
    '[TOOL_CALLS][{"name": "rm_rf", "arguments": {}}]',
    '[TOOL_CALLS]rm_rf[ARGS]{"path": "/"}',
    '<|python_tag|>{"name": "rm_rf", "parameters": {}}<|eom_id|>',
    '<tool_call>\n{"name": "rm_rf", "arguments": {}}\n</tool_call>',
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.rm_rf:0"
    "<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>",
    "<|channel|>commentary to=functions.rm_rf <|constrain|>json<|message|>{}<|call|>",
]


@pytest.mark.parametrize("doc", UNDECLARED)
def test_calls_to_undeclared_tools_stay_text_byte_exact(doc: str) -> None:
    events = same_everywhere(doc, **RESCUE)
    assert ends(events) == []
    assert text_of(events) == doc


def test_a_real_call_after_a_mention_in_prose_is_still_found() -> None:
    doc = 'Use [TOOL_CALLS] like so. [TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}'
    events = same_everywhere(doc, **RESCUE)
    assert [(e.name, e.arguments) for e in ends(events)] == [("get_weather", PARIS)]
    assert text_of(events) == "Use [TOOL_CALLS] like so. "


def test_prompt_mode_flags_named_calls_to_unknown_tools() -> None:
    doc = '[TOOL_CALLS]rm_rf[ARGS]{"path": "/"}'
    (end,) = ends(same_everywhere(doc, dialects=KNOWN_DIALECTS))
    assert (end.name, end.arguments) == ("rm_rf", {"path": "/"})
    assert end.error is not None and "unknown tool" in end.error
    assert end.provider_data == {"raw_text": doc}


def test_streams_ending_inside_markup() -> None:
    cut = '[TOOL_CALLS]get_weather[ARGS]{"city": "Par'
    (end,) = ends(same_everywhere(cut, **RESCUE))  # the name was declared: a flagged call
    assert end.error == "the stream ended inside the tool call"
    for doc in ("[TOOL_CALLS]get_wea", "<|channel|>commentary to=functions.get_weather"):
        events = same_everywhere(doc, **RESCUE)
        assert (ends(events), text_of(events)) == ([], doc)


def test_a_malformed_array_item_ends_the_rescue_and_the_rest_is_text() -> None:
    doc = '[TOOL_CALLS][{"name": "get_weather", "arguments": {}}, 7] tail'
    events = same_everywhere(doc, **RESCUE)
    assert [e.name for e in ends(events)] == ["get_weather"]
    assert text_of(events) == ", 7] tail"


def test_dialects_used_names_the_markup_seen() -> None:
    parser = ToolCallParser(tool_names=["get_weather"], **RESCUE)
    parser.feed('<|python_tag|>{"name": "get_weather", "parameters": {}}<|eom_id|>')
    parser.feed('[TOOL_CALLS]get_weather[ARGS]{}<tool_call>{"name": "x"}</tool_call>')
    parser.close()
    assert parser.dialects_used == ["python_tag", "mistral"]


def test_open_markers_must_not_hide_each_other() -> None:
    for marker in ("<a<b>", "["):
        with pytest.raises(UsageError, match="the first one unique"):
            Dialect(tag="bad", result_tag="r", opens=(marker,))
    with pytest.raises(UsageError, match="another marker"):
        ToolCallParser(dialects=(FUNCTION_CALL, Dialect(tag="x", result_tag="r", opens=("[a<b]",))))
    with pytest.raises(UsageError, match="go together"):
        Dialect(tag="bad", result_tag="r", header_end="[ARGS]")


def test_prose_after_a_lone_marker_is_held_at_most_one_header() -> None:
    parser = ToolCallParser(tool_names=["get_weather"], **RESCUE)
    doc = "[TOOL_CALLS] is what Mistral models write first. " + "More prose. " * 20
    assert text_of(parser.feed(doc)) == doc  # released within the chunk, not at close
    assert parser.close() == []
