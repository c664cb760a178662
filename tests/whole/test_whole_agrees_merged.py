"""The same agreement for the formats whose whole answer is their stream's chunks merged
(Gemini ``generateContent``, Ollama ``/api/chat`` with ``stream: false``): the chunks of a real
stream (``../shared/corpus`` D and H, the golden fixtures) are merged here, by the documented
rules of those APIs and without llmbridge (text parts of the same kind joined, other parts
kept in order, the last chunk's finish reason, usage and metadata), then read by
``whole_response`` and compared with the stream fold."""

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
CONFIG = {"vertex": {"project": "p", "location": "global"}}


@cache
def _provider(name: str) -> Any:
    config = ProviderConfig.from_mapping({"api_key": "test-key", **CONFIG.get(name, {})})
    return create_provider(name, config)


def _gemini_merged(raw: bytes) -> dict[str, Any] | None:
    merged: dict[str, Any] = {}
    parts: list[dict[str, Any]] = []
    candidate: dict[str, Any] = {}
    for _, data in _sse(raw):
        chunk = json.loads(data)
        if "error" in chunk:
            return None
        for key in ("modelVersion", "responseId"):
            merged.setdefault(key, chunk.get(key))
        for key in ("usageMetadata", "promptFeedback"):
            if chunk.get(key) is not None:
                merged[key] = chunk[key]
        for cand in chunk.get("candidates") or ()[:1]:
            for part in (cand.get("content") or {}).get("parts") or ():
                last = parts[-1] if parts else None
                plain = set(part) <= {"text", "thought"}
                if (
                    last is not None
                    and plain
                    and set(last) <= {"text", "thought"}
                    and "text" in last
                    and bool(last.get("thought")) == bool(part.get("thought"))
                ):
                    last["text"] += part.get("text", "")
                else:
                    parts.append(dict(part))
            candidate.update({k: v for k, v in cand.items() if k != "content"})
            break
    if not candidate.get("finishReason"):
        return None
    candidate["content"] = {"role": "model", "parts": parts}
    return {**{k: v for k, v in merged.items() if v is not None}, "candidates": [candidate]}


def _ollama_merged(raw: bytes) -> dict[str, Any] | None:
    lines = [json.loads(line) for line in raw.splitlines() if line.strip()]
    if not lines or not lines[-1].get("done") or any("error" in line for line in lines):
        return None
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    for line in lines:
        got = line.get("message") or {}
        message["content"] += got.get("content") or ""
        if got.get("thinking"):
            message["thinking"] = message.get("thinking", "") + got["thinking"]
        if got.get("tool_calls"):
            message.setdefault("tool_calls", []).extend(got["tool_calls"])
    if "response" in lines[0]:
        return None  # /api/generate lines: not /api/chat's shape
    return {**lines[-1], "message": message}


FORMATS = {
    "gemini": (_gemini_merged, "sse", ("D", "gemini")),
    "vertex": (_gemini_merged, "sse", ("D", "vertex")),
    "ollama-native": (_ollama_merged, "ndjson", ("H", "ollama")),
}


def _cases() -> list[Any]:
    cases: list[Any] = []
    for name, (_, _, (category, host)) in FORMATS.items():
        for path in sorted((FIXTURES / name).glob("*/response.*")):
            if path.suffix in (".sse", ".ndjson"):
                cases.append(pytest.param(name, path, id=f"fixtures/{name}/{path.parent.name}"))
        for param in corpus.entries(category):
            entry = param.values[0]
            if entry is None:
                cases.append(param)
                continue
            odd = {"json_array_stream", "streamed_function_args", "hand_edited_values"}
            if entry["provider"] == host and not odd & set(entry["contains"]):
                cases.append(pytest.param(name, entry, id=entry["file"]))
    return cases


CASES = _cases()


@pytest.mark.parametrize(("provider", "source"), CASES)
def test_the_merged_whole_body_and_the_stream_fold_agree(provider: str, source: Any) -> None:
    merge, framing, _ = FORMATS[provider]
    raw = source.read_bytes() if isinstance(source, Path) else corpus.body(source)
    events, error = decode_collect(_provider(provider).new_decoder(REQUEST), [raw], framing=framing)
    whole = merge(raw)
    if error is not None or whole is None:
        pytest.skip("the stream ends in an error or unfinished: no whole answer to compare")
    folded = accumulate(events, provider=provider)
    got = whole_response(_provider(provider), REQUEST, json.dumps(whole).encode())
    assert _compared(provider, got) == _compared(provider, folded)


def _compared(provider: str, response: lb.ChatResponse[Any]) -> dict[str, Any]:
    """The summary compared; Ollama sends no call ids (they are made from the ``created_at``
    of the line a call came in, which one merged answer cannot keep for every line)."""
    summary = _summary(response)
    if provider == "ollama-native":
        summary["tool_calls"] = [(None, name, args) for _, name, args in summary["tool_calls"]]
    return summary


def test_enough_merged_pairs_are_compared() -> None:
    if not corpus.present():
        corpus.missing()
    assert len(CASES) >= 100
