"""``providers/history.py`` and the OpenAI-compatible round trip, rule by rule (pure)."""

from __future__ import annotations

import re
from typing import Any

import orjson
import pytest

import llmbridge as lb
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.history import (
    ANTHROPIC_IDS,
    ANY_IDS,
    CHAT_COMPLETIONS_IDS,
    MISTRAL_IDS,
    RESPONSES_IDS,
    IdRule,
    adapt_history,
)
from llmbridge.response import accumulate
from llmbridge.testing import decode_collect
from tests.fakes import sse_body

LONG = "toolu_" + "x" * 60
ODD = "call:1/ä"


def _conversation(*ids: str) -> list[lb.ChatMessage]:
    calls = [lb.ToolCallPart(id=i, name="f", arguments={}) for i in ids]
    results = [lb.ChatMessage.tool_result(i, "ok") for i in ids]
    return [lb.ChatMessage.user("q"), lb.ChatMessage.assistant(tool_calls=calls), *results]


@pytest.mark.parametrize(
    "rule", [ANY_IDS, CHAT_COMPLETIONS_IDS, RESPONSES_IDS, ANTHROPIC_IDS, MISTRAL_IDS]
)
def test_ids_fit_the_rule_and_stay_paired(rule: IdRule) -> None:
    messages = _conversation(LONG, ODD, "call_ok", "abcDEF123")
    adapted = adapt_history(messages, provider="p", ids=rule)
    calls = [c.id for c in adapted.messages[1].tool_calls]
    results = [m.tool_results[0].tool_call_id for m in adapted.messages[2:]]
    assert calls == results
    assert len(set(calls)) == 4
    assert all(rule.accepts(i) for i in calls)
    for old, new in zip(["call_ok", "abcDEF123"], calls[2:], strict=True):
        assert (new == old) == rule.accepts(old)  # accepted ids are never touched
    # the same conversation maps the same way on the next turn (and with more turns after)
    again = adapt_history([*messages, lb.ChatMessage.user("more")], provider="p", ids=rule)
    assert [c.id for c in again.messages[1].tool_calls] == calls
    assert messages[1].tool_calls[0].id == LONG  # the app's messages are never changed


def test_mistral_ids_are_nine_alphanumerics() -> None:
    adapted = adapt_history(
        _conversation("toolu_01A09q90qw90lq917835lq9"), provider="mistral", ids=MISTRAL_IDS
    )
    (new,) = adapted.ids.values()
    assert re.fullmatch(r"[a-zA-Z0-9]{9}", new)


def test_a_preset_id_rule_is_one_of_the_known_ones() -> None:
    """``tool_call_ids`` is a documented provider option: a value it does not know is a
    ``ConfigurationError`` naming the choices when the provider is made, not a ``KeyError``
    from the first request."""
    config = ProviderConfig.from_mapping({"tool_call_ids": "mistral"})
    assert create_provider("vllm", config) is not None  # the docs' example
    for option in ({"tool_call_ids": "anthropic"}, {"web_search": "yes"}):
        with pytest.raises(lb.ConfigurationError, match=next(iter(option))):
            create_provider("vllm", ProviderConfig.from_mapping(option))


def test_colliding_rewrites_get_distinct_ids() -> None:
    # both sanitize to "a_b" for Anthropic: the second must differ, and the kept one wins
    adapted = adapt_history(_conversation("a_b", "a.b", "a:b"), provider="x", ids=ANTHROPIC_IDS)
    ids = [c.id for c in adapted.messages[1].tool_calls]
    assert ids[0] == "a_b" and len(set(ids)) == 3


def test_foreign_reasoning_and_items_are_left_out_with_warnings() -> None:
    turn = lb.ChatMessage(
        role="assistant",
        content=[
            lb.ReasoningPart(text="hmm", signature="sig", provider="anthropic"),
            lb.RawPart(provider="anthropic", data={"type": "server_tool_use"}),
            lb.ReasoningPart(text="own", provider="deepseek"),
            lb.TextPart(text="answer"),
        ],
    )
    adapted = adapt_history([turn], provider="deepseek")
    kinds = [type(p).__name__ for p in adapted.messages[0].content]
    assert kinds == ["ReasoningPart", "TextPart"]
    assert len(adapted.warnings) == 2
    assert "1 reasoning part(s) from anthropic" in adapted.warnings[0]
    assert "1 anthropic provider item(s)" in adapted.warnings[1]
    (only,) = adapt_history([turn], provider="anthropic").warnings  # its own parts stay
    assert "from deepseek" in only


def _chat_body(model: str, messages: list[lb.ChatMessage], provider: str) -> dict[str, Any]:
    target = create_provider(
        provider, ProviderConfig.from_mapping({"api_key": "k", "base_url": "http://h/v1"})
    )
    request = lb.ChatRequest(model=model, messages=messages)
    body = target.build_request(request).json
    assert body is not None
    return body


def _decoded(provider: str, *chunks: dict[str, Any]) -> lb.ChatMessage:
    body = sse_body(*chunks, done=True)
    target = create_provider(
        provider, ProviderConfig.from_mapping({"api_key": "k", "base_url": "http://h/v1"})
    )
    request = lb.ChatRequest(model="m", messages=[lb.ChatMessage.user("q")])
    events, error = decode_collect(target.new_decoder(request), [body])
    assert error is None
    return accumulate(events, provider=provider).message


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "gen-1",
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


GEMINI_CALL = {
    "index": 0,
    "id": "function-call-1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
    "extra_content": {"google": {"thought_signature": "CiQBVKhc7sig=="}},
}
"""A tool call as Gemini's OpenAI endpoint streams it (Google's "Thought signatures" guide)."""


def test_gemini_endpoint_extra_content_goes_back_to_its_provider_only() -> None:
    turn = _decoded(
        "openai-compatible",
        _chunk({"role": "assistant", "tool_calls": [GEMINI_CALL]}),
        _chunk({}, "tool_calls"),
    )
    (call,) = turn.tool_calls
    assert call.provider_data == {
        "extra_content": GEMINI_CALL["extra_content"],
        "provider": "openai-compatible",
    }
    history = [lb.ChatMessage.user("q"), turn, lb.ChatMessage.tool_result(call.id, "18C")]
    sent = _chat_body("gemini-3-pro-preview", history, "openai-compatible")["messages"][1]
    assert sent["tool_calls"][0]["extra_content"] == GEMINI_CALL["extra_content"]
    elsewhere = _chat_body("gpt-4.1", history, "openai")["messages"][1]
    assert "extra_content" not in elsewhere["tool_calls"][0]


def _openrouter_turn(fmt: str) -> lb.ChatMessage:
    return _decoded(
        "openrouter",
        _chunk(
            {
                "reasoning": "Think",
                "reasoning_details": [
                    {"type": "reasoning.text", "text": "Think", "format": fmt, "index": 0}
                ],
            }
        ),
        _chunk(
            {
                "reasoning": "ing.",
                "reasoning_details": [
                    {"type": "reasoning.text", "text": "ing.", "format": fmt, "index": 0}
                ],
            }
        ),
        _chunk(
            {
                "reasoning_details": [
                    {"type": "reasoning.text", "signature": "SIG", "format": fmt, "index": 0}
                ]
            }
        ),
        _chunk({"content": "Done."}, "stop"),
    )


def test_openrouter_reasoning_details_merge_and_go_back_to_the_same_family() -> None:
    turn = _openrouter_turn("anthropic-claude-v1")
    assert turn.reasoning == "Thinking."
    (part,) = [p for p in turn.content if isinstance(p, lb.ReasoningPart)]
    detail = {
        "type": "reasoning.text",
        "text": "Thinking.",
        "signature": "SIG",
        "format": "anthropic-claude-v1",
        "index": 0,
    }
    assert part.provider_data == {"reasoning_details": [detail]}
    history = [lb.ChatMessage.user("q"), turn, lb.ChatMessage.user("again")]
    same = _chat_body("anthropic/claude-sonnet-4.5", history, "openrouter")["messages"][1]
    assert same["reasoning_details"] == [detail]
    other = _chat_body("openai/gpt-5", history, "openrouter")["messages"][1]
    assert "reasoning_details" not in other
    request = lb.ChatRequest(model="openai/gpt-5", messages=history)
    provider = create_provider("openrouter", ProviderConfig.from_mapping({"api_key": "k"}))
    assert any("another model family" in w for w in provider.prepare(request).warnings)  # type: ignore[attr-defined]
    # to another provider nothing of it goes
    anthropic = create_provider("anthropic", ProviderConfig.from_mapping({"api_key": "k"}))
    body = anthropic.build_request(lb.ChatRequest(model="claude-sonnet-4-5", messages=history)).json
    assert "SIG" not in orjson.dumps(body).decode()


@pytest.mark.parametrize(
    "name",
    [
        "openai-compatible/gemini_endpoint_thought_signature",
        "openrouter/reasoning_details_tool_round_trip",
    ],
)
def test_round_trip_fixtures_send_what_the_sdk_types_plus_the_documented_extension(
    name: str,
) -> None:
    from pathlib import Path

    from tests.sdk_requests import check_body

    recorded = orjson.loads(
        (Path(__file__).parents[1] / "fixtures" / name / "request.json").read_bytes()
    )
    check_body("chat", recorded["body"])
    assistant = recorded["body"]["messages"][1]
    assert "extra_content" in assistant["tool_calls"][0] or "reasoning_details" in assistant


def _gemini_body(model: str, messages: list[lb.ChatMessage]) -> dict[str, Any]:
    gemini = create_provider("gemini", ProviderConfig.from_mapping({"api_key": "k"}))
    body = gemini.build_request(lb.ChatRequest(model=model, messages=messages)).json
    assert body is not None
    return body


def test_gemini_3_placeholder_goes_on_the_current_turn_only() -> None:
    def call(i: str) -> lb.ChatMessage:
        calls = [lb.ToolCallPart(id=f"toolu_{i}{n}", name="f", arguments={}) for n in (1, 2)]
        return lb.ChatMessage.assistant(tool_calls=calls)

    messages = [
        lb.ChatMessage.user("first question"),
        call("a"),  # an earlier turn: not validated, sent as it is
        lb.ChatMessage.tool_result("toolu_a1", "1"),
        lb.ChatMessage.tool_result("toolu_a2", "2"),
        lb.ChatMessage.assistant("done"),
        lb.ChatMessage.user("second question"),
        call("b"),  # the current turn: step 1
        lb.ChatMessage.tool_result("toolu_b1", "1"),
        lb.ChatMessage.tool_result("toolu_b2", "2"),
        call("c"),  # step 2
        lb.ChatMessage.tool_result("toolu_c1", "1"),
        lb.ChatMessage.tool_result("toolu_c2", "2"),
    ]

    def signatures(model: str) -> list[list[str | None]]:
        contents = _gemini_body(model, messages)["contents"]
        return [
            [p.get("thoughtSignature") for p in c["parts"] if "functionCall" in p]
            for c in contents
            if c["role"] == "model" and any("functionCall" in p for p in c["parts"])
        ]

    skip = "skip_thought_signature_validator"
    assert signatures("gemini-3-pro-preview") == [[None, None], [skip, None], [skip, None]]
    assert signatures("gemini-2.5-flash") == [[None, None], [None, None], [None, None]]


GOOGLE_OPENAI = "https://generativelanguage.googleapis.com/v1beta/openai"


@pytest.mark.parametrize(
    ("base_url", "options", "model", "placeholder"),
    [
        (GOOGLE_OPENAI, {}, "gemini-3-pro-preview", True),
        (GOOGLE_OPENAI, {}, "gemini-2.5-flash", False),  # Gemini 2.x does not validate
        (GOOGLE_OPENAI, {"gemini_signatures": False}, "gemini-3-pro-preview", False),
        ("http://127.0.0.1:4000/v1", {}, "gemini-3-pro-preview", False),  # not Google's
        ("http://127.0.0.1:4000/v1", {"gemini_signatures": True}, "gemini-3-pro-preview", True),
    ],
)
def test_gemini_openai_endpoint_gets_the_placeholder_on_foreign_calls(
    base_url: str, options: dict[str, Any], model: str, placeholder: bool
) -> None:
    foreign = lb.ToolCallPart(id="toolu_01", name="f", arguments={})
    messages = [
        lb.ChatMessage.user("q"),
        lb.ChatMessage.assistant(tool_calls=[foreign]),
        lb.ChatMessage.tool_result("toolu_01", "1"),
    ]
    config = {"api_key": "k", "base_url": base_url, **options}
    provider = create_provider("openai-compatible", ProviderConfig.from_mapping(config))
    body = provider.build_request(lb.ChatRequest(model=model, messages=messages)).json
    assert body is not None
    (call,) = body["messages"][1]["tool_calls"]
    if placeholder:
        signature = {"google": {"thought_signature": "skip_thought_signature_validator"}}
        assert call["extra_content"] == signature
    else:
        assert "extra_content" not in call
    assert foreign.provider_data is None  # the history is never changed
