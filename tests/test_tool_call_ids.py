"""One routine makes tool-call ids unique: the ledger's and history rewriting's (issue 31)."""

from __future__ import annotations

import llmbridge as lb
from llmbridge.events import StreamEvent
from llmbridge.providers.history import MISTRAL_IDS, adapt_history
from llmbridge.tool_calls import ToolCallLedger, unique_id


def test_unique_id_takes_the_first_free_candidate_from_start() -> None:
    assert unique_id(lambda n: f"c{n}", set()) == "c0"
    assert unique_id(lambda n: f"c{n}", {"c0", "c1", "c3"}) == "c2"
    assert unique_id(lambda n: f"c{n}", {"c5"}, start=5) == "c6"


def test_the_ledger_suffixes_repeats_and_skips_taken_generated_ids() -> None:
    ledger = ToolCallLedger(id_prefix="call_")
    out: list[StreamEvent] = []
    ids = [ledger.open(i, "f", out).id for i in ("a", "a", "a", "call_1", None, None)]
    assert ids == ["a", "a_2", "a_3", "call_1", "call_4", "call_5"]


def test_history_rewrites_colliding_ids_one_to_one() -> None:
    calls = [lb.ToolCallPart(id=f"toolu_{i}", name="f", arguments={}) for i in range(40)]
    results = [
        lb.ToolResultPart(tool_call_id=c.id, content=[lb.TextPart(text="ok")]) for c in calls
    ]
    messages = [
        lb.ChatMessage(role="assistant", content=list(calls)),
        lb.ChatMessage(role="user", content=list(results)),
    ]
    adapted = adapt_history(messages, provider="mistral", ids=MISTRAL_IDS)
    new = list(adapted.ids.values())
    assert len(set(new)) == 40 and all(MISTRAL_IDS.accepts(i) for i in new)
    sent = [p.id for p in adapted.messages[0].content if isinstance(p, lb.ToolCallPart)]
    answered = [
        p.tool_call_id for p in adapted.messages[1].content if isinstance(p, lb.ToolResultPart)
    ]
    assert sent == answered == new
