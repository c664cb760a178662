"""The ``ollama-native`` decoder, sans-IO: every line kind, ids, finish, usage, errors."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

import llmbridge as lb
from llmbridge.frames import Line
from llmbridge.providers.ollama_native import OllamaDecoder
from llmbridge.testing import assert_split_invariant, check_invariants, decode_collect


def _body(*lines: dict[str, Any]) -> bytes:
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


def _msg(n: int, **message: Any) -> dict[str, Any]:
    return {
        "model": "qwen3:8b",
        "created_at": f"2026-01-02T03:04:0{n}.5Z",
        "message": {"role": "assistant", "content": "", **message},
        "done": False,
    }


DONE = {
    "model": "qwen3:8b",
    "created_at": "2026-01-02T03:04:09.5Z",
    "message": {"role": "assistant", "content": ""},
    "done": True,
    "done_reason": "stop",
    "total_duration": 10,
    "prompt_eval_count": 7,
    "eval_count": 5,
}


def _decode(body: bytes) -> tuple[list[lb.StreamEvent], lb.LLMBridgeError | None]:
    return decode_collect(OllamaDecoder(model="asked"), [body], framing="ndjson")


def test_thinking_text_and_whole_calls() -> None:
    body = _body(
        _msg(1, thinking="hmm"),
        _msg(2, content="Hi", thinking=" ok"),
        _msg(3, tool_calls=[{"function": {"name": "f", "arguments": {"x": 1}}}]),
        _msg(4, tool_calls=[{"function": {"name": "g", "arguments": {}}}]),
        DONE,
    )
    events, error = _decode(body)
    assert error is None
    check_invariants(events)
    kinds = [type(e).__name__ for e in events]
    assert kinds == [
        "StreamStart",
        "ReasoningDelta",
        "ReasoningDelta",
        "TextDelta",
        *["ToolCallStart", "ToolCallChunk", "ToolCallEnd"] * 2,
        "Finish",
    ]
    ends = [e for e in events if isinstance(e, lb.ToolCallEnd)]
    assert [(e.id, e.name, e.arguments) for e in ends] == [
        ("call_202601020304015_0", "f", {"x": 1}),
        ("call_202601020304015_1", "g", {}),
    ]
    assert all((e.provider_data or {}).get("generated_id") for e in ends)
    finish = events[-1]
    assert isinstance(finish, lb.Finish)
    assert (finish.reason, finish.raw_reason) == ("tool_calls", "stop")
    assert finish.usage == lb.Usage(input_tokens=7, output_tokens=5)
    assert finish.provider_data == {
        "ollama-native": {
            "total_duration": 10,
            "created_at": DONE["created_at"],
            "model": "qwen3:8b",
        }
    }
    assert_split_invariant(lambda: OllamaDecoder(), body, framing="ndjson")


def test_an_id_the_server_sends_is_kept_and_string_arguments_pass_through() -> None:
    call = {"id": "abc", "function": {"name": "f", "arguments": '{"y": 2}'}}
    events, _ = _decode(_body(_msg(1, tool_calls=[call, call]), DONE))
    ends = [e for e in events if isinstance(e, lb.ToolCallEnd)]
    assert [(e.id, e.raw_arguments, e.arguments) for e in ends] == [
        ("abc", '{"y": 2}', {"y": 2}),
        ("abc_2", '{"y": 2}', {"y": 2}),
    ]


@pytest.mark.parametrize(
    ("reason", "want"), [("length", "length"), ("load", "other"), (None, "other")]
)
def test_done_reasons(reason: str | None, want: str) -> None:
    done = (
        {**DONE, "done_reason": reason}
        if reason
        else {k: v for k, v in DONE.items() if k != "done_reason"}
    )
    events, _ = _decode(_body(_msg(1, content="x"), done))
    assert isinstance(events[-1], lb.Finish) and events[-1].reason == want


def test_generate_lines() -> None:
    lines = [
        {"model": "m", "created_at": "t", "response": "Hel", "done": False},
        {"model": "m", "created_at": "t", "thinking": "why", "response": "lo", "done": False},
        {"model": "m", "created_at": "t", "response": "", "done": True, "done_reason": "stop"},
    ]
    events, error = _decode(_body(*lines))
    assert error is None
    assert "".join(e.text for e in events if isinstance(e, lb.TextDelta)) == "Hello"
    assert [e.text for e in events if isinstance(e, lb.ReasoningDelta)] == ["why"]
    assert isinstance(events[-1], lb.Finish) and events[-1].usage is None


def test_an_error_line_is_a_typed_error_after_the_events_before_it() -> None:
    events, error = _decode(_body(_msg(1, content="par"), {"error": "runner crashed"}))
    assert [e.text for e in events if isinstance(e, lb.TextDelta)] == ["par"]
    assert isinstance(error, lb.ServerError) and error.provider_message == "runner crashed"
    decoder = OllamaDecoder()
    with pytest.raises(lb.ServerError):
        decoder.feed_frame(Line(b'{"error": "x"}'))
    with pytest.raises(lb.MalformedStreamError, match="already failed"):
        decoder.feed_frame(Line(orjson.dumps(DONE)))


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (_body(_msg(1, content="a")), lb.StreamTruncatedError),  # no done line
        (
            _body(_msg(1, content="a"))[:-1] + b"\n" + b'{"model": "m", "mess',
            lb.StreamTruncatedError,
        ),
        (b"not json\n", lb.MalformedStreamError),
        (b"[1, 2]\n", lb.MalformedStreamError),
        (_body(_msg(1, tool_calls=["oops"])), lb.MalformedStreamError),
    ],
)
def test_broken_streams(body: bytes, error: type[Exception]) -> None:
    _, got = _decode(body)
    assert isinstance(got, error), got


def test_lines_after_done_are_ignored_and_close_is_once() -> None:
    decoder = OllamaDecoder()
    decoder.feed_frame(Line(orjson.dumps(DONE)))
    assert decoder.feed_frame(Line(orjson.dumps(_msg(1, content="late")))) == []
    assert len(decoder.close()) == 1
    assert decoder.close() == []
