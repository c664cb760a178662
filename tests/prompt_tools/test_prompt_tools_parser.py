"""ToolCallParser: the tag state machine on hand-written and adversarial streams."""

from __future__ import annotations

import json

import pytest
from helpers import chars, ends, normalize, run, split, text_of

from llmbridge.errors import UsageError
from llmbridge.events import TextDelta, ToolCallChunk, ToolCallStart
from llmbridge.prompt_tools import KNOWN_DIALECTS, TOOL_CALL, ToolCallParser

CALL = '<function_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</function_call>'


def all_splits(doc: str) -> list[list[str]]:
    return [[doc], chars(doc), *(split(doc, [c]) for c in range(1, len(doc)))]


def assert_same_everywhere(doc: str, **kwargs: object) -> list:
    whole = normalize(run([doc], **kwargs))
    for chunks in all_splits(doc):
        assert normalize(run(chunks, **kwargs)) == whole, chunks
    return whole


def test_text_and_one_call_split_everywhere() -> None:
    doc = f"Let me check.\n{CALL}\nDone."
    events = assert_same_everywhere(doc)
    assert [e.type for e in events] == [
        "text_delta",
        "tool_call_start",
        "tool_call_chunk",
        "tool_call_end",
        "text_delta",
    ]
    assert text_of(events) == "Let me check.\n\nDone."
    (end,) = ends(events)
    assert (end.id, end.name, end.arguments, end.error) == (
        "call_0",
        "get_weather",
        {"city": "Paris"},
        None,
    )
    assert end.raw_arguments == '{"city": "Paris"}'


def test_start_comes_as_soon_as_the_name_is_known_and_chunks_stream() -> None:
    parser = ToolCallParser(tool_names=["get_weather"])
    assert parser.feed('<function_call>{"name": "get_weather",') == [
        ToolCallStart(id="call_0", name="get_weather", index=0)
    ]
    assert parser.feed(' "arguments": {"city": "Pa') == [
        ToolCallChunk(id="call_0", index=0, arguments_delta='{"city": "Pa')
    ]
    assert parser.feed('ris"}') == [ToolCallChunk(id="call_0", index=0, arguments_delta='ris"}')]
    out = parser.feed("}</function_call>")
    assert [e.type for e in out] == ["tool_call_end"]


@pytest.mark.parametrize(
    ("text", "released_after"),
    [
        ("a < b and c > d", "a < "),
        ("<div>hello</div>", "<d"),
        ("x <function_cal y", "x <function_cal "),
        ("<<function_call", "<"),
    ],
)
def test_ordinary_angle_brackets_are_held_only_while_ambiguous(
    text: str, released_after: str
) -> None:
    parser = ToolCallParser()
    shown = ""
    for ch in text:
        shown += text_of(parser.feed(ch))
        if len(shown) >= len(released_after):
            break
    assert shown.startswith(released_after)


def test_lt_at_end_of_stream_is_text() -> None:
    for tail in ("<", "<function_cal", "<function_call"):
        events = run(["ok ", tail])
        assert text_of(events) == "ok " + tail
        assert not ends(events)


def test_false_start_then_text_then_real_call() -> None:
    doc = "<function_cal then text <function_callx> " + CALL
    events = assert_same_everywhere(doc)
    assert text_of(events) == "<function_cal then text <function_callx> "
    assert len(ends(events)) == 1


@pytest.mark.parametrize(
    "doc",
    [
        "Write `<function_call>` around calls.",
        "The tag <function_call> is used like this.",
        "`<function_call>`{not json}",
        "<function_call>``x",
    ],
)
def test_tag_not_followed_by_json_is_text(doc: str) -> None:
    events = assert_same_everywhere(doc)
    assert text_of(events) == doc
    assert not ends(events)


def test_whitespace_and_json_fence_inside_the_tag() -> None:
    doc = (
        "<function_call>\n```json\n"
        '{\n  "name": "search",\n  "arguments": {"q": "x"}\n}\n```\n</function_call>after'
    )
    events = assert_same_everywhere(doc)
    assert text_of(events) == "after"
    (end,) = ends(events)
    assert (end.name, end.arguments, end.raw_arguments) == ("search", {"q": "x"}, '{"q": "x"}')


def test_arguments_given_as_a_json_string() -> None:
    inner = '{"city": "Paris \\"centre\\"", "n": 1}'
    doc = (
        '<function_call>{"name": "get_weather", "arguments": '
        + json.dumps(inner)
        + "}</function_call>"
    )
    events = assert_same_everywhere(doc)
    (end,) = ends(events)
    assert end.raw_arguments == inner
    assert end.arguments == {"city": 'Paris "centre"', "n": 1}


def test_arguments_before_name_and_parameters_spelling() -> None:
    doc = '<function_call>{"parameters": {"q": "{}"}, "name": "search"}</function_call>'
    (end,) = ends(assert_same_everywhere(doc))
    assert (end.name, end.arguments, end.error) == ("search", {"q": "{}"}, None)


def test_no_arguments_and_null_arguments() -> None:
    for body in (
        '{"name": "noop"}',
        '{"name": "noop", "arguments": null}',
        '{"name":"noop","arguments":{}}',
    ):
        (end,) = ends(run([f"<function_call>{body}</function_call>"]))
        assert end.arguments == {}
        assert end.error is None


def test_strings_with_braces_tags_escapes_and_unicode() -> None:
    args = {
        "code": 'if (a) { b("}") }',
        "tag": "</function_call><function_call>",
        "u": "héllo ☃ 𝄞 \\",
    }
    for ensure_ascii in (True, False):
        raw = json.dumps(args, ensure_ascii=ensure_ascii)
        doc = '<function_call>{"name": "search", "arguments": ' + raw + "}</function_call>"
        events = assert_same_everywhere(doc)
        (end,) = ends(events)
        assert end.arguments == args
        assert end.raw_arguments == raw
        assert text_of(events) == ""


def test_several_calls_back_to_back_and_missing_close_tag() -> None:
    doc = (
        '<function_call>{"name": "noop"}</function_call><function_call>{"name": "search", '
        '"arguments": {"q": 1}}\n<function_call>{"name": "get_weather", "arguments": {}}'
    )
    events = assert_same_everywhere(doc)
    assert [(e.id, e.index, e.name) for e in ends(events)] == [
        ("call_0", 0, "noop"),
        ("call_1", 1, "search"),
        ("call_2", 2, "get_weather"),
    ]
    assert all(e.error is None for e in ends(events))
    assert text_of(events) == "\n"


def test_text_after_unclosed_object_streams_as_text() -> None:
    doc = '<function_call>{"name": "noop"}  then some text </function_call>'
    events = assert_same_everywhere(doc)
    assert ends(events)[0].error is None
    assert text_of(events) == "  then some text </function_call>"


def test_unknown_tool_is_flagged_with_arguments_and_raw_text_kept() -> None:
    doc = '<function_call>{"name": "rm_rf", "arguments": {"path": "/"}}</function_call>'
    (end,) = ends(assert_same_everywhere(doc))
    assert end.name == "rm_rf"
    assert end.error is not None and "unknown tool 'rm_rf'" in end.error
    assert end.arguments == {"path": "/"}
    assert end.provider_data == {"raw_text": doc}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"name": "search", "arguments": {"q": 1,}}', "arguments are not valid JSON"),
        ('{"name": "search", "arguments": [1, 2]}', "must be a JSON object"),
        ('{"name": "search", "arguments": 42}', "must be a JSON object"),
        ('{name: "search"}', "malformed tool call JSON"),
        ('{"arguments": {"q": 1}}', "no name"),
        ('{"name": "search" "arguments": {}}', "malformed tool call JSON"),
    ],
)
def test_malformed_calls_are_flagged_never_lost(body: str, message: str) -> None:
    doc = f"before <function_call>{body}</function_call> after"
    events = assert_same_everywhere(doc)
    (end,) = ends(events)
    assert end.error is not None and message in end.error
    assert end.provider_data == {"raw_text": f"<function_call>{body}</function_call>"}
    assert text_of(events) == "before  after"


@pytest.mark.parametrize(
    "tail",
    [
        "<function_call>",
        "<function_call>\n```json\n",
        '<function_call>{"name": "search", "arguments": {"q": "unterminated',
        '<function_call>{"name": "sea',
    ],
)
def test_stream_ending_inside_a_tag_is_flagged(tail: str) -> None:
    events = assert_same_everywhere("text " + tail)
    assert text_of(events) == "text "
    (end,) = ends(events)
    assert end.error == "the stream ended inside the tool call"
    assert end.arguments == {}
    assert end.provider_data == {"raw_text": tail}


def test_truncated_call_keeps_streamed_arguments() -> None:
    (end,) = ends(run(['<function_call>{"name": "search", "arguments": {"q": "ab']))
    assert end.raw_arguments == '{"q": "ab'


def test_stream_ending_before_close_tag_after_object_is_a_good_call() -> None:
    for tail in ("", "\n", "</function_ca"):
        events = run(['<function_call>{"name": "noop"}' + tail])
        (end,) = ends(events)
        assert end.error is None
        assert text_of(events) == tail


def test_tags_inside_code_spans_and_fences_in_text() -> None:
    doc = "Use `<function_call>` like: ```\n<b>x</b>\n``` and `a<b`."
    events = assert_same_everywhere(doc)
    assert text_of(events) == doc


def test_huge_arguments_stream_in_pieces() -> None:
    big = {"blob": 'x{}"' * 50_000, "list": list(range(5000))}
    raw = json.dumps(big)
    doc = '<function_call>{"name": "search", "arguments": ' + raw + "}</function_call>"
    events = run(split(doc, range(0, len(doc), 4096)))
    chunks = [e for e in events if isinstance(e, ToolCallChunk)]
    assert len(chunks) > 10
    (end,) = ends(events)
    assert end.arguments == big and end.raw_arguments == raw


def test_hundred_calls() -> None:
    doc = "".join(
        f'{i} <function_call>{{"name": "search", "arguments": {{"i": {i}}}}}</function_call>'
        for i in range(100)
    )
    events = normalize(run(chars(doc)))
    assert events == normalize(run([doc]))
    got = ends(events)
    assert [e.arguments["i"] for e in got] == list(range(100))
    assert len({e.id for e in got}) == 100
    assert [e.index for e in got] == list(range(100))


def test_tool_call_dialect_and_custom_id_prefix() -> None:
    doc = (
        'a<tool_call>\n{"name": "search", "arguments": {"q": "x"}}\n</tool_call>b <function_call>{}'
    )
    events = run(chars(doc), dialects=(TOOL_CALL,), id_prefix="t")
    (end,) = ends(events)
    assert (end.id, end.name) == ("t0", "search")
    assert text_of(events) == "ab <function_call>{}"


def test_rescue_only_extracts_declared_tools() -> None:
    doc = (
        'x<tool_call>{"name": "search", "arguments": {"q": 1}}</tool_call>'
        '<tool_call>{"name": "other", "arguments": {}}</tool_call>'
        '<function_call>{"arguments": {}}</function_call><tool_call>{"name": "sea'
    )
    kwargs = {"dialects": KNOWN_DIALECTS, "rescue": True}
    events = assert_same_everywhere(doc, **kwargs)
    (end,) = ends(events)
    assert (end.name, end.arguments, end.error) == ("search", {"q": 1}, None)
    assert text_of(events) == (
        'x<tool_call>{"name": "other", "arguments": {}}</tool_call>'
        '<function_call>{"arguments": {}}</function_call><tool_call>{"name": "sea'
    )


def test_feed_after_close_is_refused_and_close_is_idempotent() -> None:
    parser = ToolCallParser()
    parser.feed("a<")
    assert parser.close() == [TextDelta("<")]
    assert parser.close() == []
    with pytest.raises(UsageError, match="after close"):
        parser.feed("<x")


def test_rescue_needs_tool_names() -> None:
    with pytest.raises(ValueError, match="tool_names"):
        ToolCallParser(rescue=True)


@pytest.mark.parametrize(
    ("chunks", "names", "text"),
    [
        (
            ['<function_call>{"name":"noop"}<', 'function_call>{"name":"search"}'],
            ["noop", "search"],
            "",
        ),
        (['<function_call>{"name":"noop"} </fun', "ny"], ["noop"], " </funny"),
        (['<function_call>{"name":"noop"}```', "\n</function_call>x"], ["noop"], "x"),
    ],
)
def test_close_tag_prefix_held_across_chunks(
    chunks: list[str], names: list[str], text: str
) -> None:
    events = run(chunks)
    assert [e.name for e in ends(events)] == names
    assert all(e.error is None for e in ends(events))
    assert text_of(events) == text
    assert normalize(events) == normalize(run(["".join(chunks)]))
