"""The accumulator: a pure fold that enforces the event invariants."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llmbridge as lb
from llmbridge.events import event_from_dict, event_to_dict
from llmbridge.testing import check_invariants

texts = st.text(min_size=1, max_size=12)
args = st.dictionaries(
    st.text(min_size=1, max_size=5), st.integers() | st.text(max_size=5), max_size=3
)


@st.composite
def responses(draw: Any) -> tuple[list[lb.StreamEvent], dict[str, Any]]:
    """A well-formed event sequence plus what it must fold into."""
    events: list[lb.StreamEvent] = []
    text: list[str] = []
    reasoning: list[str] = []
    calls: list[tuple[str, str, dict[str, Any]]] = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["text", "reasoning", "call"]))
        if kind == "text":
            pieces = draw(st.lists(texts, min_size=1, max_size=4))
            events += [lb.TextDelta(p) for p in pieces]
            text += pieces
        elif kind == "reasoning":
            pieces = draw(st.lists(texts, min_size=1, max_size=3))
            events += [lb.ReasoningDelta(p) for p in pieces]
            events.append(lb.ReasoningDelta("", signature=f"sig{len(events)}"))
            reasoning += pieces
        else:
            call_id, name, value = (
                f"call_{len(calls)}",
                draw(st.sampled_from(["a", "b"])),
                draw(args),
            )
            raw = json.dumps(value)
            cuts = sorted(draw(st.lists(st.integers(0, len(raw)), max_size=4)))
            bounds = [0, *cuts, len(raw)]
            events.append(lb.ToolCallStart(call_id, name, len(calls)))
            events += [
                lb.ToolCallChunk(call_id, len(calls), raw[a:b])
                for a, b in zip(bounds, bounds[1:], strict=False)
            ]
            events.append(lb.ToolCallEnd(call_id, len(calls), name, value, raw))
            calls.append((call_id, name, value))
    reason = "tool_calls" if calls else draw(st.sampled_from(["stop", "length"]))
    usage = lb.Usage(input_tokens=draw(st.integers(0, 99)), output_tokens=draw(st.integers(0, 99)))
    events.append(lb.Finish(reason, reason, usage))
    expected = {
        "text": "".join(text),
        "reasoning": "".join(reasoning),
        "calls": calls,
        "usage": usage,
    }
    return events, expected


@given(responses())
@settings(max_examples=200, deadline=None)
def test_fold_preserves_text_reasoning_calls_and_usage(case: Any) -> None:
    events, expected = case
    check_invariants(events)
    resp = lb.accumulate(events, provider="x")
    assert resp.text == expected["text"]
    assert resp.reasoning == expected["reasoning"]
    assert [(c.id, c.name, c.arguments) for c in resp.tool_calls] == expected["calls"]
    assert resp.usage == expected["usage"]
    assert resp.finish_reason == events[-1].reason
    assert all(p.signature for p in resp.message.content if isinstance(p, lb.ReasoningPart))
    # the assistant message survives a JSON round trip (history is serialisable)
    assert lb.ChatMessage.model_validate_json(resp.message.model_dump_json()) == resp.message


@given(responses(), st.data())
@settings(max_examples=100, deadline=None)
def test_partial_response_at_any_point_loses_nothing(case: Any, data: Any) -> None:
    events, _ = case
    cut = data.draw(st.integers(0, len(events) - 1))
    acc = lb.Accumulator()
    for event in events[:cut]:
        acc.add(event)
    partial = acc.response()
    assert partial.finish_reason is None
    sent = "".join(e.text for e in events[:cut] if isinstance(e, lb.TextDelta))
    assert partial.text == sent
    open_args = "".join(e.arguments_delta for e in events[:cut] if isinstance(e, lb.ToolCallChunk))
    closed_args = "".join(c.raw_arguments or "" for c in partial.tool_calls)
    assert closed_args == open_args


def test_event_json_round_trip() -> None:
    events: list[lb.StreamEvent] = [
        lb.StreamStart("r1", "m"),
        lb.TextDelta("hi"),
        lb.ReasoningDelta("hm", signature="s"),
        lb.ToolCallStart("c", "f", 0),
        lb.ToolCallChunk("c", 0, "{}"),
        lb.ToolCallEnd("c", 0, "f", {}, "{}"),
        lb.ProviderItem({"type": "server_tool_use", "id": "s1"}, provider="anthropic"),
        lb.Finish("tool_calls", "tool_use", lb.Usage(1, 2, 0, 0, 1)),
    ]
    assert [event_from_dict(event_to_dict(e)) for e in events] == events


@pytest.mark.parametrize(
    "events",
    [
        [lb.ToolCallChunk("x", 0, "{")],
        [lb.ToolCallStart("x", "f", 0), lb.ToolCallEnd("x", 0, "f", {}, "{}")],
        [lb.ToolCallStart("x", "f", 0), lb.ToolCallStart("x", "f", 1)],
        [lb.ToolCallStart("x", "f", 0), lb.Finish("stop")],
        [lb.Finish("stop"), lb.TextDelta("late")],
    ],
    ids=[
        "chunk-before-start",
        "chunks-differ-from-raw",
        "id-reused",
        "finish-with-open-call",
        "after-finish",
    ],
)
def test_broken_invariants_are_event_order_errors(events: list[lb.StreamEvent]) -> None:
    acc = lb.Accumulator()
    with pytest.raises(lb.EventOrderError):
        for event in events:
            acc.add(event)


def test_text_around_tool_calls_keeps_order() -> None:
    resp = lb.accumulate(
        [
            lb.TextDelta("Let me "),
            lb.TextDelta("check."),
            lb.ToolCallStart("c1", "weather", 0),
            lb.ToolCallChunk("c1", 0, '{"city": "Oslo"}'),
            lb.ToolCallEnd("c1", 0, "weather", {"city": "Oslo"}, '{"city": "Oslo"}'),
            lb.Finish("tool_calls"),
        ]
    )
    kinds = [p.type for p in resp.message.content]
    assert kinds == ["text", "tool_call"]
    assert resp.text == "Let me check." and resp.tool_calls[0].arguments == {"city": "Oslo"}


def test_provider_items_land_in_the_message_in_stream_order() -> None:
    item = {"type": "web_search_call", "id": "ws_1", "status": "completed"}
    resp = lb.accumulate(
        [
            lb.TextDelta("Searching. "),
            lb.ProviderItem(item),
            lb.TextDelta("Found it."),
            lb.Finish("stop"),
        ],
        provider="openai-responses",
    )
    assert [p.type for p in resp.message.content] == ["text", "raw", "text"]
    raw = resp.message.content[1]
    assert isinstance(raw, lb.RawPart) and raw.provider == "openai-responses" and raw.data == item


def test_subclassed_events_fold_like_their_base() -> None:
    """The exact-type fast path and the exhaustive ``match`` give the same response."""

    class MyText(lb.TextDelta):
        pass

    class MyReasoning(lb.ReasoningDelta):
        pass

    class MyChunk(lb.ToolCallChunk):
        pass

    def stream(text: type[lb.TextDelta], reasoning: type[lb.ReasoningDelta], chunk: Any) -> Any:
        return [
            reasoning("think"),
            text("a"),
            text("b"),
            lb.ToolCallStart(id="c", name="f", index=0),
            chunk(id="c", index=0, arguments_delta='{"x": 1}'),
            lb.ToolCallEnd(id="c", index=0, name="f", arguments={"x": 1}, raw_arguments='{"x": 1}'),
            lb.Finish(reason="tool_calls"),
        ]

    plain = lb.accumulate(stream(lb.TextDelta, lb.ReasoningDelta, lb.ToolCallChunk))
    assert lb.accumulate(stream(MyText, MyReasoning, MyChunk)) == plain
    assert (plain.reasoning, plain.text, plain.tool_calls[0].arguments) == ("think", "ab", {"x": 1})


def test_an_unknown_event_type_is_not_ignored() -> None:
    class Unknown:
        type = "unknown"

    with pytest.raises(AssertionError, match="unreachable"):
        lb.Accumulator().add(Unknown())  # type: ignore[arg-type]
