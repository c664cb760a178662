"""Corpus category M: real recorded batch objects and result files (OpenAI, xAI, Anthropic,
Gemini) read by our adapters and compared with what the official SDKs read from the same
bytes (``expected.json``)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

import llmbridge as lb
from llmbridge.batch.anthropic import AnthropicBatches
from llmbridge.batch.anthropic import result_of_line as anthropic_line
from llmbridge.batch.calls import BatchCall
from llmbridge.batch.gemini import GeminiBatches, gemini_status, inlined
from llmbridge.batch.gemini import result_of as gemini_item
from llmbridge.batch.openai import OpenAIBatches, openai_status, result_of_line
from llmbridge.batch.xai import xai_part
from llmbridge.stream.call import CallConfig
from tests import corpus

pytestmark = corpus.needed
ENTRIES = [p.values[0] for p in corpus.entries("M")] if corpus.present() else []
NORMALIZED = {"queued", "running", "completed", "failed", "cancelling", "cancelled", "expired"}


def _call(model: str) -> BatchCall:
    names = ("openai", "openai-responses", "anthropic", "gemini", "xai")
    client = lb.Client(providers={n: {"api_key": "k"} for n in names})
    provider, name = client.resolve(model)
    return BatchCall.of(provider, name, CallConfig())


def _entries(provider: str, kind: str) -> list[Any]:
    found = [e for e in ENTRIES if e["provider"] == provider and e.get("kind") == kind]
    return corpus.params([pytest.param(e, id=e["file"].split("/")[-1][-40:]) for e in found])


def test_the_corpus_holds_every_kind() -> None:
    kinds = {(e["provider"], e.get("kind")) for e in ENTRIES}
    assert {("openai", "batch"), ("openai", "batch_file"), ("anthropic", "batch")} <= kinds
    assert {("anthropic", "batch_results"), ("gemini", "batch"), ("xai", "batch")} <= kinds


@pytest.mark.parametrize("entry", _entries("openai", "batch"))
def test_openai_batch_objects(entry: dict[str, Any]) -> None:
    expected = corpus.expected(entry)
    assert expected is not None
    part = OpenAIBatches().part(orjson.loads(corpus.body(entry)))
    assert part.id == expected["id"] and part.raw_status == expected["status"]
    assert part.status == openai_status(expected["status"]) and part.status in NORMALIZED
    counts = expected["request_counts"]
    assert part.counts.total == counts["total"] and part.counts.failed == counts["failed"]
    assert part.counts.succeeded == counts["completed"]
    assert part.data["output_file_id"] == expected["output_file_id"]


@pytest.mark.parametrize("entry", _entries("openai", "batch_file"))
def test_openai_output_files(entry: dict[str, Any]) -> None:
    expected = corpus.expected(entry)
    assert expected is not None
    lines = [line for line in corpus.body(entry).splitlines() if line.strip()]
    assert len(lines) == expected["n_lines"]
    for line, want in zip(lines, expected["lines"], strict=True):
        model = "openai-responses:gpt-5-nano" if want["type"] == "response" else "openai:gpt-5-nano"
        result = result_of_line(_call(model), line)
        assert result.id == want["custom_id"]
        if want["status_code"] != 200:
            assert result.status == "errored" and isinstance(result.error, lb.LLMBridgeError)
            continue
        assert result.status == "succeeded" and result.response is not None
        assert result.response.text == want["text"]
        assert len(result.response.tool_calls) == len(want["tool_calls"])
        usage = result.response.usage
        assert usage is not None and usage.input_tokens == want["usage"]["input_tokens"]
        assert usage.output_tokens == want["usage"]["output_tokens"]
        details = want["usage"].get("output_tokens_details") or {}
        assert usage.reasoning_tokens == details.get("reasoning_tokens", 0)


@pytest.mark.parametrize("entry", _entries("anthropic", "batch"))
def test_anthropic_message_batches(entry: dict[str, Any]) -> None:
    expected = corpus.expected(entry)
    assert expected is not None
    part = AnthropicBatches().part(orjson.loads(corpus.body(entry)))
    assert part.id == expected["id"] and part.raw_status == expected["processing_status"]
    counts = expected["request_counts"]
    assert part.counts.pending == counts["processing"]
    assert part.counts.succeeded == counts["succeeded"]
    assert part.counts.failed == counts["errored"] + counts["canceled"] + counts["expired"]
    want = {"in_progress": "running", "canceling": "cancelling"}.get(expected["processing_status"])
    assert part.status == (want or part.status) and part.status in NORMALIZED
    if expected["processing_status"] == "ended":
        assert part.status in ("completed", "cancelled", "expired")
    assert part.data["results_url"] == expected["results_url"]


@pytest.mark.parametrize("entry", _entries("anthropic", "batch_results"))
def test_anthropic_results_files(entry: dict[str, Any]) -> None:
    expected = corpus.expected(entry)
    assert expected is not None
    call = _call("anthropic:claude-haiku-4-5")
    lines = [line for line in corpus.body(entry).splitlines() if line.strip()]
    for line, want in zip(lines, expected["lines"], strict=True):
        result = anthropic_line(call, line)
        assert result.id == want["custom_id"]
        assert result.status == {"succeeded": "succeeded", "errored": "errored"}.get(
            want["type"], "cancelled" if want["type"] == "canceled" else "expired"
        )
        if result.response is None:
            continue
        assert result.response.text == want["text"]
        assert result.response.finish_reason == (
            "stop" if want["finish_reason"] == "end_turn" else result.response.finish_reason
        )
        usage, raw = result.response.usage, want["usage"]
        assert usage is not None
        assert usage.input_tokens == (
            raw["input_tokens"]
            + raw["cache_read_input_tokens"]
            + raw["cache_creation_input_tokens"]
        )
        assert usage.output_tokens == raw["output_tokens"]


@pytest.mark.parametrize("entry", _entries("gemini", "batch"))
def test_gemini_batch_jobs(entry: dict[str, Any]) -> None:
    expected = corpus.expected(entry)
    assert expected is not None
    data = orjson.loads(corpus.body(entry))
    part = GeminiBatches().part(data)
    assert part.id == expected["name"]
    assert part.status == gemini_status(expected["state"]) and part.status in NORMALIZED
    items = inlined(data)
    assert len(items) == expected["n_inlined_responses"]
    call = _call("gemini:gemini-2.5-flash")
    for index, (item, want) in enumerate(zip(items, expected["inlined"], strict=True)):
        result = gemini_item(call, item, index)
        assert result.status == "succeeded" and result.response is not None
        assert result.id == item["metadata"]["custom_id"]
        assert result.response.text == want["text"]
        usage, raw = result.response.usage, want["usage"]
        assert usage is not None and usage.input_tokens == raw["prompt_token_count"]
        assert usage.output_tokens == raw["candidates_token_count"] + raw["thoughts_token_count"]
        assert usage.reasoning_tokens == raw["thoughts_token_count"]


@pytest.mark.parametrize("entry", _entries("xai", "batch"))
def test_xai_batches(entry: dict[str, Any]) -> None:
    data = orjson.loads(corpus.body(entry))
    expected = corpus.expected(entry)
    assert expected is not None and expected["id"] is None  # not an OpenAI Batch: its own API
    part = xai_part(data)
    state = data["state"]
    assert part.id == data["batch_id"] and part.counts.total == state["num_requests"]
    assert part.counts.pending == state["num_pending"]
    assert part.counts.succeeded == state["num_success"]
    assert part.status == (
        "running" if state["num_pending"] else ("completed" if state["num_requests"] else "queued")
    )
