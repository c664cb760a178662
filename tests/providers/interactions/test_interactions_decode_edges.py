"""Interactions events of a shape the API never sends, seen by the fuzzer (Python 3.13 drew it
first): the text fast path of a ``step.delta`` read the step's ``index`` as a dict key, and an
unhashable one (``[]``, ``{}``) escaped as a ``TypeError``; it is a ``MalformedStreamError``
with what came before it."""

from __future__ import annotations

from typing import Any

import pytest

import llmbridge as lb
from llmbridge.providers.gemini_interactions import InteractionsDecoder
from tests.fakes import decode_checked
from tests.providers.interactions.streams import INTERACTION_ID, sse


def _new() -> InteractionsDecoder:
    return InteractionsDecoder(provider="gemini-interactions")


def _opened(index: Any, delta: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"event_type": "interaction.created", "event_id": "evt_0",
         "interaction": {"id": INTERACTION_ID, "model": "gemini-3-flash-preview"}},
        {"event_type": "step.start", "event_id": "evt_1", "index": 0,
         "step": {"type": "model_output"}},
        {"event_type": "step.delta", "event_id": "evt_2", "index": 0,
         "delta": {"type": "text", "text": "Hi"}},
        {"event_type": "step.delta", "event_id": "evt_3", "index": index, "delta": delta},
    ]  # fmt: skip


@pytest.mark.parametrize("index", [[], {}, [0]], ids=["list", "dict", "list-of-0"])
@pytest.mark.parametrize(
    "delta",
    [{"type": "text", "text": " there"}, {"type": "arguments_delta", "arguments": '{"a'}],
    ids=["text", "arguments"],
)
def test_an_unhashable_step_index_is_a_malformed_stream_after_the_text_before_it(
    index: Any, delta: dict[str, Any]
) -> None:
    events, error = decode_checked(_new, sse(_opened(index, delta)))
    assert isinstance(error, lb.MalformedStreamError), error
    assert "unexpected shape" in str(error)
    assert [e.text for e in events if isinstance(e, lb.TextDelta)] == ["Hi"]


def test_an_int_index_of_an_open_step_still_takes_the_fast_path() -> None:
    events, error = decode_checked(_new, sse(_opened(0, {"type": "text", "text": " there"})))
    assert isinstance(error, lb.StreamTruncatedError)  # no interaction.completed: cut short
    assert [e.text for e in events if isinstance(e, lb.TextDelta)] == ["Hi", " there"]
