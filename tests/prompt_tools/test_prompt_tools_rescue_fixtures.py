"""Leaked tool markup in real server framing (``tests/prompt_tools/fixtures``), end to end.

Each fixture is an OpenAI-compatible stream whose ``content`` carries a model's tool-call markup
(see ``fixtures/make_leak_fixtures.py`` for where each byte comes from). Checked in both
directions, whole, split at every offset and through the client: the presets of the servers
known to leak (llama.cpp, Ollama, vLLM, LM Studio) rescue by default, ``rescue_tool_calls=False``
turns it off, and the official ``openai`` SDK reads the same bytes as plain content (it has no
rescue: the markup stays in ``content``, which is what llmbridge gives with rescue off).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.client.pipeline import plan_request
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.testing import (
    ReplayTransport,
    assert_split_invariant,
    check_invariants,
    decode_collect,
    iter_sse,
    load_fixture,
    merge_deltas,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures"
ALL = sorted(p.parent for p in FIXTURES.glob("*/*/input.json"))
IDS = [f"{p.parent.name}/{p.name}" for p in ALL]
PARIS = ("get_weather", {"city": "Paris"})
# scenario -> (rescued calls, text left over)
EXPECTED: dict[str, tuple[list[tuple[str, dict[str, Any]]], str | None]] = {
    "mistral_v3_tool_calls_leak": ([PARIS], ""),
    "mistral_v11_args_leak": ([PARIS], ""),
    "llama_python_tag_leak": ([PARIS], ""),
    "undeclared_tool_stays_text": ([], '[TOOL_CALLS]delete_files[ARGS]{"path": "/"}'),
    "hermes_tool_call_leak": ([PARIS], "I'll check.\n"),
    "kimi_k2_section_leak": ([PARIS], ""),
    "gpt_oss_harmony_leak": ([PARIS], ""),
    "real_marker_text_stays_text": ([], None),  # the text is the content, byte-exact
}


def _provider(path: Path) -> Any:
    fx = load_fixture(path)
    config = ProviderConfig.from_mapping({**fx.provider_config, "api_key": "test-key"})
    return fx, create_provider(fx.provider, config)


def _content(body: bytes) -> str:
    """The ``content`` the server sent, joined (what a reader without rescue shows)."""
    out = []
    for _, data in iter_sse(body):
        if data and data != "[DONE]":
            for choice in orjson.loads(data)["choices"]:
                out.append(choice["delta"].get("content") or "")
    return "".join(out)


def _text(events: list[lb.StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, lb.TextDelta))


def _calls(events: list[lb.StreamEvent]) -> list[tuple[str, dict[str, Any]]]:
    return [(e.name, e.arguments) for e in events if isinstance(e, lb.ToolCallEnd)]


def test_every_fixture_has_an_expectation() -> None:
    assert sorted(p.name for p in ALL) == sorted(EXPECTED)


@pytest.mark.parametrize("path", ALL, ids=IDS)
def test_encoder_builds_recorded_request(path: Path) -> None:
    fx, provider = _provider(path)
    built = provider.build_request(fx.request)
    headers = {k.lower(): v for k, v in built.redacted_headers().items()}
    recorded = dict(fx.http_request)
    # a live recording keeps only the headers that identify the request (content-type here)
    assert {k.lower(): v for k, v in recorded.pop("headers").items()}.items() <= headers.items()
    assert {"method": built.method, "url": built.url, "body": built.json} == recorded


@pytest.mark.parametrize("path", ALL, ids=IDS)
def test_preset_default_rescues_and_yields_golden_events(path: Path) -> None:
    fx, provider = _provider(path)
    new_decoder = plan_request(provider, fx.request, rescue=None).new_decoder  # the preset's
    events, error = decode_collect(new_decoder(), fx.body_chunks())
    assert error is None and events == fx.events
    check_invariants(events)
    calls, text = EXPECTED[path.name]
    assert _calls(events) == calls
    assert _text(events) == (_content(fx.body) if text is None else text)
    finish = events[-1]
    assert isinstance(finish, lb.Finish)
    warnings = (finish.provider_data or {}).get("warnings", [])
    if calls:
        assert finish.reason == "tool_calls" and finish.raw_reason == "stop"
        assert len(warnings) == 1 and warnings[0].startswith(f"rescued {len(calls)} tool call")
    else:
        assert warnings == []
    assert_split_invariant(new_decoder, fx.body, max_splits=400)


@pytest.mark.parametrize("path", ALL, ids=IDS)
def test_rescue_off_leaves_the_markup_as_the_sdk_reads_it(path: Path) -> None:
    fx, provider = _provider(path)
    new_decoder = plan_request(provider, fx.request, rescue=False).new_decoder
    events, error = decode_collect(new_decoder(), fx.body_chunks())
    assert error is None
    assert _calls(events) == [] and _text(events) == _content(fx.body)
    assert merge_deltas(events) == merge_deltas(
        decode_collect(provider.new_decoder(fx.request), fx.body_chunks())[0]
    )


@pytest.mark.anyio
@pytest.mark.parametrize("rescue", [None, False])
@pytest.mark.parametrize("path", ALL, ids=IDS)
async def test_replay_through_client(path: Path, rescue: bool | None) -> None:
    fx = load_fixture(path)
    transport = ReplayTransport(fx, chunk_size=7)
    client = lb.Client(
        http_client=httpx.AsyncClient(transport=transport),
        providers={fx.provider: {**fx.provider_config, "api_key": "test-key"}},
        retry=lb.RetryPolicy(max_attempts=1),
    )
    async with client:
        provider, _ = client.resolve(fx.model)
        events = [e async for e in client.stream_request(provider, fx.request, rescue=rescue)]
    transport.assert_all_played()
    if rescue is None:
        assert merge_deltas(events) == merge_deltas(fx.events or [])
    else:
        assert _calls(events) == [] and _text(events) == _content(fx.body)


@pytest.mark.parametrize("path", ALL, ids=IDS)
def test_official_sdk_reads_the_markup_as_content(path: Path) -> None:
    openai = pytest.importorskip("openai")
    fx = load_fixture(path)

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=fx.headers, content=fx.body)

    sdk = openai.OpenAI(
        api_key="sk-fake",
        base_url="http://sdk.test/v1",
        http_client=httpx.Client(transport=httpx.MockTransport(handler)),
    )
    body = fx.http_request["body"]
    content, tool_calls, finish = [], [], None
    for chunk in sdk.chat.completions.create(**{**body, "stream": True}):
        for choice in chunk.choices:
            content.append(choice.delta.content or "")
            tool_calls += choice.delta.tool_calls or []
            finish = choice.finish_reason or finish
    # The SDK has no rescue: the leaked markup is content and the finish stays "stop".
    assert "".join(content) == _content(fx.body)
    assert tool_calls == [] and finish in ("stop", "length")


@pytest.mark.anyio
@pytest.mark.parametrize("rescue", [None, True, False])
async def test_client_stream_takes_rescue_tool_calls(rescue: bool | None) -> None:
    fx = load_fixture(FIXTURES / "vllm" / "mistral_v11_args_leak")
    transport = ReplayTransport(fx, chunk_size=5)
    client = lb.Client(
        http_client=httpx.AsyncClient(transport=transport),
        providers={"vllm": {"api_key": "test-key"}},
        retry=lb.RetryPolicy(max_attempts=1),
    )
    options: dict[str, Any] = {} if rescue is None else {"rescue_tool_calls": rescue}
    async with client:
        stream = client.stream(fx.model, fx.request.messages, tools=fx.request.tools, **options)
        events = [e async for e in stream]
    assert _calls(events) == ([] if rescue is False else [PARIS])
