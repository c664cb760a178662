"""One routine makes tool-call ids unique: the ledger's and history rewriting's (issue 31),
in time linear in the calls however often the wire repeats an id (issue 49, item 3)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
import pytest

import llmbridge as lb
from llmbridge.events import StreamEvent
from llmbridge.providers.cohere import CohereDecoder
from llmbridge.providers.history import MISTRAL_IDS, adapt_history
from llmbridge.providers.ollama_native import OllamaDecoder
from llmbridge.providers.openai import ChatCompletionsDecoder
from llmbridge.testing import check_invariants, decode_collect
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


# -- issue 49 item 3: a repeated wire id is linear, and named exactly as before -------------

REPEATS = 8_000


class _CountingSet(set[str]):
    """A set of taken ids that counts the look-ups made in it."""

    lookups = 0

    def __contains__(self, item: object) -> bool:
        _CountingSet.lookups += 1
        return super().__contains__(item)


def _count_lookups(monkeypatch: pytest.MonkeyPatch) -> type[_CountingSet]:
    """From now on every new ledger counts the ids it tries (in ``_CountingSet.lookups``)."""
    real = ToolCallLedger.__init__

    def counting(self: ToolCallLedger, **kwargs: Any) -> None:
        real(self, **kwargs)
        self._ids = _CountingSet()

    monkeypatch.setattr(ToolCallLedger, "__init__", counting)
    monkeypatch.setattr(_CountingSet, "lookups", 0)
    return _CountingSet


def _ids(events: list[StreamEvent]) -> list[str]:
    return [e.id for e in events if isinstance(e, lb.ToolCallEnd)]


def test_a_suffixed_id_that_collides_gets_a_unique_one() -> None:
    ledger = ToolCallLedger()
    out: list[StreamEvent] = []
    wire = ["x_3", "x", "x", "x_2", "x", "x", None, "call_6", None]
    ids = [ledger.open(i, "f", out).id for i in wire]
    assert ids == ["x_3", "x", "x_2", "x_2_2", "x_4", "x_5", "call_6", "call_6_2", "call_8"]


def test_8000_copies_of_one_id_try_each_candidate_once(monkeypatch: pytest.MonkeyPatch) -> None:
    tried = _count_lookups(monkeypatch)
    ledger = ToolCallLedger()
    out: list[StreamEvent] = []
    ids = [ledger.open("x", "f", out).id for _ in range(REPEATS)]
    assert ids == ["x"] + [f"x_{n}" for n in range(2, REPEATS + 1)]
    assert tried.lookups == REPEATS  # was REPEATS * (REPEATS + 1) / 2: 32 million


def test_generated_ids_skip_a_run_of_taken_ones_once(monkeypatch: pytest.MonkeyPatch) -> None:
    tried = _count_lookups(monkeypatch)
    ledger = ToolCallLedger()
    out: list[StreamEvent] = []
    for n in range(REPEATS, 2 * REPEATS):  # the wire takes call_8000 ... call_15999 itself
        ledger.open(f"call_{n}", "f", out)
    ids = [ledger.open(None, "f", out).id for _ in range(REPEATS)]  # from call_{count}
    assert ids == [f"call_{n}" for n in range(2 * REPEATS, 3 * REPEATS)]
    assert tried.lookups <= 3 * REPEATS


def _repeated_ollama(count: int) -> bytes:
    calls = [{"id": "x", "function": {"name": "f", "arguments": {"i": i}}} for i in range(count)]
    calls.append({"id": "x_2", "function": {"name": "f", "arguments": {}}})
    line = {"model": "m", "message": {"role": "assistant", "tool_calls": calls}, "done": False}
    done = {"model": "m", "message": {"role": "assistant"}, "done": True, "done_reason": "stop"}
    return orjson.dumps(line) + b"\n" + orjson.dumps(done) + b"\n"


def _repeated_chat(count: int) -> bytes:
    out = []
    for i in range(count + 1):
        call_id = "x" if i < count else "x_2"
        fragment = {"index": i, "id": call_id, "function": {"name": "f", "arguments": "{}"}}
        chunk = {
            "id": "c",
            "model": "m",
            "choices": [{"index": 0, "delta": {"tool_calls": [fragment]}}],
        }
        out.append(b"data: " + orjson.dumps(chunk) + b"\n\n")
    end = {
        "id": "c",
        "model": "m",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
    }
    return b"".join(out) + b"data: " + orjson.dumps(end) + b"\n\ndata: [DONE]\n\n"


def _cohere_event(data: dict[str, Any]) -> bytes:
    return b"event: " + data["type"].encode() + b"\ndata: " + orjson.dumps(data) + b"\n\n"


def _repeated_cohere(count: int) -> bytes:
    out = [_cohere_event({"id": "r", "type": "message-start", "delta": {"message": {}}})]
    for i in range(count + 1):
        call = {"id": "x" if i < count else "x_2", "type": "function"}
        call["function"] = {"name": "f", "arguments": "{}"}
        start = {"type": "tool-call-start", "index": i, "delta": {"message": {"tool_calls": call}}}
        out += [_cohere_event(start), _cohere_event({"type": "tool-call-end", "index": i})]
    end = {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL", "usage": {}}}
    return b"".join(out) + _cohere_event(end)


DECODERS: dict[str, tuple[Callable[[], Any], Callable[[int], bytes], str]] = {
    "ollama-native": (lambda: OllamaDecoder(), _repeated_ollama, "ndjson"),
    "openai-compatible": (
        lambda: ChatCompletionsDecoder(provider="openai-compatible"),
        _repeated_chat,
        "sse",
    ),
    "cohere": (lambda: CohereDecoder(), _repeated_cohere, "sse"),
}


@pytest.mark.parametrize("provider", sorted(DECODERS))
def test_repeated_wire_ids_through_each_decoder(
    provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    new_decoder, body, framing = DECODERS[provider]
    tried = _count_lookups(monkeypatch)
    events, error = decode_collect(new_decoder(), [body(REPEATS)], framing=framing)
    assert error is None
    check_invariants(events)
    suffixed = [f"x_{n}" for n in range(2, REPEATS + 1)]
    # the wire's own "x_2" comes last, after x_2 ... x_8000 were given out: it is x_2_2
    assert _ids(events) == ["x", *suffixed, "x_2_2"]
    assert tried.lookups <= 2 * (REPEATS + 1)
