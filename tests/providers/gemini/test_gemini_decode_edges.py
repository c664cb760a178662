"""The Gemini decoder at the edges mutation testing found unguarded (tests/MUTATION.md): where a
thought signature goes on a (streamed) function call, and which parts of a call carry its
arguments."""

from __future__ import annotations

from typing import Any

from llmbridge.events import ReasoningDelta, TextDelta, ToolCallStart
from llmbridge.providers.gemini.messages import NEXT_PART, PLACEMENT, SIGNATURE
from tests.providers.gemini.test_gemini_decode import calls, cand, run


def piece(path: str, value: str, **extra: Any) -> dict[str, Any]:
    """A continuation part of a streamed (Vertex) call: one string piece of its arguments."""
    args = [{"jsonPath": path, "stringValue": value}]
    return {"functionCall": {"partialArgs": args, "willContinue": True}, **extra}


END = {"functionCall": {}}  # the part that ends a streamed call


def test_a_signature_on_a_later_piece_of_a_streamed_call_reaches_the_call() -> None:
    events = run(
        cand({"functionCall": {"id": "c1", "name": "f", "willContinue": True}}),
        cand(piece("$.q", "a")),
        cand(piece("$.q", "b", **{SIGNATURE: "S"})),
        cand(END, finish="STOP"),
        provider="vertex",
    )
    (end,) = calls(events)
    assert (end.id, end.arguments) == ("c1", {"q": "ab"})
    assert end.provider_data == {"provider": "vertex", SIGNATURE: "S"}


def test_a_late_signature_keeps_the_generated_id_mark_and_the_first_signature_wins() -> None:
    late = run(
        cand({"functionCall": {"name": "f", "willContinue": True}}),
        cand(piece("$.q", "a", **{SIGNATURE: "S"})),
        cand(END, finish="STOP"),
        provider="vertex",
    )
    assert calls(late)[0].provider_data == {
        "generated_id": True,
        "provider": "vertex",
        SIGNATURE: "S",
    }
    first = run(
        cand({"functionCall": {"name": "f", "willContinue": True}, SIGNATURE: "A"}),
        cand(piece("$.q", "a", **{SIGNATURE: "B"})),
        cand(END, finish="STOP"),
    )
    assert calls(first)[0].provider_data == {
        "generated_id": True,
        "provider": "gemini",
        SIGNATURE: "A",
    }


def test_a_waiting_signature_goes_before_a_call_that_has_its_own() -> None:
    """An empty text part's signature is not the call's when the call brings one itself: it
    stays a signature of the part after it, so the encoder puts both back where they were."""
    events = run(
        cand({"text": "", SIGNATURE: "A"}),
        cand({"functionCall": {"name": "f", "args": {"x": 1}}, SIGNATURE: "B"}, finish="STOP"),
    )
    (signature,) = [e for e in events if isinstance(e, ReasoningDelta)]
    assert signature == ReasoningDelta("", "A", {PLACEMENT: NEXT_PART})
    (end,) = calls(events)
    assert events.index(signature) < events.index(end)
    assert end.provider_data == {"generated_id": True, "provider": "gemini", SIGNATURE: "B"}
    assert end.arguments == {"x": 1}


def test_a_call_part_with_a_name_that_is_not_a_string_is_no_tool_call() -> None:
    events = run(
        cand({"text": "a"}),
        cand({"functionCall": {"name": 7, "args": {"x": 1}}}),
        cand({"text": "b"}, finish="STOP"),
    )
    assert not [e for e in events if isinstance(e, ToolCallStart)]
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["a", "b"]


def test_arguments_streamed_in_the_naming_part_itself_are_kept() -> None:
    """``partialArgs`` beside the name: in one closed part, or on the first of several."""
    args = [{"jsonPath": "$.city", "stringValue": "Paris"}]
    one = run(cand({"functionCall": {"name": "f", "partialArgs": args}}, finish="STOP"))
    (end,) = calls(one)
    assert (end.arguments, end.raw_arguments) == ({"city": "Paris"}, '{"city":"Paris"}')
    several = run(
        cand({"functionCall": {"name": "f", "partialArgs": args, "willContinue": True}}),
        cand(piece("$.unit", "C")),
        cand(END, finish="STOP"),
        provider="vertex",
    )
    assert calls(several)[0].arguments == {"city": "Paris", "unit": "C"}


def test_whole_args_are_the_arguments_even_beside_partial_args() -> None:
    partial = [{"jsonPath": "$.city", "stringValue": "Par"}]
    call = {"name": "f", "args": {"city": "Paris"}, "partialArgs": partial}
    (end,) = calls(run(cand({"functionCall": call}, finish="STOP")))
    assert (end.arguments, end.raw_arguments) == ({"city": "Paris"}, '{"city":"Paris"}')
