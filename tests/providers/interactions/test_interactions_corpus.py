"""Every real Interactions recording of corpus category L: the SSE streams (steps model and the
older content model) split at random offsets, and the whole ``Interaction`` objects.

Compared with ``.expected.json`` (google-genai 3.6.1 read the same bytes; text, thoughts, calls
and usage folded from its events): our text, reasoning, tool calls (id, name, arguments), the
status as ``Finish.raw_reason``, the usage under our convention, one ``ReasoningDelta`` carrying
each non-empty thought signature, and the event invariants.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llmbridge.events import Finish, ReasoningDelta, StreamEvent, Usage
from llmbridge.parts import ReasoningPart
from llmbridge.providers.gemini_interactions import InteractionsDecoder, interaction_events
from llmbridge.response import accumulate
from llmbridge.testing import assert_split_invariant, check_invariants, decode_collect
from tests import corpus

PROVIDER = "gemini-interactions"


def _streams() -> list[Any]:
    return [p for p in corpus.entries("L") if _is(p, ".sse")]


def _objects() -> list[Any]:
    return [p for p in corpus.entries("L") if _is(p, ".json")]


def _is(param: Any, suffix: str) -> bool:
    entry = param.values[0]
    return entry is None or entry["file"].endswith(suffix)


def _usage(sdk: dict[str, Any]) -> Usage:
    thoughts = sdk.get("total_thought_tokens", 0)
    return Usage(
        input_tokens=sdk.get("total_input_tokens", 0) + sdk.get("total_tool_use_tokens", 0),
        output_tokens=sdk.get("total_output_tokens", 0) + thoughts,
        cached_input_tokens=sdk.get("total_cached_tokens", 0),
        reasoning_tokens=thoughts,
    )


def _compare(entry: dict[str, Any], events: list[StreamEvent], *, stream: bool) -> None:
    want = corpus.expected(entry)
    assert want is not None and entry["expected_status"] == "ok"
    got = accumulate(events, provider=PROVIDER)
    assert got.text == (want["text"] or "")
    assert got.reasoning == (want["reasoning"] or "")
    assert [(c.id, c.name, c.arguments) for c in got.tool_calls] == [
        (c["id"], c["name"], c["arguments"]) for c in want["tool_calls"]
    ]
    finishes = [e for e in events if isinstance(e, Finish)]
    if want["status"] in ("in_progress", "queued"):
        assert finishes == []  # a background poll of a running interaction: no finish yet
        return
    check_invariants(events)
    assert finishes[-1].raw_reason == want["status"]
    assert finishes[-1].usage == (_usage(want["usage"]) if want.get("usage") else None)
    if stream:
        signed = [e for e in events if isinstance(e, ReasoningDelta) and e.signature]
        assert len(signed) == want["thought_signatures"]
        kept = [p.signature for p in got.message.content if isinstance(p, ReasoningPart)]
        assert [s for s in kept if s] == [e.signature for e in signed]  # sent back next turn


@pytest.mark.parametrize("entry", _streams())
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_streams_match_the_sdk_at_random_splits(entry: dict[str, Any], data: Any) -> None:
    raw = corpus.body(entry)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(raw)), max_size=12)))
    pieces = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
    events, error = decode_collect(InteractionsDecoder(provider=PROVIDER), pieces)
    assert error is None, error
    _compare(entry, events, stream=True)


@pytest.mark.parametrize("entry", _streams())
def test_streams_give_the_same_events_at_every_split(entry: dict[str, Any]) -> None:
    assert_split_invariant(
        lambda: InteractionsDecoder(provider=PROVIDER), corpus.body(entry), max_splits=40
    )


@pytest.mark.parametrize("entry", _streams())
def test_a_stream_cut_before_its_end_is_truncated_with_what_arrived(entry: dict[str, Any]) -> None:
    raw = corpus.body(entry)
    cut = raw[: raw.rindex(b"event: interaction.complete")]
    events, error = decode_collect(InteractionsDecoder(provider=PROVIDER), [cut])
    assert type(error).__name__ == "StreamTruncatedError"
    want = corpus.expected(entry)
    assert want is not None
    assert accumulate(events, provider=PROVIDER).text == (want["text"] or "")


@pytest.mark.parametrize("entry", _objects())
def test_whole_interactions_match_the_sdk(entry: dict[str, Any]) -> None:
    events = interaction_events(orjson.loads(corpus.body(entry)), provider=PROVIDER)
    _compare(entry, events, stream=False)


def _errors() -> list[Any]:
    if not corpus.present():
        return corpus.params([])
    return [p for p in corpus.entries("J_err") if p.values[0]["api"] == "gemini.interactions"]


@pytest.mark.parametrize("entry", _errors())
def test_recorded_error_bodies_are_the_sdks_error_classes(entry: dict[str, Any]) -> None:
    import llmbridge as lb
    from llmbridge.providers.gemini_interactions import create
    from llmbridge.providers.gemini_interactions.errors import stream_error

    want = corpus.expected(entry)
    assert want is not None
    provider = create(lb.ProviderConfig.from_mapping({"api_key": "k"}))
    body = corpus.body(entry)
    error = provider.map_error(status=entry["status_code"], headers={}, body=body)
    assert type(error).__name__ == want["sdk_exception"] and error.status == want["status_code"]
    event = {"event_type": "error", **orjson.loads(body)}  # the same object as an error event
    assert type(stream_error(provider=PROVIDER, error=event)) is type(error)
