"""PromptToolDecoder: wrapping a provider decoder, finish rewrite, rescue mode, complete()."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from helpers import ends, normalize, text_of

import llmbridge as lb
from llmbridge import (
    Finish,
    ReasoningDelta,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
    ToolSpec,
    Usage,
    accumulate,
)
from llmbridge.errors import StreamTruncatedError
from llmbridge.events import StreamEvent, ToolCallChunk
from llmbridge.prompt_tools import TOOL_CALL, PromptToolDecoder
from llmbridge.providers.openai.decode import ChatCompletionsDecoder
from llmbridge.testing import assert_split_invariant, check_invariants, decode_body
from tests.fakes import sse_body

TOOLS = [
    ToolSpec.from_json_schema(
        "get_weather",
        "Weather for a city",
        {"type": "object", "properties": {"city": {"type": "string"}}},
    ),
    ToolSpec.from_json_schema(
        "search", "Search", {"type": "object", "properties": {"q": {"type": "string"}}}
    ),
]


class ScriptDecoder:
    """Inner decoder whose SSE data is one JSON event description per event."""

    def __init__(self) -> None:
        self.finished = False

    def feed(self, event: str, data: str) -> list[StreamEvent]:
        obj = json.loads(data)
        kind = obj.pop("kind")
        if kind == "text":
            return [TextDelta(obj["text"])]
        if kind == "reasoning":
            return [ReasoningDelta(obj["text"])]
        if kind == "native_call":
            i, cid = obj["index"], obj["id"]
            return [
                ToolCallStart(id=cid, name=obj["name"], index=i),
                ToolCallChunk(id=cid, index=i, arguments_delta="{}"),
                ToolCallEnd(id=cid, index=i, name=obj["name"], arguments={}, raw_arguments="{}"),
            ]
        if kind == "finish":
            self.finished = True
            return [Finish(reason=obj["reason"], raw_reason=obj["reason"], usage=Usage(5, 7))]
        return []

    def close(self) -> list[StreamEvent]:
        if not self.finished:
            raise StreamTruncatedError("no finish")
        return []


def feed_all(
    decoder: PromptToolDecoder, items: list[dict[str, Any]], *, close: bool = True
) -> list[StreamEvent]:
    out: list[StreamEvent] = []
    for item in items:
        out.extend(decoder.feed("", json.dumps(item)))
    if close:
        out.extend(decoder.close())
    return out


def texts(*parts: str) -> list[dict[str, Any]]:
    return [{"kind": "text", "text": p} for p in parts]


CALL = '<function_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</function_call>'


def test_calls_in_text_become_tool_calls_and_finish_becomes_tool_calls() -> None:
    pieces = ["I'll look", " that up.\n<func", CALL[5:40], CALL[40:], "\n"]
    events = feed_all(
        PromptToolDecoder(ScriptDecoder(), tools=TOOLS),
        [*texts(*pieces), {"kind": "finish", "reason": "stop"}],
    )
    check_invariants(events)
    finish = events[-1]
    assert isinstance(finish, Finish)
    assert (finish.reason, finish.raw_reason, finish.usage) == ("tool_calls", "stop", Usage(5, 7))
    response = accumulate(events)
    assert response.text == "I'll look that up.\n\n"
    (call,) = response.tool_calls
    assert (call.id, call.name, call.arguments) == ("call_0", "get_weather", {"city": "Paris"})
    assert response.finish_reason == "tool_calls"


def test_plain_text_events_pass_through_as_the_same_objects() -> None:
    inner = ScriptDecoder()
    decoder = PromptToolDecoder(inner, tools=TOOLS)
    (event,) = decoder.feed("", json.dumps({"kind": "text", "text": "no tags here"}))
    assert event == TextDelta("no tags here")
    events = feed_all(decoder, [{"kind": "finish", "reason": "stop"}])
    assert isinstance(events[-1], Finish) and events[-1].reason == "stop"


def test_held_text_is_released_before_finish_and_reasoning_passes() -> None:
    items = [
        {"kind": "reasoning", "text": "hmm"},
        *texts("a <", "function_cal"),
        {"kind": "finish", "reason": "length"},
    ]
    events = feed_all(PromptToolDecoder(ScriptDecoder(), tools=TOOLS), items)
    check_invariants(events)
    assert [e.type for e in normalize(events)] == ["reasoning_delta", "text_delta", "finish"]
    assert text_of(events) == "a <function_cal"
    assert events[-1] == Finish(reason="length", raw_reason="length", usage=Usage(5, 7))


def test_call_cut_by_length_is_flagged_and_length_kept() -> None:
    items = [
        *texts('<function_call>{"name": "search", "arguments": {"q": "pa'),
        {"kind": "finish", "reason": "length"},
    ]
    events = feed_all(PromptToolDecoder(ScriptDecoder(), tools=TOOLS), items)
    check_invariants(events)
    (end,) = ends(events)
    assert end.error == "the stream ended inside the tool call"
    assert events[-1].reason == "length"  # type: ignore[union-attr]
    response = accumulate(events)
    assert response.tool_calls[0].error == "the stream ended inside the tool call"
    assert response.tool_calls[0].raw_arguments == '{"q": "pa'


def test_inner_errors_propagate_unchanged() -> None:
    decoder = PromptToolDecoder(ScriptDecoder(), tools=TOOLS)
    feed_all(decoder, texts("hi"), close=False)
    with pytest.raises(StreamTruncatedError):
        decoder.close()


def test_rescue_mode_extracts_leaked_hermes_calls_after_native_ones() -> None:
    items = [
        {"kind": "native_call", "id": "call_abc", "name": "search", "index": 0},
        *texts('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'),
        *texts('<tool_call>{"name": "undeclared", "arguments": {}}</tool_call>'),
        {"kind": "finish", "reason": "stop"},
    ]
    events = feed_all(PromptToolDecoder(ScriptDecoder(), tools=TOOLS, rescue=True), items)
    check_invariants(events)
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert [(s.id, s.name, s.index) for s in starts] == [
        ("call_abc", "search", 0),
        ("call_text_0", "get_weather", 1),
    ]
    assert text_of(events) == '<tool_call>{"name": "undeclared", "arguments": {}}</tool_call>'
    assert events[-1].reason == "tool_calls"  # type: ignore[union-attr]


def test_rescue_without_leaked_calls_keeps_stop() -> None:
    items = [*texts("Just an answer with <b>html</b>."), {"kind": "finish", "reason": "stop"}]
    events = feed_all(PromptToolDecoder(ScriptDecoder(), tools=TOOLS, rescue=True), items)
    assert text_of(events) == "Just an answer with <b>html</b>."
    assert events[-1].reason == "stop"  # type: ignore[union-attr]


def test_dialect_and_id_prefix_options() -> None:
    items = [
        *texts('<tool_call>{"name": "search", "arguments": {"q": "x"}}</tool_call>'),
        {"kind": "finish", "reason": "stop"},
    ]
    events = feed_all(
        PromptToolDecoder(ScriptDecoder(), tools=TOOLS, dialect=TOOL_CALL, id_prefix="call_2_"),
        items,
    )
    assert [e.id for e in ends(events)] == ["call_2_0"]


def _openai_body(pieces: list[str]) -> bytes:
    out = []
    for i, piece in enumerate(pieces):
        delta = {"role": "assistant", "content": piece} if i == 0 else {"content": piece}
        chunk = {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
        }
        out.append(b"data: " + json.dumps(chunk).encode() + b"\n\n")
    last = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30},
    }
    out.append(b"data: " + json.dumps(last).encode() + b"\n\ndata: [DONE]\n\n")
    return b"".join(out)


def test_over_a_real_chat_completions_stream_split_at_every_byte() -> None:
    text = (
        'Sure.\n<function_call>{"name": "search", "arguments": {"q": "é <x> {}"}}</function_call>'
    )
    body = _openai_body([text[i : i + 7] for i in range(0, len(text), 7)])

    def new() -> PromptToolDecoder:
        return PromptToolDecoder(ChatCompletionsDecoder(provider="openai"), tools=TOOLS)

    _events, error = assert_split_invariant(new, body, max_splits=200)
    assert error is None
    raw = decode_body(new(), [body])
    check_invariants(raw)
    response = accumulate(raw)
    assert response.text == "Sure.\n"
    assert [(c.name, c.arguments) for c in response.tool_calls] == [("search", {"q": "é <x> {}"})]
    assert response.finish_reason == "tool_calls"
    assert response.usage is not None and response.usage.output_tokens == 20


def test_public_surface_and_decoder_protocol() -> None:
    import llmbridge.prompt_tools as fallback
    from llmbridge.providers.base import Decoder

    assert set(fallback.__all__) == {
        "FUNCTION_CALL",
        "HARMONY",
        "KIMI",
        "KNOWN_DIALECTS",
        "LLAMA_PYTHON_TAG",
        "MISTRAL",
        "TOOL_CALL",
        "CallBody",
        "Dialect",
        "Plan",
        "PromptToolDecoder",
        "ToolCallParser",
        "call_id_prefix",
        "choose_tool_mode",
        "merge_system",
        "plan",
        "prepare_request",
        "render_call",
        "render_instructions",
        "render_result",
        "rescues_by_default",
        "rewrite_history",
    }
    assert all(hasattr(fallback, name) for name in fallback.__all__)
    assert isinstance(PromptToolDecoder(ScriptDecoder(), tools=TOOLS), Decoder)


def test_a_rescue_is_reported_on_the_finish_event() -> None:
    items = [
        *texts('[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}'),
        *texts('<|python_tag|>{"name": "search", "parameters": {"q": "x"}}<|eom_id|>'),
        {"kind": "finish", "reason": "stop"},
    ]
    events = feed_all(PromptToolDecoder(ScriptDecoder(), tools=TOOLS, rescue=True), items)
    finish = events[-1]
    assert isinstance(finish, Finish) and finish.reason == "tool_calls"
    assert finish.provider_data == {
        "warnings": ["rescued 2 tool call(s) the server sent as text (mistral, python_tag markup)"]
    }


def test_prompt_mode_extraction_is_not_a_rescue_warning() -> None:
    items = [*texts(CALL), {"kind": "finish", "reason": "stop"}]
    events = feed_all(PromptToolDecoder(ScriptDecoder(), tools=TOOLS), items)
    assert isinstance(events[-1], Finish) and events[-1].provider_data is None


def _chunks(*texts: str) -> bytes:
    rows = [{"choices": [{"index": 0, "delta": {"content": t}}]} for t in texts]
    return sse_body(*rows)


class _Broken(httpx.AsyncByteStream):
    def __init__(self, body: bytes) -> None:
        self.body = body

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.body
        raise httpx.ReadError("connection reset")


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("texts", "text", "calls"),
    [
        (("Hi <func",), "Hi <func", []),  # a marker prefix held back: text after all
        (('Hi <function_call>{"name": "search", "arguments": {"q": "ca',), "Hi ", ["search"]),
    ],
)
async def test_a_broken_stream_keeps_what_the_parser_held_in_the_partial(
    texts: tuple[str, ...], text: str, calls: list[str]
) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        stream = _Broken(_chunks(*texts))
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=stream)

    http = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    client = lb.Client(http_client=http, providers={"openai": {"api_key": "sk-test"}})
    async with client:
        with pytest.raises(lb.LLMBridgeError) as info:
            await client.complete(
                "openai:gpt-4o", [lb.ChatMessage.user("hi")], tools=TOOLS, tool_mode="prompt"
            )
    partial = info.value.partial
    assert partial is not None and partial.text == text
    assert [c.name for c in partial.tool_calls] == calls
    assert all(c.error for c in partial.tool_calls)  # cut off inside its markup
