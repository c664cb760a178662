"""The Gemini decoder at the edges mutation testing found unguarded (tests/MUTATION.md): where a
thought signature goes on a (streamed) function call, and which parts of a call carry its
arguments."""

from __future__ import annotations

from typing import Any

import pytest

from llmbridge.errors import MalformedStreamError, RateLimitError, StreamTruncatedError
from llmbridge.events import ProviderItem, ReasoningDelta, StreamStart, TextDelta, ToolCallStart
from llmbridge.providers.gemini import GeminiDecoder
from llmbridge.providers.gemini.messages import NEXT_PART, PLACEMENT, SIGNATURE
from llmbridge.testing import decode_collect
from tests.providers.gemini.test_gemini_decode import calls, cand, finish, run, sse


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


def test_a_part_that_is_not_an_object_is_skipped_and_the_parts_after_it_still_come() -> None:
    events = run(cand({"text": "a"}, "junk", {"text": "b"}, finish="STOP"))
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["a", "b"]


def test_an_empty_or_non_string_signature_is_no_signature() -> None:
    events = run(
        cand({"text": "", SIGNATURE: ""}),
        cand({"text": "hmm", "thought": True, SIGNATURE: ""}),
        cand({"functionCall": {"id": "c1", "name": "f", "args": {}}, SIGNATURE: 5}),
        cand({"text": "ok"}, finish="STOP"),
    )
    reasoning = [e for e in events if isinstance(e, ReasoningDelta)]
    assert [(r.text, r.signature) for r in reasoning] == [("hmm", None)]
    assert calls(events)[0].provider_data is None


def test_thoughts_and_text_close_an_open_streamed_call_first() -> None:
    """A streamed call ends on the first part that is no piece of it (content included)."""
    for after in ({"text": "so", "thought": True}, {"text": "done"}):
        events = run(
            cand({"functionCall": {"name": "f", "willContinue": True}}),
            cand(piece("$.q", "a")),
            cand(after, finish="STOP"),
            provider="vertex",
        )
        (end,) = calls(events)
        assert end.arguments == {"q": "a"}
        last = next(e for e in events if isinstance(e, (ReasoningDelta, TextDelta)))
        assert events.index(end) < events.index(last)


def test_a_waiting_signature_goes_out_once_before_the_next_thought_or_signature() -> None:
    events = run(
        cand({"text": "", SIGNATURE: "A"}),
        cand({"text": "", SIGNATURE: "B"}),
        cand({"text": "hmm", "thought": True}),
        cand({"text": "", SIGNATURE: "C"}),
        cand({"text": "answer"}, finish="STOP"),
    )
    reasoning = [e for e in events if isinstance(e, ReasoningDelta)]
    assert reasoning == [
        ReasoningDelta("", "A", {PLACEMENT: NEXT_PART}),
        ReasoningDelta("", "B", {PLACEMENT: NEXT_PART}),
        ReasoningDelta("hmm", None),
        ReasoningDelta("", "C", {PLACEMENT: NEXT_PART}),
    ]
    assert events.index(reasoning[-1]) < events.index(TextDelta("answer"))


def test_unusable_argument_pieces_are_named_on_the_call_and_the_rest_kept() -> None:
    events = run(
        cand({"functionCall": {"name": "f", "willContinue": True}}),
        cand(piece("$.q", "a")),
        cand(piece("no path", "x")),
        cand(END, finish="STOP"),
        provider="vertex",
    )
    (end,) = calls(events)
    assert end.arguments == {"q": "a"}
    assert end.provider_data == {
        "generated_id": True,
        "partial_args_errors": ["unusable partial argument at 'no path'"],
    }


def test_a_streamed_call_without_pieces_ends_like_a_whole_call_without_args() -> None:
    streamed = run(
        cand({"functionCall": {"name": "f", "willContinue": True}}),
        cand(END, finish="STOP"),
        provider="vertex",
    )
    whole = run(cand({"functionCall": {"name": "f"}}, finish="STOP"), provider="vertex")
    assert streamed[1:] == whole[1:]
    (end,) = calls(streamed)
    assert (end.arguments, end.raw_arguments) == ({}, "")


def test_a_body_ending_without_a_finish_reason_says_so_and_names_the_host() -> None:
    decoder = GeminiDecoder(provider="vertex")
    assert decoder.feed("", '{"candidates": [{"content": {"parts": [{"text": "a"}]}}]}')
    with pytest.raises(StreamTruncatedError) as info:
        decoder.close()
    assert info.value.provider == "vertex"
    assert str(info.value).startswith("the Gemini stream ended before a finishReason")


def test_of_several_candidates_only_candidate_0_is_read_wherever_it_stands() -> None:
    """Its ``index`` may be left out (0 is the proto default, which JSON omits)."""

    def two(first: str, second: str, **zero: Any) -> dict[str, Any]:
        other = {"index": 1, "content": {"parts": [{"text": first}]}}
        return {"candidates": [other, {"content": {"parts": [{"text": second}]}, **zero}]}

    events = run(two("x", "a", index=0), two("y", "b", finishReason="STOP"))
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["a", "b"]


def test_a_response_id_or_model_that_is_empty_or_not_a_string_is_none() -> None:
    """The stream start then names no response, and generated call ids do not use it."""
    for rid, model in (("", 7), (5, None)):
        first = {"candidates": [{"content": {"parts": [{"functionCall": {"name": "f"}}]}}]}
        events = run({**first, "responseId": rid, "modelVersion": model}, cand(finish="STOP"))
        assert events[0] == StreamStart(None, None)
        assert not calls(events)[0].id.startswith(f"call_{rid}_")


def test_data_that_is_json_but_no_object_says_what_came_and_names_the_host() -> None:
    with pytest.raises(MalformedStreamError) as info:
        GeminiDecoder(provider="vertex").feed("", "[1, 2]")
    assert info.value.provider == "vertex"
    assert str(info.value).startswith("Gemini sent a list where a response object was expected")


def test_the_last_chunk_as_gemini_sends_it_text_and_finish_without_an_index() -> None:
    """Gemini leaves ``index`` out of most candidates (the proto default, 0): a last chunk of
    text, ``finishReason`` and usage still ends the stream with its reason and counts."""
    last = cand(
        {"text": " Paris."},
        finish="STOP",
        usageMetadata={"promptTokenCount": 4, "candidatesTokenCount": 3},
    )
    del last["candidates"][0]["index"]
    events = run(cand({"text": "It is"}), last)
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["It is", " Paris."]
    end = finish(events)
    assert end.reason == "stop" and end.usage is not None
    assert (end.usage.input_tokens, end.usage.output_tokens) == (4, 3)


def _collect(*chunks: dict[str, Any]) -> tuple[list[Any], Any]:
    return decode_collect(GeminiDecoder(provider="gemini"), [sse(*chunks)])


def test_an_error_or_prompt_feedback_beside_one_text_part_is_read_not_skipped() -> None:
    """A chunk of one text part is read on a fast path; an ``error`` or ``promptFeedback`` in
    the same chunk still ends the stream as an error or a content-filter finish."""
    failed = cand(
        {"text": "b"}, error={"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}
    )
    events, error = _collect(cand({"text": "a"}), failed)
    assert [e for e in events if isinstance(e, TextDelta)] == [TextDelta("a")]
    assert isinstance(error, RateLimitError) and error.provider == "gemini"
    blocked = cand({"text": "b"}, promptFeedback={"blockReason": "SAFETY"})
    events, error = _collect(cand({"text": "a"}), blocked)
    assert error is None and finish(events).reason == "content_filter"
    assert finish(events).provider_data == {"prompt_feedback": {"blockReason": "SAFETY"}}


def test_usage_given_only_on_a_plain_text_chunk_is_the_streams_usage() -> None:
    counted = cand({"text": "b"}, usageMetadata={"promptTokenCount": 7, "candidatesTokenCount": 2})
    usage = finish(run(cand({"text": "a"}), counted, cand(finish="STOP"))).usage
    assert usage is not None and (usage.input_tokens, usage.output_tokens) == (7, 2)


def test_an_empty_text_adds_nothing_and_a_non_string_text_is_kept_as_an_item() -> None:
    events = run(cand({"text": "a"}), cand({"text": ""}), cand({"text": 5}), cand(finish="STOP"))
    assert [e for e in events if isinstance(e, TextDelta)] == [TextDelta("a")]
    assert [e.data for e in events if isinstance(e, ProviderItem)] == [{"text": 5}]


def test_blank_data_is_skipped_and_other_non_json_is_an_error_quoting_its_start() -> None:
    decoder = GeminiDecoder(provider="vertex")
    assert decoder.feed("", "") == [] and decoder.feed("", "  \t") == []
    with pytest.raises(MalformedStreamError) as caught:
        decoder.feed("", "<html>" + "x" * 300)
    assert caught.value.provider == "vertex"
    said = repr("<html>" + "x" * 114)  # the first 120 characters
    assert caught.value.message == f"Gemini sent a data line that is not JSON: {said}"
