"""The Gemini stream decoder on the failure modes and quirks named in issue 5."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmbridge.errors import (
    APIError,
    LLMBridgeError,
    MalformedStreamError,
    RateLimitError,
    StreamTruncatedError,
)
from llmbridge.events import (
    Finish,
    ProviderItem,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallChunk,
    ToolCallEnd,
    ToolCallStart,
)
from llmbridge.providers.gemini import GeminiDecoder
from llmbridge.providers.gemini.messages import SIGNATURE
from llmbridge.response import accumulate
from llmbridge.testing import assert_split_invariant, check_invariants, decode_collect
from tests.fakes import sse_body

sse = partial(sse_body, crlf=True)  # Gemini ends its lines with CRLF


def cand(*parts: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "responseId": "resp1", **extra}


def run(*chunks: dict[str, Any], provider: str = "gemini") -> list[StreamEvent]:
    events, error = decode_collect(GeminiDecoder(provider=provider), [sse(*chunks)])
    if error is not None:
        raise error
    check_invariants(events)
    return events


def calls(events: list[StreamEvent]) -> list[ToolCallEnd]:
    return [e for e in events if isinstance(e, ToolCallEnd)]


def finish(events: list[StreamEvent]) -> Finish:
    last = events[-1]
    assert isinstance(last, Finish)
    return last


def test_usage_last_snapshot_wins_even_after_the_finish_chunk() -> None:
    events = run(
        cand({"text": "a"}, usageMetadata={"promptTokenCount": 5}),
        cand(
            {"text": "b"},
            finish="STOP",
            usageMetadata={"promptTokenCount": 5, "candidatesTokenCount": 1},
        ),
        {
            "usageMetadata": {
                "promptTokenCount": 5,
                "candidatesTokenCount": 2,
                "thoughtsTokenCount": 7,
                "cachedContentTokenCount": 3,
                "toolUsePromptTokenCount": 4,
            }
        },
    )
    usage = finish(events).usage
    assert usage is not None
    assert (usage.input_tokens, usage.cached_input_tokens) == (9, 3)
    assert (usage.output_tokens, usage.reasoning_tokens) == (9, 7)


def test_no_usage_at_all_gives_none() -> None:
    assert finish(run(cand({"text": "hi"}, finish="STOP"))).usage is None


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("STOP", "stop"),
        ("MAX_TOKENS", "length"),
        ("SAFETY", "content_filter"),
        ("RECITATION", "content_filter"),
        ("BLOCKLIST", "content_filter"),
        ("PROHIBITED_CONTENT", "content_filter"),
        ("SPII", "content_filter"),
        ("MALFORMED_FUNCTION_CALL", "error"),
        ("LANGUAGE", "other"),
        ("SOMETHING_NEW", "other"),
    ],
)
def test_finish_reasons(raw: str, reason: str) -> None:
    end = finish(run(cand({"text": "x"}, finish=raw)))
    assert (end.reason, end.raw_reason) == (reason, raw)


def test_stop_after_calls_is_tool_calls() -> None:
    events = run(cand({"functionCall": {"name": "f", "args": {"a": 1}}}, finish="STOP"))
    assert finish(events).reason == "tool_calls"


def test_blocked_prompt_is_a_content_filter_finish() -> None:
    events = run(
        {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 3}}
    )
    end = finish(events)
    assert (end.reason, end.raw_reason) == ("content_filter", "SAFETY")
    assert end.provider_data == {"prompt_feedback": {"blockReason": "SAFETY"}}


def test_thought_parts_are_reasoning_with_their_signature() -> None:
    events = run(
        cand({"text": "think", "thought": True}),
        cand({"text": " more", "thought": True, "thoughtSignature": "S1"}),
        cand({"text": "answer"}, finish="STOP"),
    )
    reasoning = [e for e in events if isinstance(e, ReasoningDelta)]
    assert [(r.text, r.signature) for r in reasoning] == [("think", None), (" more", "S1")]
    assert accumulate(events).reasoning == "think more"


def test_signature_on_empty_part_goes_to_the_next_function_call() -> None:
    events = run(
        cand({"text": "", "thoughtSignature": "SIG"}),
        cand({"functionCall": {"name": "f", "args": {}}}),
        cand({"text": ""}, finish="STOP"),
    )
    (end,) = calls(events)
    assert end.provider_data == {
        "generated_id": True,
        "provider": "gemini",
        "thoughtSignature": "SIG",
    }
    assert not [e for e in events if isinstance(e, ReasoningDelta)]


def test_final_signature_only_part_is_kept_for_the_round_trip() -> None:
    events = run(cand({"text": "4"}), cand({"text": "", "thoughtSignature": "SIG"}, finish="STOP"))
    sig = [e for e in events if isinstance(e, ReasoningDelta)]
    assert [(s.text, s.signature) for s in sig] == [("", "SIG")]
    assert accumulate(events).text == "4"


def test_calls_without_ids_get_stable_unique_generated_ids_in_order() -> None:
    chunks = (
        cand({"functionCall": {"name": "a", "args": {"x": 1}}}, {"functionCall": {"name": "b"}}),
        cand({"functionCall": {"name": "a", "args": {"x": 2}}}, finish="STOP"),
    )
    first, second = run(*chunks), run(*chunks)
    ends = calls(first)
    assert [e.name for e in ends] == ["a", "b", "a"]
    assert [e.index for e in ends] == [0, 1, 2]
    assert len({e.id for e in ends}) == 3
    assert [e.id for e in ends] == [e.id for e in calls(second)]
    assert all(e.provider_data and e.provider_data["generated_id"] for e in ends)
    assert ends[1].raw_arguments == "" and ends[1].arguments == {}


def test_api_ids_are_kept_and_a_repeated_one_is_replaced() -> None:
    ends = calls(
        run(
            cand({"functionCall": {"id": "k1", "name": "a", "args": {}}}),
            cand({"functionCall": {"id": "k1", "name": "a", "args": {}}}, finish="STOP"),
        )
    )
    assert ends[0].id == "k1" and ends[0].provider_data is None
    assert ends[1].id != "k1" and ends[1].provider_data == {"generated_id": True}


def test_whole_call_is_start_one_chunk_end() -> None:
    events = run(cand({"functionCall": {"name": "f", "args": {"q": "é"}}}, finish="STOP"))
    kinds = [type(e) for e in events[1:-1]]
    assert kinds == [ToolCallStart, ToolCallChunk, ToolCallEnd]
    assert calls(events)[0].arguments == {"q": "é"}


def test_non_object_arguments_are_flagged_not_crashed() -> None:
    (end,) = calls(run(cand({"functionCall": {"name": "f", "args": [1, 2]}}, finish="STOP")))
    assert end.arguments == {} and end.raw_arguments == "[1, 2]".replace(" ", "")
    assert end.error is not None


def test_streamed_arguments_assemble_nested_paths() -> None:
    def piece(path: str, **value: Any) -> dict[str, Any]:
        return {
            "functionCall": {"partialArgs": [{"jsonPath": path, **value}], "willContinue": True}
        }

    events = run(
        cand({"functionCall": {"name": "cook", "willContinue": True}, "thoughtSignature": "S"}),
        cand(piece("$.r.items[0].name", stringValue="Egg", willContinue=True)),
        cand(piece("$.r.items[0].name", stringValue="s")),
        cand(piece("$.r.items[1]['odd key']", boolValue=True)),
        cand(piece("$.r.n", numberValue=2)),
        cand(piece("$.r.none", nullValue="NULL_VALUE")),
        cand({"functionCall": {}}),
        cand({"text": ""}, finish="STOP"),
        provider="vertex",
    )
    (end,) = calls(events)
    assert end.arguments == {
        "r": {"items": [{"name": "Eggs"}, {"odd key": True}], "n": 2, "none": None}
    }
    assert end.provider_data == {
        "generated_id": True,
        "provider": "vertex",
        "thoughtSignature": "S",
    }


def test_streamed_call_is_closed_by_the_next_call_or_the_end() -> None:
    events = run(
        cand({"functionCall": {"name": "a", "willContinue": True}}),
        cand({"functionCall": {"name": "b", "willContinue": True}}),
        cand(
            {
                "functionCall": {
                    "partialArgs": [{"jsonPath": "$.x", "stringValue": "1"}],
                    "willContinue": True,
                }
            }
        ),
        cand({"text": ""}, finish="STOP"),
    )
    ends = calls(events)
    assert [(e.name, e.arguments) for e in ends] == [("a", {}), ("b", {"x": "1"})]


def test_error_object_raises_typed_error_after_the_text() -> None:
    body = sse(
        cand({"text": "partial"}),
        {"error": {"code": 429, "message": "Resource exhausted", "status": "RESOURCE_EXHAUSTED"}},
    )
    events, error = decode_collect(GeminiDecoder(provider="gemini"), [body])
    assert isinstance(error, RateLimitError) and error.provider == "gemini"
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["partial"]


def test_cut_off_stream_raises_truncated_after_the_events() -> None:
    events, error = decode_collect(GeminiDecoder(provider="gemini"), [sse(cand({"text": "a"}))])
    assert isinstance(error, StreamTruncatedError)
    assert any(isinstance(e, TextDelta) for e in events)


def test_cut_inside_a_streamed_call_leaves_it_open_for_the_partial_response() -> None:
    body = sse(cand({"functionCall": {"name": "a", "willContinue": True}}))
    events, error = decode_collect(GeminiDecoder(provider="vertex"), [body])
    assert isinstance(error, StreamTruncatedError)
    assert [type(e) for e in events[1:]] == [ToolCallStart]


@pytest.mark.parametrize("data", ["{not json", "[1, 2]", '"text"'])
def test_unreadable_data_is_malformed(data: str) -> None:
    with pytest.raises(MalformedStreamError):
        GeminiDecoder(provider="gemini").feed("", data)


def test_server_side_parts_are_provider_items_in_stream_order() -> None:
    code = {"executableCode": {"language": "PYTHON", "code": "print(1)"}, SIGNATURE: "sig"}
    result = {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1\n"}}
    chunk = cand({"text": "Let me run it. "}, code, result, {"text": "1"}, finish="STOP")
    chunk["candidates"][0]["groundingMetadata"] = {"x": 1}
    events = run(chunk)
    assert not calls(events)
    body = [e for e in events if isinstance(e, (TextDelta, ProviderItem, ReasoningDelta))]
    # the part keeps its own signature: no separate signature event for it
    assert body == [
        TextDelta("Let me run it. "),
        ProviderItem(code),
        ProviderItem(result),
        TextDelta("1"),
    ]
    assert finish(events).provider_data == {"grounding_metadata": {"x": 1}}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=3)
    ),
    max_leaves=12,
)
part_keys = st.sampled_from(
    [
        "text",
        "thought",
        "thoughtSignature",
        "functionCall",
        "inlineData",
        "name",
        "args",
        "willContinue",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {},
            optional={
                "candidates": st.lists(
                    st.dictionaries(
                        st.sampled_from(["content", "finishReason", "index"]),
                        st.fixed_dictionaries(
                            {
                                "parts": st.lists(
                                    st.dictionaries(part_keys, json_values, max_size=3), max_size=3
                                )
                            }
                        )
                        | json_values,
                        max_size=3,
                    ),
                    max_size=2,
                )
                | json_values,
                "usageMetadata": json_values,
                "promptFeedback": json_values,
            },
        ),
        max_size=4,
    )
)
def test_odd_shapes_never_escape_as_foreign_exceptions(chunks: list[dict[str, Any]]) -> None:
    decoder = GeminiDecoder(provider="gemini")
    events: list[StreamEvent] = []
    try:
        for chunk in chunks:
            events.extend(decoder.feed("", json.dumps(chunk)))
        events.extend(decoder.close())
    except LLMBridgeError:
        return
    check_invariants(events)
    accumulate(events)


def test_split_invariance_with_crlf_and_multibyte_text() -> None:
    body = sse(
        cand({"text": "héllo 京都 "}),
        cand({"functionCall": {"name": "f", "args": {"s": "ü"}}, "thoughtSignature": "Z"}),
        cand(
            {"text": "", "thoughtSignature": "Y"},
            finish="STOP",
            usageMetadata={"promptTokenCount": 1},
        ),
    )
    merged, error = assert_split_invariant(lambda: GeminiDecoder(provider="gemini"), body)
    assert error is None and isinstance(merged[-1], Finish)


def test_in_stream_error_is_an_api_error_without_status() -> None:
    decoder = GeminiDecoder(provider="gemini")
    with pytest.raises(APIError) as info:
        decoder.feed(
            "", json.dumps({"error": {"code": 500, "message": "boom", "status": "INTERNAL"}})
        )
    assert info.value.status is None and info.value.provider_message == "boom"


partial_pieces = st.lists(
    st.dictionaries(
        st.sampled_from(
            ["jsonPath", "stringValue", "numberValue", "boolValue", "nullValue", "willContinue"]
        ),
        st.sampled_from(["$.a", "$.a[0]", "$.a.b", "$['a']", "$.a[99999999]", "a", "$"])
        | json_values,
        max_size=3,
    ),
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(partial_pieces | json_values, max_size=5))
def test_odd_streamed_arguments_never_crash(pieces: list[Any]) -> None:
    chunks = [cand({"functionCall": {"name": "f", "willContinue": True}})]
    chunks += [cand({"functionCall": {"partialArgs": p, "willContinue": True}}) for p in pieces]
    chunks.append(cand({"functionCall": {}}, finish="STOP"))
    (end,) = calls(run(*chunks, provider="vertex"))
    assert isinstance(end.arguments, dict)
