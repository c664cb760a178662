"""The ``cohere`` decoder, sans-IO: every v2 chat event, citations, finish reasons, errors."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

import llmbridge as lb
from llmbridge.providers.cohere import CohereDecoder
from llmbridge.providers.cohere.errors import map_http_error
from llmbridge.testing import assert_split_invariant, check_invariants, decode_collect


def _ev(data: dict[str, Any], named: bool = True) -> bytes:
    head = b"event: " + data["type"].encode() + b"\n" if named else b""
    return head + b"data: " + orjson.dumps(data) + b"\n\n"


def _m(kind: str, message: dict[str, Any], **more: Any) -> bytes:
    return _ev({"type": kind, "delta": {"message": message}, **more})


START = _ev({"id": "r1", "type": "message-start", "delta": {"message": {"role": "assistant"}}})


def _end(reason: str, usage: dict[str, Any] | None = None, **more: Any) -> bytes:
    return _ev(
        {"type": "message-end", "delta": {"finish_reason": reason, "usage": usage or {}, **more}}
    )


BODY = (
    START
    + _m("content-start", {"content": {"type": "thinking", "thinking": ""}}, index=0)
    + _m("content-delta", {"content": {"thinking": "think"}}, index=0)
    + _ev({"type": "content-end", "index": 0})
    + _m("tool-plan-delta", {"tool_plan": "I will "})
    + _m("tool-plan-delta", {"tool_plan": "look."})
    + _m(
        "tool-call-start",
        {
            "tool_calls": {
                "id": "f_1",
                "type": "function",
                "function": {"name": "f", "arguments": ""},
            }
        },
        index=0,
    )
    + _m("tool-call-delta", {"tool_calls": {"function": {"arguments": '{"a"'}}}, index=0)
    + _m("tool-call-delta", {"tool_calls": {"function": {"arguments": ": 1}"}}}, index=0)
    + _ev({"type": "tool-call-end", "index": 0})
    + _m(
        "tool-call-start",
        {
            "tool_calls": {
                "id": "g_2",
                "type": "function",
                "function": {"name": "g", "arguments": "{}"},
            }
        },
        index=1,
    )
    + _ev({"type": "tool-call-end", "index": 1})
    + _m("content-start", {"content": {"type": "text", "text": ""}}, index=1)
    + _m("content-delta", {"content": {"text": "Done."}}, index=1)
    + _m(
        "citation-start",
        {
            "citations": {
                "start": 0,
                "end": 5,
                "text": "Done.",
                "sources": [
                    {
                        "type": "document",
                        "id": "doc:0",
                        "document": {"title": "T", "url": "https://x.test"},
                    },
                    {"type": "tool", "id": "f_1:0", "tool_output": {"a": 1}},
                ],
            }
        },
        index=0,
    )
    + _ev({"type": "citation-end", "index": 0})
    + _ev({"type": "content-end", "index": 1})
    + _end(
        "TOOL_CALL",
        {
            "billed_units": {"input_tokens": 3, "output_tokens": 4},
            "tokens": {"input_tokens": 300, "output_tokens": 40, "reasoning_tokens": 9},
            "cached_tokens": 256,
        },
    )
    + b"data: [DONE]\n\n"
)


def test_every_event() -> None:
    events, error = decode_collect(CohereDecoder(model="command-a"), [BODY])
    assert error is None
    check_invariants(events)
    start = events[0]
    assert isinstance(start, lb.StreamStart) and (start.response_id, start.model) == (
        "r1",
        "command-a",
    )
    assert [e.text for e in events if isinstance(e, lb.ReasoningDelta)] == ["think"]
    assert [e.text for e in events if isinstance(e, lb.TextDelta)] == ["Done."]
    items = [e for e in events if isinstance(e, lb.ProviderItem)]
    assert [i.data for i in items] == [{"type": "tool_plan", "tool_plan": "I will look."}]
    assert events.index(items[0]) < next(
        i for i, e in enumerate(events) if isinstance(e, lb.ToolCallStart)
    )
    ends = [e for e in events if isinstance(e, lb.ToolCallEnd)]
    assert [(e.id, e.name, e.arguments, e.index) for e in ends] == [
        ("f_1", "f", {"a": 1}, 0),
        ("g_2", "g", {}, 1),
    ]
    cites = [e for e in events if isinstance(e, lb.Citation)]
    assert [(c.url, c.title, c.cited_text) for c in cites] == [
        ("https://x.test", "T", "Done."),
        ("f_1:0", None, "Done."),
    ]
    finish = events[-1]
    assert isinstance(finish, lb.Finish)
    assert (finish.reason, finish.raw_reason) == ("tool_calls", "TOOL_CALL")
    assert finish.usage == lb.Usage(
        input_tokens=300, output_tokens=40, cached_input_tokens=256, reasoning_tokens=9
    )
    assert len((finish.provider_data or {})["cohere"]["citations"]) == 1
    assert_split_invariant(lambda: CohereDecoder(), BODY)


def test_unnamed_events_are_read_by_their_type() -> None:
    body = (
        START
        + _ev(
            {"type": "content-delta", "delta": {"message": {"content": {"text": "hi"}}}},
            named=False,
        )
        + _end("COMPLETE")
    )
    events, error = decode_collect(CohereDecoder(), [body])
    assert error is None and [e.text for e in events if isinstance(e, lb.TextDelta)] == ["hi"]


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        ("COMPLETE", "stop"),
        ("STOP_SEQUENCE", "stop"),
        ("MAX_TOKENS", "length"),
        ("ERROR_LIMIT", "length"),
        ("ERROR_TOXIC", "content_filter"),
        ("ERROR", "error"),
        ("TIMEOUT", "error"),
        ("USER_CANCEL", "other"),
        ("SOMETHING_NEW", "other"),
    ],
)
def test_finish_reasons(raw: str, want: str) -> None:
    events, _ = decode_collect(CohereDecoder(), [START + _end(raw)])
    assert isinstance(events[-1], lb.Finish) and (events[-1].reason, events[-1].raw_reason) == (
        want,
        raw,
    )


def test_an_error_finish_keeps_the_error_and_the_plan() -> None:
    body = (
        START
        + _m("tool-plan-delta", {"tool_plan": "plan"})
        + _end("ERROR", error="bad tool", error_type="INVALID_TOOL_GENERATION")
    )
    events, error = decode_collect(CohereDecoder(), [body])
    assert error is None
    assert [type(e).__name__ for e in events] == ["StreamStart", "ProviderItem", "Finish"]
    finish = events[-1]
    assert isinstance(finish, lb.Finish) and finish.usage is None
    assert finish.provider_data == {
        "cohere": {"error": "bad tool", "error_type": "INVALID_TOOL_GENERATION"}
    }


def test_a_call_cut_by_the_end_is_ended_and_a_missing_end_is_truncation() -> None:
    call = _m(
        "tool-call-start",
        {"tool_calls": {"id": "f_1", "function": {"name": "f", "arguments": '{"a": 1}'}}},
        index=0,
    )
    events, error = decode_collect(CohereDecoder(), [START + call + _end("TOOL_CALL")])
    assert error is None
    check_invariants(events)
    _, error = decode_collect(CohereDecoder(), [START + call])
    assert isinstance(error, lb.StreamTruncatedError)


@pytest.mark.parametrize(
    "body",
    [
        START + b"event: content-delta\ndata: {nope\n\n",
        START + b"event: content-delta\ndata: [1]\n\n",
        START + _m("tool-call-delta", {"tool_calls": {"function": {"arguments": "{}"}}}, index=5),
    ],
)
def test_malformed_events(body: bytes) -> None:
    _, error = decode_collect(CohereDecoder(), [body + _end("COMPLETE")])
    assert isinstance(error, lb.MalformedStreamError)


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (400, lb.InvalidRequestError),
        (401, lb.AuthenticationError),
        (404, lb.NotFoundError),
        (422, lb.InvalidRequestError),
        (429, lb.RateLimitError),
        (498, lb.AuthenticationError),
        (500, lb.ServerError),
        (503, lb.OverloadedError),
    ],
)
def test_http_errors(status: int, cls: type[Exception]) -> None:
    body = b'{"id": "e1", "message": "it failed"}'
    error = map_http_error(
        provider="cohere", status=status, headers={"x-request-id": "q"}, body=body
    )
    assert type(error) is cls
    assert (error.provider_message, error.status) == ("it failed", status)
