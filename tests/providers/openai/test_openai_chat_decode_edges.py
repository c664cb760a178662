"""The Chat Completions decoder at the edges mutation testing found unguarded (tests/MUTATION.md):
what the error of a bad line says, refusals after kept reasoning, citations, typed content parts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from llmbridge.errors import LLMBridgeError, MalformedStreamError, ServerError, StreamTruncatedError
from llmbridge.events import (
    Citation,
    Finish,
    ReasoningDelta,
    StreamEvent,
    StreamStart,
    TextDelta,
    ToolCallEnd,
)
from llmbridge.providers.openai import ChatCompletionsDecoder
from llmbridge.testing import decode_collect
from tests.fakes import decode_checked, sse_body


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"id": "chatcmpl-1", "model": "m"}
    body["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}]
    return body | extra


def decode(body: bytes, provider: str = "openrouter") -> tuple[list[StreamEvent], Any]:
    events, error = decode_checked(lambda: ChatCompletionsDecoder(provider=provider), body)
    return events[1:], error  # without the StreamStart


def test_an_error_event_that_is_not_json_says_what_the_server_sent() -> None:
    body = sse_body(chunk({"content": "hi"})) + b"event: error\ndata: upstream went away\n\n"
    events, error = decode(body, provider="groq")
    assert events == [TextDelta("hi")]
    assert isinstance(error, ServerError) and error.provider == "groq"
    assert str(error) == "upstream went away (provider=groq)"


def test_a_line_that_is_not_json_is_quoted_up_to_120_characters() -> None:
    line = "x" * 119 + "yz" + "w" * 200
    events, error = decode(sse_body(chunk({"content": "hi"})) + f"data: {line}\n\n".encode())
    assert events == [TextDelta("hi")]
    assert isinstance(error, MalformedStreamError) and error.provider == "openrouter"
    assert str(error) == f"a data line is not a JSON chunk: {line[:120]!r} (provider=openrouter)"


def test_a_refusal_after_kept_reasoning_details_ends_the_reasoning_first() -> None:
    details = [{"type": "reasoning.text", "text": "hmm", "index": 0}]
    body = sse_body(chunk({"reasoning_details": details}), chunk({"refusal": "No."}),
                    chunk({}, "stop"), done=True)  # fmt: skip
    events, error = decode(body)
    assert error is None
    assert events == [
        ReasoningDelta("hmm"),
        ReasoningDelta("", provider_data={"reasoning_details": details}),
        TextDelta("No."),
        Finish("content_filter", "stop", None, {"refusal": "No."}),
    ]


def test_url_citations_in_a_delta_become_citations() -> None:
    note = {"url": "https://a.example", "title": "A", "start_index": 0, "end_index": 3}
    body = sse_body(chunk({"content": "abc"}),
                    chunk({"annotations": [{"type": "url_citation", "url_citation": note}]}),
                    chunk({}, "stop"), done=True)  # fmt: skip
    events, error = decode(body)
    assert error is None
    assert events == [TextDelta("abc"), Citation("https://a.example", "A"), Finish("stop", "stop")]


@pytest.mark.parametrize(
    ("parts", "want"),
    [
        (["stray", {"type": "text", "text": "a"}], [TextDelta("a")]),  # a bad part is skipped
        ([{"type": "text", "text": ""}, {"type": "text", "text": "b"}], [TextDelta("b")]),
        ([{"type": "text", "text": 7}, {"type": "text", "text": "c"}], [TextDelta("c")]),
        (
            [{"type": "thinking", "thinking": "t"}, {"type": "text", "text": "d"}],
            [ReasoningDelta("t"), TextDelta("d")],
        ),
    ],
)
def test_typed_content_parts_give_only_the_text_they_hold(
    parts: list[Any], want: list[StreamEvent]
) -> None:
    events, error = decode(sse_body(chunk({"content": parts}), chunk({}, "stop"), done=True))
    assert error is None
    assert events == [*want, Finish("stop", "stop")]


USAGE = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}


@pytest.mark.parametrize(
    ("x_groq", "input_tokens"), [({"usage": USAGE}, 3), ({"usage": "n/a"}, None), ("n/a", None)]
)
def test_groq_usage_under_x_groq_is_read_and_odd_shapes_are_ignored(
    x_groq: Any, input_tokens: int | None
) -> None:
    body = sse_body(chunk({"content": "a"}), chunk({}, "stop", x_groq=x_groq), done=True)
    events, error = decode(body, provider="groq")
    finish = events[-1]
    assert error is None and isinstance(finish, Finish)
    got = finish.usage.input_tokens if finish.usage is not None else None
    assert got == input_tokens


def test_a_legacy_function_call_gets_an_id_from_the_response_id() -> None:
    body = sse_body(
        chunk({"function_call": {"name": "f", "arguments": ""}}, id="chatcmpl-abcdefghijklmnop"),
        chunk({"function_call": {"arguments": '{"a":1}'}}),
        chunk({}, "function_call"),
        done=True,
    )
    events, error = decode(body)
    assert error is None
    ends = [(e.id, e.index, e.name, e.arguments) for e in events if isinstance(e, ToolCallEnd)]
    assert ends == [("call_efghijklmnop_0", 0, "f", {"a": 1})]


def test_reasoning_details_beside_reasoning_content_are_read_once() -> None:
    details = [{"type": "reasoning.text", "text": "r", "index": 0}]
    body = sse_body(chunk({"reasoning_content": "r", "reasoning_details": details}),
                    chunk({"content": "x"}), chunk({}, "stop"), done=True)  # fmt: skip
    events, error = decode(body)
    assert error is None
    assert [e.text for e in events if isinstance(e, ReasoningDelta)] == ["r", ""]


def test_a_reasoning_summary_detail_is_reasoning_text() -> None:
    details = ["junk", {"type": "reasoning.summary", "summary": "s", "index": 0}]
    events, error = decode(sse_body(chunk({"reasoning_details": details}), chunk({}, "stop"),
                                    done=True))  # fmt: skip
    assert error is None
    assert [e.text for e in events if isinstance(e, ReasoningDelta)] == ["s", ""]


def test_reasoning_parts_keep_only_their_text_summaries() -> None:
    parts = [
        {"type": "thinking", "thinking": {"not": "text"}},
        {"type": "thinking", "thinking": 5},
        {
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "r"}, "junk", {"text": ""}],
        },
    ]
    events, error = decode(sse_body(chunk({"content": parts}), chunk({}, "stop"), done=True))
    assert error is None
    assert events == [ReasoningDelta("r"), Finish("stop", "stop")]


@pytest.mark.parametrize(
    ("delta", "want"),
    [
        ({"content": "a", "refusal": "b"}, [TextDelta("a"), TextDelta("b")]),
        ({"reasoning_content": "r", "content": "a"}, [ReasoningDelta("r"), TextDelta("a")]),
        ({"reasoning": "r", "reasoning_content": "r"}, [ReasoningDelta("r")]),  # not twice
    ],
)
def test_every_field_of_one_delta_is_read(delta: dict[str, Any], want: list[StreamEvent]) -> None:
    events, error = decode(sse_body(chunk(delta), chunk({}, "stop"), done=True))
    assert error is None and events[:-1] == want


def tool(index: int, **function: str) -> dict[str, Any]:
    return {"index": index, "function": function}


def test_a_tool_call_after_kept_reasoning_details_ends_the_reasoning_first() -> None:
    details = [{"type": "reasoning.text", "text": "hmm", "index": 0}]
    first = tool(0, name="f", arguments="{}") | {"id": "call_1", "type": "function"}
    body = sse_body(chunk({"reasoning_details": details}), chunk({"tool_calls": [first]}),
                    chunk({}, "tool_calls"), done=True)  # fmt: skip
    events, error = decode(body)
    assert error is None
    assert [type(e).__name__ for e in events] == [
        "ReasoningDelta", "ReasoningDelta", "ToolCallStart", "ToolCallChunk", "ToolCallEnd",
        "Finish",
    ]  # fmt: skip
    assert events[1] == ReasoningDelta("", provider_data={"reasoning_details": details})


def test_a_legacy_function_call_after_tool_calls_is_the_same_call_not_more_arguments() -> None:
    """llama-cpp-python sends ``function_call`` beside ``tool_calls``; once tool calls were
    seen, a lone ``function_call`` is the same call again and is not read."""
    start = tool(0, name="f", arguments="") | {"id": "call_1", "type": "function"}
    body = sse_body(
        chunk({"tool_calls": [start], "function_call": {"name": "f", "arguments": ""}}),
        chunk({"tool_calls": [tool(0, arguments='{"a": 1}')]}),
        chunk({"function_call": {"arguments": '{"a": 1}'}}),
        chunk({}, "tool_calls"),
        done=True,
    )
    events, error = decode(body)
    assert error is None
    ends = [(e.name, e.arguments, e.error) for e in events if isinstance(e, ToolCallEnd)]
    assert ends == [("f", {"a": 1}, None)]


def test_done_without_a_finish_reason_ends_the_open_tool_call() -> None:
    start = tool(0, name="f", arguments='{"a": 1}') | {"id": "call_1", "type": "function"}
    events, error = decode(sse_body(chunk({"tool_calls": [start]}), done=True))
    assert error is None
    ends = [(e.id, e.arguments) for e in events if isinstance(e, ToolCallEnd)]
    assert ends == [("call_1", {"a": 1})]
    assert events[-1] == Finish("tool_calls", None)


def _json(value: dict[str, Any]) -> str:
    return json.dumps(value)


def test_after_an_error_in_a_chunk_an_ordinary_chunk_raises_it_again() -> None:
    decoder = ChatCompletionsDecoder(provider="openrouter")
    assert decoder.feed("", _json(chunk({"content": "a"}))) != []
    failing = {"error": {"message": "upstream overloaded", "code": 502}}
    with pytest.raises(LLMBridgeError, match="upstream overloaded") as first:
        decoder.feed("", _json(failing))
    with pytest.raises(LLMBridgeError) as again:
        decoder.feed("", _json(chunk({"content": "b"})))
    assert again.value is first.value


def test_chunks_after_done_are_not_decoded() -> None:
    decoder = ChatCompletionsDecoder(provider="openrouter")
    decoder.feed("", _json(chunk({"content": "a"})))
    assert decoder.feed("", "[DONE]") == [Finish("stop", None)]
    assert decoder.feed("", _json(chunk({"content": "late"}))) == []
    assert decoder.close() == []


def test_the_start_comes_from_the_first_chunk_with_an_id_even_without_choices() -> None:
    first = {"id": "resp-1", "model": "m", "choices": []}
    later = {"choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": "stop"}]}
    events, error = decode_collect(ChatCompletionsDecoder(provider="openai"),
                                   [sse_body(first, later, done=True)])  # fmt: skip
    assert error is None
    assert events == [StreamStart("resp-1", "m"), TextDelta("a"), Finish("stop", "stop")]


def test_a_body_cut_off_says_so_and_names_the_provider() -> None:
    decoder = ChatCompletionsDecoder(provider="openrouter")
    decoder.feed("", _json(chunk({"content": "a"})))
    with pytest.raises(StreamTruncatedError) as cut:
        decoder.close()
    assert cut.value.provider == "openrouter"
    assert str(cut.value) == (
        "the stream ended before a finish_reason or [DONE] (provider=openrouter)"
    )


def test_after_close_nothing_more_is_decoded_or_finished() -> None:
    decoder = ChatCompletionsDecoder(provider="openrouter")
    decoder.feed("", _json(chunk({"content": "a"}, "stop")))
    assert decoder.close() == [Finish("stop", "stop")]
    assert decoder.feed("", _json(chunk({"content": "late"}))) == []
    assert decoder.close() == []
