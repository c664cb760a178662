"""The accumulator: a pure fold that enforces the event invariants."""

from __future__ import annotations

import json
from dataclasses import replace
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


# -- tool searches: each result merged into the search it answers, in linear time ----------


def _merged_the_old_way(events: list[lb.ToolSearchCall]) -> list[lb.ToolSearchCall]:
    """The searches as the scan of every search per result merged them (before issue 49)."""
    searches: list[lb.ToolSearchCall] = []
    for event in events:
        if event.tools is not None or event.error is not None:
            for i in range(len(searches) - 1, -1, -1):
                known = searches[i]
                waiting = known.tools is None and known.error is None
                if waiting and (event.id is None or known.id == event.id):
                    searches[i] = replace(known, tools=event.tools, error=event.error)
                    break
            else:
                searches.append(event)
            continue
        searches.append(event)
    return searches


search_events = st.lists(
    st.builds(
        lambda sid, kind: lb.ToolSearchCall(
            id=sid,
            query=None if kind else "q",
            tools=["t"] if kind == 1 else None,
            error="e" if kind == 2 else None,
        ),
        st.sampled_from([None, "", "a", "b", "c"]),
        st.sampled_from([0, 0, 1, 2]),
    ),
    max_size=30,
)


@settings(max_examples=400)
@given(events=search_events)
def test_search_results_merge_as_before(events: list[lb.ToolSearchCall]) -> None:
    acc = lb.Accumulator(provider="p")
    for event in events:
        acc.add(event)
    assert acc.response().tool_searches == _merged_the_old_way(events)


def test_many_searches_and_their_results_are_linear(monkeypatch: pytest.MonkeyPatch) -> None:
    """8,000 searches then their results, first one first, took 1.8 s (every result scanned
    every search): count the searches looked at."""
    looked: list[int] = []
    real = lb.Accumulator._last_waiting

    def counting(self: lb.Accumulator, slots: list[int] | None) -> int | None:
        before = len(slots or ())
        found = real(self, slots)
        looked.append(before - len(slots or ()))
        return found

    monkeypatch.setattr(lb.Accumulator, "_last_waiting", counting)
    n = 8_000
    acc = lb.Accumulator(provider="p")
    for i in range(n):
        acc.add(lb.ToolSearchCall(id=f"s{i}", query="q"))
    for i in range(n):
        acc.add(lb.ToolSearchCall(id=f"s{i}", tools=[f"t{i}"]))
    acc.add(lb.ToolSearchCall(id=None, tools=["late"]))  # no search waits: its own entry
    searches = acc.response().tool_searches
    assert [s.tools for s in searches[:n]] == [[f"t{i}"] for i in range(n)]
    assert searches[n].tools == ["late"] and len(searches) == n + 1
    assert sum(looked) <= 2 * n + 1
