"""The Anthropic decoder's stream-level rules that mutation testing found unguarded in a bare
clone (tests/MUTATION.md): how a stream may end, repeated and extra messages, odd events."""

from __future__ import annotations

import json
from typing import Any

import pytest

import llmbridge as lb
from llmbridge.errors import MalformedStreamError, StreamTruncatedError
from llmbridge.providers.anthropic import AnthropicDecoder


def _start(mid: str = "msg_1", **usage: int) -> dict[str, Any]:
    message = {"id": mid, "model": "claude-x", "role": "assistant", "content": [],
               "usage": {"input_tokens": 10, "output_tokens": 1, **usage}}  # fmt: skip
    return {"type": "message_start", "message": message}


def _text(index: int, text: str) -> list[dict[str, Any]]:
    return [
        {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": index},
    ]  # fmt: skip


def _delta(stop: str | None = "end_turn", output: int = 5) -> dict[str, Any]:
    return {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": output}}  # fmt: skip


STOP = {"type": "message_stop"}


def _run(*events: dict[str, Any], close: bool = True) -> list[lb.StreamEvent]:
    decoder = AnthropicDecoder()
    out: list[lb.StreamEvent] = []
    for e in events:
        out.extend(decoder.feed(e["type"], json.dumps(e)))
    if close:
        out.extend(decoder.close())
    return out


def _finish(events: list[lb.StreamEvent]) -> lb.Finish:
    assert isinstance(events[-1], lb.Finish), events
    return events[-1]


def test_a_whole_stream_gives_start_text_and_one_finish_and_closes_once() -> None:
    decoder = AnthropicDecoder()
    out: list[lb.StreamEvent] = []
    for e in [_start(), *_text(0, "Hi"), _delta(), STOP]:
        out.extend(decoder.feed(e["type"], json.dumps(e)))
    out.extend(decoder.close())
    assert decoder.close() == []
    assert out[0] == lb.StreamStart(response_id="msg_1", model="claude-x", warnings=[])
    assert [e.text for e in out if isinstance(e, lb.TextDelta)] == ["Hi"]
    finish = _finish(out)
    assert (finish.reason, finish.raw_reason) == ("stop", "end_turn")
    assert finish.usage is not None and (finish.usage.input_tokens, finish.usage.output_tokens) == (
        10,
        5,
    )
    assert finish.provider_data is None


def test_a_stream_missing_only_message_stop_still_finishes() -> None:
    """The stop reason came and every block closed: the lenient end."""
    finish = _finish(_run(_start(), *_text(0, "Hi"), _delta("max_tokens")))
    assert finish.reason == "length"


@pytest.mark.parametrize(
    ("events", "where"),
    [
        ([], "message_start"),
        ([_start(), *_text(0, "Hi")], "message_stop"),  # no stop reason
        ([_start(), *_text(0, "Hi")[:2], _delta()], "message_stop"),  # a block still open
    ],
)
def test_a_cut_stream_is_truncated(events: list[dict[str, Any]], where: str) -> None:
    decoder = AnthropicDecoder()
    for e in events:
        decoder.feed(e["type"], json.dumps(e))
    with pytest.raises(StreamTruncatedError, match=f"the stream ended before {where}") as info:
        decoder.close()
    assert info.value.provider == "anthropic"
    assert decoder.close() == []  # failed: nothing more


def test_a_repeated_message_start_is_ignored_and_another_while_open_is_malformed() -> None:
    events = _run(_start(), _start(), *_text(0, "Hi"), _delta(), STOP)
    assert [type(e) for e in events].count(lb.StreamStart) == 1
    with pytest.raises(MalformedStreamError, match="'msg_2' while message 'msg_1'") as info:
        _run(_start(), _start("msg_2"))
    assert info.value.provider == "anthropic"


def test_a_second_message_continues_the_response_and_sums_usage() -> None:
    events = _run(_start(), *_text(0, "one "), _delta("tool_use", 3), STOP,
                  _start("msg_2", cache_read_input_tokens=4, cache_creation_input_tokens=6),
                  *_text(0, "two"), _delta(output=7),
                  STOP)  # fmt: skip
    assert "".join(e.text for e in events if isinstance(e, lb.TextDelta)) == "one two"
    finish = _finish(events)
    assert finish.raw_reason == "end_turn"
    assert finish.usage is not None
    assert (finish.usage.input_tokens, finish.usage.output_tokens) == (30, 10)
    assert (finish.usage.cached_input_tokens, finish.usage.cache_write_tokens) == (4, 6)
    assert finish.provider_data == {"anthropic": {"message_ids": ["msg_1", "msg_2"]}}


def test_a_block_after_message_stop_is_malformed() -> None:
    with pytest.raises(MalformedStreamError, match="^content_block_start after message_stop") as e:
        _run(_start(), _delta(), STOP, *_text(0, "late"))
    assert e.value.provider == "anthropic"


def test_content_given_in_message_start_is_decoded_as_if_streamed() -> None:
    start = _start()
    start["message"]["content"] = [{"type": "text", "text": "up front"}]
    start["message"]["stop_reason"] = "end_turn"
    events = _run(start, STOP)
    assert [e.text for e in events if isinstance(e, lb.TextDelta)] == ["up front"]
    assert _finish(events).raw_reason == "end_turn"


def test_a_named_event_without_a_type_field_is_read_by_its_name() -> None:
    start = _start(mid=123)  # type: ignore[arg-type]  # and an id that is not a string
    del start["type"]
    got = AnthropicDecoder().feed("message_start", json.dumps(start))
    assert got == [lb.StreamStart(response_id=None, model="claude-x", warnings=[])]
    start["message"]["model"] = 7
    got = AnthropicDecoder().feed("message_start", json.dumps(start))
    assert got == [lb.StreamStart(response_id=None, model=None, warnings=[])]


def test_errors_name_the_provider_the_decoder_serves() -> None:
    decoder = AnthropicDecoder(provider="anthropic-vertex")
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}
    with pytest.raises(lb.LLMBridgeError) as info:
        decoder.feed("error", json.dumps(error))
    assert info.value.provider == "anthropic-vertex"
    with pytest.raises(MalformedStreamError) as bad:
        AnthropicDecoder(provider="anthropic-vertex").feed("message_start", "[1]")
    assert bad.value.provider == "anthropic-vertex"


def test_odd_events() -> None:
    decoder = AnthropicDecoder()
    assert decoder.feed("", "") == [] and decoder.feed("", "  \n") == []
    assert decoder.feed("ping", '{"type": "ping"}') == []
    assert decoder.feed("", '{"type": "something_new", "x": 1}') == []
    with pytest.raises(MalformedStreamError, match="event 'message' carries non-JSON data"):
        AnthropicDecoder().feed("", "{nope")
    with pytest.raises(MalformedStreamError, match="event data is not a JSON object"):
        AnthropicDecoder().feed("message_start", "[1]")
    failed = AnthropicDecoder()
    with pytest.raises(lb.LLMBridgeError):
        failed.feed("error", json.dumps({"type": "overloaded", "error": {"type": "overloaded_error", "message": "busy"}}))  # fmt: skip
    with pytest.raises(MalformedStreamError):
        failed.feed("", json.dumps(_start()))  # refuses input after an error
    assert failed.close() == []


def test_empty_deltas_give_no_events() -> None:
    tool = {"type": "content_block_start", "index": 1,
            "content_block": {"type": "tool_use", "id": "t1", "name": "f", "input": {}}}  # fmt: skip
    events = _run(
        _start(),
        *_text(0, ""),
        tool,
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{}"}},
        {"type": "content_block_stop", "index": 1},
        _delta("tool_use"),
        STOP,
    )  # fmt: skip
    assert not any(isinstance(e, lb.TextDelta) for e in events)
    assert [e.arguments_delta for e in events if isinstance(e, lb.ToolCallChunk)] == ["{}"]
