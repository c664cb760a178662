"""Issue 36, items 3 and 4 on the Responses API: ``compaction`` items go back in their final
form, message ``phase`` is kept on the text and goes back; on real recordings (corpus B) and
on hand-made streams, the follow-up requests checked against the openai SDK's request types.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

import llmbridge as lb
from llmbridge.compaction import Compaction
from llmbridge.errors import APIError
from llmbridge.events import ProviderItem, TextDelta, TextPhase
from llmbridge.messages import ChatMessage, RawPart, TextPart
from llmbridge.providers.openai_responses import ResponsesDecoder
from llmbridge.providers.openai_responses.request import build_body
from llmbridge.request import ChatRequest
from llmbridge.response import accumulate
from llmbridge.testing import assert_split_invariant, check_invariants, decode_collect
from tests import corpus
from tests.fakes import sse_body
from tests.sdk_requests import check_body

COMPACTION_FILE = "B_openai/test_openai_responses_compact_stateful_mode_stream__i2__805df33.sse"


def _entry(name: str) -> dict[str, Any]:
    for param in corpus.entries("B"):
        entry = param.values[0]
        if entry is None:
            corpus.missing()
        if entry["file"] == name:
            return entry  # type: ignore[no-any-return]
    pytest.skip(f"{name} is not in the corpus")


def _payloads(body: bytes) -> list[dict[str, Any]]:
    """The events of the first response (some recordings hold several; the decoder ends at
    the first terminal event)."""
    out = []
    for line in body.splitlines():
        if line.startswith(b"data:") and line[5:].strip() not in (b"", b"[DONE]"):
            out.append(json.loads(line[5:]))
            if out[-1]["type"] in ("response.completed", "response.incomplete"):
                break
    return out


def _phase_entries() -> list[Any]:
    """Every Responses recording whose body carries a message ``phase``."""
    params = corpus.entries("B")
    if params and params[0].values[0] is None:
        return params
    return [p for p in params if b'"phase"' in corpus.body(p.values[0])]


_EDITED_DELTAS = {"B_openai/azure-gpt5-reasoning-multi-summary-no-encryption__e76dafc.sse"}
"""Deltas edited by hand upstream (see test_openai_responses_corpus.py): they, not the done
item, are the text."""


def _streamed(raw: bytes) -> list[str]:
    """Each message item's text deltas joined, in output order."""
    texts: dict[int, str] = {}
    for p in _payloads(raw):
        if p["type"] == "response.output_text.delta":
            texts[p["output_index"]] = texts.get(p["output_index"], "") + p["delta"]
    return [texts[i] for i in sorted(texts)]


def _follow_up(messages: list[ChatMessage], **fields: Any) -> dict[str, Any]:
    request = ChatRequest(model="gpt-5.3-codex", messages=messages, **fields)
    body = build_body(request).body
    check_body("responses", body)
    return body


# -- compaction ----------------------------------------------------------------------------
def test_compaction_item_goes_back_in_its_response_completed_form() -> None:
    entry = _entry(COMPACTION_FILE)
    raw = corpus.body(entry)
    payloads = _payloads(raw)
    forms = [
        p["item"]["encrypted_content"]
        for p in payloads
        if p["type"].startswith("response.output_item.") and p["item"]["type"] == "compaction"
    ]
    completed = next(p for p in payloads if p["type"] == "response.completed")
    final = next(i for i in completed["response"]["output"] if i["type"] == "compaction")
    assert len({*forms, final["encrypted_content"]}) == 3  # added, done, completed all differ

    events, error = decode_collect(ResponsesDecoder(), [raw])
    assert error is None
    check_invariants(events)
    items = [e.data for e in events if isinstance(e, ProviderItem)]
    assert items == [final]  # one item, the final form, never the earlier ones
    response = accumulate(events, provider="openai-responses")
    assert [p.data for p in response.compactions] == [final]
    assert response.message.content[-1] == RawPart(provider="openai-responses", data=final)

    history = [ChatMessage.user("Tell me a story."), response.message, ChatMessage.user("More.")]
    body = _follow_up(history, extra={"store": True})
    assert final in body["input"]
    assert body["input"].index(final) == 2  # after the reply it followed, in stream order
    assert not any(i.get("encrypted_content") in forms for i in body["input"])


def test_compaction_recording_is_split_invariant() -> None:
    raw = corpus.body(_entry(COMPACTION_FILE))
    events, error = assert_split_invariant(ResponsesDecoder, raw, max_splits=300)
    assert error is None
    assert not any(isinstance(e, TextPhase) for e in events)  # no phases: no phase events


_CREATED = {"type": "response.created", "response": {"id": "resp_1", "model": "gpt-5"}}


def _item(kind: str, index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": f"response.output_item.{kind}", "output_index": index, "item": item}


def _cmp(form: str) -> dict[str, Any]:
    return {"id": "cmp_1", "type": "compaction", "encrypted_content": form}


def _message(index: int, text: str, phase: str | None = None) -> list[dict[str, Any]]:
    item: dict[str, Any] = {"id": f"msg_{index}", "type": "message", "role": "assistant"}
    if phase is not None:
        item["phase"] = phase
    done = {**item, "content": [{"type": "output_text", "text": text, "annotations": []}]}
    delta = {"type": "response.output_text.delta", "output_index": index, "delta": text}
    return [_item("added", index, {**item, "content": []}), delta, _item("done", index, done)]


def _completed(*output: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.completed", "response": {"status": "completed", "output": output}}


def test_compaction_before_the_reply_keeps_stream_order() -> None:
    """Compaction first (the API may compact before it answers): the item goes out when the
    next item starts, in its done form, before the reply's text."""
    body = sse_body(
        _CREATED,
        _item("added", 0, _cmp("A")),
        _item("done", 0, _cmp("D")),
        *_message(1, "Hi."),
        _completed(_cmp("C")),
    )
    events, error = decode_collect(ResponsesDecoder(), [body])
    assert error is None
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("ProviderItem") < kinds.index("TextDelta")
    assert [e.data for e in events if isinstance(e, ProviderItem)] == [_cmp("D")]


def test_a_failed_response_keeps_the_compaction_in_the_partial() -> None:
    failed = {"type": "response.failed", "response": {"error": {"message": "boom"}}}
    body = sse_body(_CREATED, *_message(0, "Hi."), _item("done", 1, _cmp("D")), failed)
    events, error = decode_collect(ResponsesDecoder(), [body])
    assert isinstance(error, APIError)
    assert [e.data for e in events if isinstance(e, ProviderItem)] == [_cmp("D")]


def test_compaction_option_is_a_context_management_entry() -> None:
    history = [ChatMessage.user("hi")]
    body = _follow_up(history, compaction=Compaction(trigger_tokens=20000))
    assert body["context_management"] == [{"type": "compaction", "compact_threshold": 20000}]
    assert _follow_up(history, compaction=Compaction())["context_management"] == [
        {"type": "compaction"}
    ]
    spec = Compaction(instructions="Keep names.", pause_after=True)
    warnings = build_body(ChatRequest(model="gpt-5", messages=history, compaction=spec)).warnings
    assert any("instructions" in w for w in warnings) and any("pause_after" in w for w in warnings)
    extra = Compaction(provider_options={"openai-responses": {"compact_threshold": 5000}})
    assert (
        _follow_up(history, compaction=extra)["context_management"][0]["compact_threshold"] == 5000
    )


def test_another_providers_compaction_is_left_out_with_one_warning() -> None:
    block = {"type": "compaction", "content": "Earlier: we talked."}
    answer = ChatMessage(
        role="assistant", content=[RawPart(provider="anthropic", data=block), TextPart(text="Hi")]
    )
    history = [ChatMessage.user("hello"), answer, answer, ChatMessage.user("next")]
    body = _follow_up(history)
    assert all(i.get("type") != "compaction" for i in body["input"])
    warnings = build_body(ChatRequest(model="gpt-5", messages=history)).warnings
    assert [w for w in warnings if "compaction" in w] == [
        "history: 2 compaction(s) from anthropic were left out: openai-responses cannot read "
        "another provider's compacted context (the messages before it are sent as they are)"
    ]


# -- phases --------------------------------------------------------------------------------
@pytest.mark.parametrize("entry", _phase_entries())
def test_phase_recordings_keep_each_message_phase_and_send_it_back(entry: dict[str, Any]) -> None:
    raw = corpus.body(entry)
    events, error = decode_collect(ResponsesDecoder(), [raw])
    assert error is None
    check_invariants(events)
    messages = [
        p["item"]
        for p in _payloads(raw)
        if p["type"] == "response.output_item.done" and p["item"]["type"] == "message"
    ]
    want = [("".join(c.get("text", "") for c in m["content"]), m.get("phase")) for m in messages]
    if entry["file"] in _EDITED_DELTAS:  # keep what streamed: compare with the deltas
        want = [(d, phase) for d, (_, phase) in zip(_streamed(raw), want, strict=True)]
    response = accumulate(events, provider="openai-responses")
    texts = [p for p in response.message.content if isinstance(p, TextPart)]
    assert [(p.text, p.phase) for p in texts] == want
    phased = any(phase is not None for _, phase in want)
    assert sum(isinstance(e, TextPhase) for e in events) == (len(want) if phased else 0)
    finals = [text for text, phase in want if phase == "final_answer"]
    assert response.final_text == ("".join(finals) if phased else response.text)

    body = _follow_up([ChatMessage.user("Go."), response.message, ChatMessage.user("Next.")])
    sent = [i for i in body["input"] if i.get("type") == "message" and i["role"] == "assistant"]
    assert [(i["content"], i.get("phase")) for i in sent] == want


def test_consecutive_phased_messages_stay_apart() -> None:
    body = sse_body(
        _CREATED,
        *_message(0, "Looking it up.", "commentary"),
        *_message(1, "Paris.", "final_answer"),
        _completed(),
    )
    events, error = decode_collect(ResponsesDecoder(), [body])
    assert error is None
    assert [e for e in events if isinstance(e, TextPhase | TextDelta)] == [
        TextPhase("commentary"),
        TextDelta("Looking it up."),
        TextPhase("final_answer"),
        TextDelta("Paris."),
    ]
    response = accumulate(events)
    assert response.text == "Looking it up.Paris."
    assert response.final_text == "Paris."
    sent = _follow_up([ChatMessage.user("Capital of France?"), response.message])["input"][1:]
    assert sent == [
        {
            "type": "message",
            "role": "assistant",
            "content": "Looking it up.",
            "phase": "commentary",
        },
        {"type": "message", "role": "assistant", "content": "Paris.", "phase": "final_answer"},
    ]


def test_a_message_given_whole_at_done_announces_its_phase() -> None:
    item = {
        "id": "msg_0",
        "type": "message",
        "role": "assistant",
        "phase": "final_answer",
        "content": [{"type": "output_text", "text": "Done.", "annotations": []}],
    }
    events, error = decode_collect(
        ResponsesDecoder(), [sse_body(_CREATED, _item("done", 0, item), _completed())]
    )
    assert error is None
    assert accumulate(events).message.content == [
        TextPart(text="Done.", provider_data={"phase": "final_answer"})
    ]


def test_phase_and_compaction_survive_a_model_dump_round_trip() -> None:
    message = ChatMessage(
        role="assistant",
        content=[
            TextPart(text="Checking.", provider_data={"phase": "commentary"}),
            RawPart(provider="openai-responses", data=_cmp("C")),
            TextPart(text="Yes.", provider_data={"phase": "final_answer"}),
        ],
    )
    for again in (
        ChatMessage.model_validate(message.model_dump()),
        ChatMessage.model_validate_json(message.model_dump_json()),
    ):
        assert again == message
        assert again.final_text == "Yes."
        assert [p.data for p in again.compactions] == [_cmp("C")]


def test_text_phase_event_round_trips_through_its_dict() -> None:
    from llmbridge.events import event_from_dict, event_to_dict

    assert event_to_dict(TextPhase("commentary")) == {"type": "text_phase", "phase": "commentary"}
    assert event_from_dict(event_to_dict(TextPhase("final_answer"))) == TextPhase("final_answer")
    assert event_from_dict({"type": "text_phase"}) == TextPhase(None)


def test_the_compaction_option_says_which_responses_hosts_compact() -> None:
    from llmbridge.client.pipeline import plan_request
    from llmbridge.errors import ConfigurationError
    from llmbridge.providers import ProviderConfig, create_provider

    def provider(name: str, **options: Any) -> Any:
        return create_provider(name, ProviderConfig.from_mapping({"api_key": "k", **options}))

    asked = ChatRequest(model="gpt-5", messages=[ChatMessage.user("hi")], compaction=Compaction())
    plan_request(provider("openai-responses"), asked, rescue=None)
    plan_request(provider("azure-responses", resource="r"), asked, rescue=None)
    for host in (
        provider("openai-responses", base_url="http://127.0.0.1:9/v1", compaction=False),
        provider("bedrock-mantle-responses", region="us-east-1"),
    ):
        with pytest.raises(ConfigurationError, match="Providers that compact: openai-responses"):
            plan_request(host, asked, rescue=None)
    plan_request(provider("bedrock-mantle-responses", region="us-east-1", compaction=True), asked,
                 rescue=None)  # fmt: skip


def test_a_phased_recording_is_split_invariant_and_a_partial_keeps_the_phase() -> None:
    from llmbridge.response import Accumulator

    raw = corpus.body(_entry("B_openai/openai-phase.1.sse"))
    events, error = assert_split_invariant(ResponsesDecoder, raw, max_splits=200)
    assert error is None
    assert [e.phase for e in events if isinstance(e, TextPhase)] == ["commentary", "final_answer"]
    acc = Accumulator()
    for event in events:
        acc.add(event)
        if isinstance(event, TextDelta):  # mid-stream, the open text run has its phase
            part = acc.response().message.content[-1]
            assert isinstance(part, TextPart) and part.phase is not None


def test_a_repeated_done_event_of_the_held_compaction_gives_one_item() -> None:
    body = sse_body(
        _CREATED,
        _item("done", 0, _cmp("D1")),
        _item("done", 0, _cmp("D2")),
        _completed(_cmp("C")),
    )
    events, error = decode_collect(ResponsesDecoder(), [body])
    assert error is None
    assert [e.data for e in events if isinstance(e, ProviderItem)] == [_cmp("C")]
    body = sse_body(_CREATED, _item("done", 0, _cmp("D1")), _item("done", 0, _cmp("D2")),
                _completed())  # fmt: skip
    events, _ = decode_collect(ResponsesDecoder(), [body])
    assert [e.data for e in events if isinstance(e, ProviderItem)] == [_cmp("D2")]


class _Cut(httpx.AsyncByteStream):
    """A body that ends (or breaks: ``error``) after ``body``."""

    def __init__(self, body: bytes, error: Exception | None) -> None:
        self.body, self.error = body, error

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.body
        if self.error is not None:
            raise self.error


@pytest.mark.anyio
@pytest.mark.parametrize("background", [False, True])  # the plain and the resuming loop
@pytest.mark.parametrize("error", [None, httpx.ReadError("connection reset")])
async def test_a_broken_stream_keeps_the_held_compaction_in_the_partial(
    error: Exception | None, background: bool
) -> None:
    """The held item (waiting for its final form) is not lost when no later event comes."""
    body = sse_body(_CREATED, *_message(0, "Hi."), _item("done", 1, _cmp("D")))

    def answer(request: httpx.Request) -> httpx.Response:
        stream = _Cut(body, error)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=stream)

    http = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    async with lb.Client(
        http_client=http,
        providers={"openai-responses": {"api_key": "sk-test"}},
        retry=lb.RetryPolicy(max_attempts=1),
    ) as client:
        with pytest.raises(lb.LLMBridgeError) as info:
            await client.complete(
                "openai-responses:gpt-5", [ChatMessage.user("hi")], background=background
            )
    partial = info.value.partial
    assert partial is not None and partial.text == "Hi."
    assert [p.data for p in partial.compactions] == [_cmp("D")]
