"""``cohere`` against every real Cohere v2 recording in ``../shared/corpus`` (category I).

Each SSE body is decoded whole and at seeded random splits and must agree with what
``cohere.ClientV2.chat_stream()`` yielded, folded (``expected_file``): text, thinking, the tool
plan, tool calls (id, name, arguments), citations, the finish reason and the usage. Where we
knowingly differ from that reference, on purpose:

* Cohere's types give usage as floats; ours are ints (a token count is whole).
* The tool plan is not text nor reasoning: it is one ``ProviderItem`` (a ``RawPart`` in the
  message) that goes back to Cohere as ``tool_plan``; it is compared with the reference's.
* A citation with several sources is one ``Citation`` per source (url: the document's url, else
  the source id); the reference's raw citations are kept whole in ``Finish.provider_data``.

The recorded requests are rebuilt from their meaning by our encoder and compared field by field.
"""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

import llmbridge as lb
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.response import accumulate
from llmbridge.testing import check_invariants, decode_collect, merge_deltas
from tests import corpus
from tests.sdk_requests import check_cohere_body

ENTRIES = corpus.entries("I")
REQUEST = lb.ChatRequest(model="m", messages=[lb.ChatMessage.user("hi")])
PROVIDER = create_provider("cohere", ProviderConfig.from_mapping({"api_key": "test-key"}))


def _splits(body: bytes, seed: str) -> list[list[bytes]]:
    rng = random.Random(seed)
    out = [[body]]
    for _ in range(5):
        cuts = sorted(rng.sample(range(1, len(body)), min(len(body) - 1, rng.randint(1, 20))))
        out.append([body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)])
    return out


def _count(value: Any) -> int:
    return int(value or 0)


@pytest.mark.parametrize("entry", ENTRIES)
def test_every_split_agrees_with_the_cohere_sdk(entry: dict[str, Any]) -> None:
    body, expected = corpus.body(entry), corpus.expected(entry)
    assert expected is not None and entry["expected_status"] == "ok"
    outcomes = []
    for chunks in _splits(body, entry["file"]):
        events, error = decode_collect(PROVIDER.new_decoder(REQUEST), chunks)
        assert error is None, f"{entry['file']}: {error!r}"
        check_invariants(events)
        outcomes.append(merge_deltas(events))
    assert all(o == outcomes[0] for o in outcomes), "the split changed the events"
    events = outcomes[0]
    response = accumulate(events, provider="cohere")
    assert response.text == (expected["text"] or "")
    assert response.reasoning == (expected["reasoning"] or "")
    plans = [p.data["tool_plan"] for p in response.message.content if isinstance(p, lb.RawPart)]
    assert "".join(plans) == (expected["tool_plan"] or "")
    want = [(c["id"], c["name"], c["arguments"]) for c in expected["tool_calls"]]
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == want
    start, finish = events[0], events[-1]
    assert isinstance(start, lb.StreamStart) and start.response_id == expected["id"]
    assert isinstance(finish, lb.Finish) and finish.raw_reason == expected["finish_reason"]
    assert (
        finish.reason
        == {
            "COMPLETE": "stop",
            "TOOL_CALL": "tool_calls",
            "MAX_TOKENS": "length",
            "ERROR": "error",
        }[expected["finish_reason"]]
    )
    usage = expected["usage"] or {}
    if not usage:
        assert finish.usage is None
    else:
        tokens = usage.get("tokens") or usage.get("billed_units") or {}
        assert finish.usage == lb.Usage(
            input_tokens=_count(tokens.get("input_tokens")),
            output_tokens=_count(tokens.get("output_tokens")),
            cached_input_tokens=_count(usage.get("cached_tokens")),
            reasoning_tokens=_count(tokens.get("reasoning_tokens")),
        )
        assert finish.usage.cached_input_tokens <= finish.usage.input_tokens
    cited = [c for c in events if isinstance(c, lb.Citation)]
    sources = [
        (s.get("document") or {}).get("url") or s.get("id")
        for c in expected["citations"] or []
        for s in c.get("sources") or []
    ]
    assert [c.url for c in cited] == sources
    data = (finish.provider_data or {}).get("cohere", {})
    assert data.get("citations", []) == (expected["citations"] or [])


# -- requests -------------------------------------------------------------------------------
def _text(content: Any) -> str:
    if content is None or isinstance(content, str):
        return content or ""
    return "".join(i.get("text", "") for i in content if i.get("type") == "text")


def _result_text(content: Any) -> str:
    """A tool result's content as text: a document item's data is its JSON (our types carry
    text, not arbitrary data objects; the model reads the same content)."""
    if isinstance(content, str):
        return content
    pieces = []
    for item in content:
        if item["type"] == "text":
            pieces.append(item["text"])
        else:
            pieces.append(orjson.dumps(item["document"]["data"]).decode())
    return "".join(pieces)


def _chat_request(recorded: dict[str, Any]) -> lb.ChatRequest:
    messages: list[lb.ChatMessage] = []
    for message in recorded["messages"]:
        role = message["role"]
        if role == "assistant":
            parts: list[Any] = []
            for item in message.get("content") or []:
                if isinstance(item, dict) and item.get("type") == "thinking":
                    parts.append(lb.ReasoningPart(text=item["thinking"], provider="cohere"))
            text = _text(message.get("content"))
            if text:
                parts.append(lb.TextPart(text=text))
            if message.get("tool_plan"):
                data = {"type": "tool_plan", "tool_plan": message["tool_plan"]}
                parts.append(lb.RawPart(provider="cohere", data=data))
            for call in message.get("tool_calls") or []:
                raw = call["function"]["arguments"]
                parts.append(
                    lb.ToolCallPart(
                        id=call["id"],
                        name=call["function"]["name"],
                        arguments=orjson.loads(raw or "{}"),
                        raw_arguments=raw,
                    )
                )
            messages.append(lb.ChatMessage(role="assistant", content=parts))
        elif role == "tool":
            text = _result_text(message["content"])
            messages.append(lb.ChatMessage.tool_result(message["tool_call_id"], text))
        else:
            content = message["content"]
            items = [{"type": "text", "text": content}] if isinstance(content, str) else content
            user: list[Any] = []
            for item in items:
                if item["type"] == "text":
                    user.append(lb.TextPart(text=item["text"]))
                elif item["type"] == "image_url":
                    user.append(lb.ImagePart(url=item["image_url"]["url"]))
            messages.append(lb.ChatMessage(role=role, content=user))
    for document in recorded.get("documents") or []:
        data = document["data"]
        part = lb.DocumentPart(
            data=data["text"].encode(), media_type="text/plain", name=data.get("title")
        )
        last_user = next(m for m in reversed(messages) if m.role == "user")
        last_user.content.append(part)
    # ``ToolSpec(...)``, not ``from_json_schema``: langchain-cohere's recorded schemas say
    # ``"type": "str"`` / ``"int"`` (Cohere took them); the builder would refuse those, and here
    # the point is that the schema travels as the app wrote it
    tools = [
        lb.ToolSpec(
            name=t["function"]["name"],
            description=t["function"].get("description", ""),
            parameters=t["function"]["parameters"],
        )
        for t in recorded.get("tools") or []
    ]
    settings: dict[str, Any] = {"temperature": recorded.get("temperature")}
    thinking = recorded.get("thinking")
    if thinking:
        budget = thinking.get("token_budget")
        settings["reasoning"] = lb.ReasoningConfig(
            budget_tokens=0 if thinking["type"] == "disabled" else budget
        )
    return lb.ChatRequest(model=recorded["model"], messages=messages, tools=tools, **settings)


def _shape(message: dict[str, Any]) -> dict[str, Any]:
    """What a message means, in one normal form (content as text, call arguments parsed)."""
    out: dict[str, Any] = {"role": message["role"]}
    if message["role"] == "tool":
        out["tool_call_id"] = message["tool_call_id"]
        out["content"] = _result_text(message["content"])
        return out
    out["content"] = _text(message.get("content"))
    if message.get("tool_plan"):
        out["tool_plan"] = message["tool_plan"]
    calls = message.get("tool_calls") or []
    if calls:
        out["tool_calls"] = [
            (c["id"], c["function"]["name"], orjson.loads(c["function"]["arguments"] or "{}"))
            for c in calls
        ]
    return out


def _tools(tools: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """The recorded tools with an empty ``description`` left out, as we send them."""
    out = []
    for tool in tools or []:
        function = {k: v for k, v in tool["function"].items() if v != "" or k != "description"}
        out.append({**tool, "function": function})
    return out


REQUESTS = [
    p for p in ENTRIES if not p.values or p.values[0] is None or p.values[0].get("request_file")
]


@pytest.mark.parametrize("entry", REQUESTS)
def test_our_request_matches_the_recorded_one(entry: dict[str, Any]) -> None:
    recorded = corpus.request_body(entry)
    assert recorded is not None
    body = PROVIDER.build_request(_chat_request(recorded)).json
    assert body is not None
    check_cohere_body(body)
    assert [_shape(m) for m in body["messages"]] == [_shape(m) for m in recorded["messages"]]
    assert body.get("tools") == (_tools(recorded.get("tools")) or None)
    assert body.get("documents") == recorded.get("documents")
    for key in ("model", "temperature", "thinking"):
        assert body.get(key) == recorded.get(key), key
    assert body["stream"] is True
