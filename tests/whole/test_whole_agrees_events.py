"""The same agreement for Bedrock ``Converse`` and Cohere v2 ``chat``: the events of a real
stream (``../shared/corpus`` F and I, the golden fixtures; Bedrock's frames cut by botocore's
own ``EventStreamBuffer``) are merged here into the whole answer those APIs document
(``output.message.content`` blocks, ``stopReason``, ``usage``; Cohere's ``message`` with its
content, plan, calls and citations), without llmbridge, then read by ``whole_response`` and
compared with the stream fold."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import llmbridge as lb
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.whole import whole_response
from llmbridge.response import accumulate
from llmbridge.testing import decode_collect
from tests import corpus
from tests.whole.test_whole_agrees_with_stream import _sse, _summary

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
REQUEST = lb.ChatRequest(model="any-model", messages=[lb.ChatMessage.user("hi")])


@cache
def _provider(name: str) -> Any:
    config = ProviderConfig.from_mapping({"api_key": "test-key", "region": "us-east-1"})
    return create_provider(name, config)


def _converse_events(raw: bytes) -> list[tuple[str, dict[str, Any]]]:
    eventstream = pytest.importorskip("botocore.eventstream")
    buffer = eventstream.EventStreamBuffer()
    buffer.add_data(raw)
    events = []
    for message in buffer:
        if message.headers.get(":message-type") != "event":
            return []
        events.append((message.headers[":event-type"], json.loads(message.payload or b"{}")))
    return events


def _converse_merged(raw: bytes) -> dict[str, Any] | None:
    blocks: dict[int, dict[str, Any]] = {}
    inputs: dict[int, list[str]] = {}
    whole: dict[str, Any] = {}
    for kind, event in _converse_events(raw):
        index = event.get("contentBlockIndex", 0)
        if kind == "contentBlockStart":
            start = event["start"]
            if "toolUse" not in start:
                return None  # provider-run results: not merged here
            blocks[index] = {"toolUse": dict(start["toolUse"])}
            inputs[index] = []
        elif kind == "contentBlockDelta":
            delta = event["delta"]
            block = blocks.setdefault(index, {})
            if "text" in delta:
                block["text"] = block.get("text", "") + delta["text"]
            elif "toolUse" in delta:
                inputs[index].append(delta["toolUse"]["input"])
            elif "reasoningContent" in delta:
                reasoning = block.setdefault("reasoningContent", {})
                part = delta["reasoningContent"]
                if "redactedContent" in part:
                    reasoning["redactedContent"] = part["redactedContent"]
                text = (
                    reasoning.setdefault("reasoningText", {})
                    if set(part) - {"redactedContent"}
                    else {}
                )
                if "text" in part:
                    text["text"] = text.get("text", "") + part["text"]
                if "signature" in part:
                    text["signature"] = part["signature"]
            else:
                return None  # citations and the like: not merged here
        elif kind == "messageStop":
            whole["stopReason"] = event.get("stopReason")
            if event.get("additionalModelResponseFields") is not None:
                whole["additionalModelResponseFields"] = event["additionalModelResponseFields"]
        elif kind == "metadata":
            whole.update({k: v for k, v in event.items() if k != "p"})
    if "stopReason" not in whole:
        return None
    for index, pieces in inputs.items():
        joined = "".join(pieces)
        blocks[index]["toolUse"]["input"] = json.loads(joined) if joined.strip() else {}
    content = [blocks[i] for i in sorted(blocks)]
    return {**whole, "output": {"message": {"role": "assistant", "content": content}}}


def _cohere_merged(raw: bytes) -> dict[str, Any] | None:
    message: dict[str, Any] = {"role": "assistant"}
    content: dict[int, dict[str, Any]] = {}
    calls: dict[int, dict[str, Any]] = {}
    whole: dict[str, Any] = {}
    for name, data in _sse(raw):
        if data.strip() == "[DONE]":
            continue
        event = json.loads(data)
        kind = name or event.get("type")
        body = (event.get("delta") or {}).get("message") or {}
        index = event.get("index", 0)
        if kind == "message-start":
            whole["id"] = event.get("id")
        elif kind in ("content-start", "content-delta"):
            part = body.get("content") or {}
            kept = content.setdefault(index, {"type": part.get("type") or "text"})
            for field in ("text", "thinking"):
                if field in part:
                    kept["type"] = field
                    kept[field] = kept.get(field, "") + part[field]
        elif kind == "tool-plan-delta":
            message["tool_plan"] = message.get("tool_plan", "") + body.get("tool_plan", "")
        elif kind == "tool-call-start":
            call = json.loads(json.dumps(body["tool_calls"]))
            call["function"].setdefault("arguments", "")
            calls[index] = call
        elif kind == "tool-call-delta":
            fragment = ((body.get("tool_calls") or {}).get("function") or {}).get("arguments")
            calls[index]["function"]["arguments"] += fragment or ""
        elif kind == "citation-start":
            message.setdefault("citations", []).append(body["citations"])
        elif kind == "message-end":
            end = event.get("delta") or {}
            whole.update(finish_reason=end.get("finish_reason"), usage=end.get("usage"))
    if "finish_reason" not in whole or whole["finish_reason"] == "ERROR":
        return None
    if content:
        message["content"] = [content[i] for i in sorted(content)]
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return {**whole, "message": message}


FORMATS = {
    "bedrock": (_converse_merged, "aws-eventstream", "F", ".eventstream"),
    "cohere": (_cohere_merged, "sse", "I", ".sse"),
}


def _cases() -> list[Any]:
    cases: list[Any] = []
    for name, (_, _, category, suffix) in FORMATS.items():
        for path in sorted((FIXTURES / name).glob(f"*/response{suffix}")):
            cases.append(pytest.param(name, path, id=f"fixtures/{name}/{path.parent.name}"))
        cases.extend(
            p if p.values[0] is None else pytest.param(name, p.values[0], id=p.values[0]["file"])
            for p in corpus.entries(category)
        )
    return cases


CASES = _cases()


@pytest.mark.parametrize(("provider", "source"), CASES)
def test_the_merged_whole_body_and_the_stream_fold_agree(provider: str, source: Any) -> None:
    merge, framing, _, _ = FORMATS[provider]
    raw = source.read_bytes() if isinstance(source, Path) else corpus.body(source)
    decoder = _provider(provider).new_decoder(REQUEST)
    events, error = decode_collect(decoder, [raw], framing=framing)
    whole = merge(raw)
    if error is not None or whole is None:
        pytest.skip("an error, an unfinished stream or blocks not merged here: nothing to compare")
    folded = accumulate(events, provider=provider)
    got = whole_response(_provider(provider), REQUEST, json.dumps(whole).encode())
    assert _summary(got) == _summary(folded)


def test_enough_event_pairs_are_compared() -> None:
    if not corpus.present():
        corpus.missing()
    assert len(CASES) >= 150
