"""A call is prepared once: every built-in provider encodes a request exactly once, a retried
call is resent as it was prepared (no second encode), and the encoder's warnings still reach
the stream's ``StreamStart`` (stamped by the attempt loop, not by the decoder)."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import httpx
import pytest

import llmbridge as lb
from llmbridge.testing import load_fixture

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

CASES = {
    "anthropic/text": "anthropic.provider",
    "anthropic-bedrock/invocation_metrics": "anthropic_clouds.base",
    "azure/deployment_plain_text": "openai.provider",
    "bedrock/plain_text": "bedrock.provider",
    "cohere/text": "cohere.provider",
    "gemini/text": "gemini.provider",
    "vertex/text_global": "gemini.provider",
    "groq/whole_call_one_chunk": "openai.provider",
    "ollama-native/text": "ollama_native.provider",
    "openai/plain_text": "openai.provider",
    "openai-responses/text": "openai_responses.provider",
}
"""A fixture of each built-in provider (and preset host), and the module whose ``build_body``
encodes its requests."""


def _count_encodes(monkeypatch: pytest.MonkeyPatch, module: str) -> list[int]:
    target = importlib.import_module(f"llmbridge.providers.{module}")
    real = target.build_body
    calls = [0]

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(target, "build_body", counting)
    return calls


def _serve(fx: Any, *, fail_first: bool) -> tuple[httpx.AsyncClient, list[bytes]]:
    sent: list[bytes] = []

    def handle(request: httpx.Request) -> httpx.Response:
        sent.append(request.content)
        if fail_first and len(sent) == 1:
            return httpx.Response(503, json={"error": {"message": "busy"}})
        return httpx.Response(fx.status, headers=fx.headers, content=fx.body)

    return httpx.AsyncClient(transport=httpx.MockTransport(handle)), sent


async def _stream(fx: Any, http: httpx.AsyncClient) -> list[lb.StreamEvent]:
    retry = lb.RetryPolicy(max_attempts=2, initial_delay=0.001, max_delay=0.002)
    options = {**fx.provider_config, "api_key": "test-key"}
    async with lb.Client(http_client=http, providers={fx.provider: options}, retry=retry) as client:
        provider, _ = client.resolve(fx.model)
        return [e async for e in client.stream_request(provider, fx.request)]


@pytest.mark.parametrize("fail_first", [False, True], ids=["one attempt", "503 then 200"])
@pytest.mark.parametrize("case", sorted(CASES))
async def test_each_provider_encodes_a_call_once(
    case: str, fail_first: bool, monkeypatch: pytest.MonkeyPatch, anyio_backend: Any
) -> None:
    fx = load_fixture(FIXTURES / case)
    calls = _count_encodes(monkeypatch, CASES[case])
    http, sent = _serve(fx, fail_first=fail_first)
    events = await _stream(fx, http)
    assert len(sent) == (2 if fail_first else 1)
    assert calls[0] == 1, f"{case}: encoded {calls[0]} times"
    assert len(set(sent)) == 1  # the retry resent the prepared body as it was
    assert isinstance(events[0], lb.StreamStart)


async def test_warnings_of_the_encoder_and_the_planning_reach_stream_start(
    monkeypatch: pytest.MonkeyPatch, anyio_backend: Any
) -> None:
    fx = load_fixture(FIXTURES / "anthropic/text")
    calls = _count_encodes(monkeypatch, CASES["anthropic/text"])
    deferred = lb.ToolSpec.from_json_schema("lookup", "Look up.", {"type": "object"})
    request = fx.request.model_copy(
        update={"temperature": 0.3, "seed": 1, "tools": [deferred.deferred(True)]}
    )
    http, _ = _serve(fx, fail_first=False)
    events = await _stream(fx.__class__(**{**fx.__dict__, "request": request}), http)
    start = events[0]
    assert isinstance(start, lb.StreamStart)
    encoder = [w for w in start.warnings if "temperature" in w or "seed" in w]
    planning = [w for w in start.warnings if "defer_loading" in w]
    assert len(encoder) == 2 and len(planning) == 1
    assert start.warnings.index(planning[0]) > start.warnings.index(encoder[-1])
    assert calls[0] == 1


def test_capabilities_are_asked_once_per_request(monkeypatch: pytest.MonkeyPatch) -> None:
    from llmbridge.client.pipeline import plan_request
    from llmbridge.providers import ProviderConfig, create_provider
    from llmbridge.providers.openai.provider import OpenAIChatProvider

    asked: list[str] = []
    real = OpenAIChatProvider.capabilities

    def counting(self: OpenAIChatProvider, model: str) -> Any:
        asked.append(model)
        return real(self, model)

    monkeypatch.setattr(OpenAIChatProvider, "capabilities", counting)
    provider = create_provider("openai", ProviderConfig.from_mapping({"api_key": "k"}))
    tool = lb.ToolSpec.from_json_schema("lookup", "Look up.", {"type": "object"})
    request = lb.ChatRequest(
        model="gpt-4.1-mini",
        messages=[lb.ChatMessage.user("hi")],
        tools=[tool.deferred(True)],
        response_format=lb.ResponseFormat.json_object(),
    )  # the format plan and the tool plan both read the capabilities
    prepared = plan_request(provider, request, rescue=None)
    assert asked == ["gpt-4.1-mini"]
    assert any("defer_loading" in w for w in prepared.warnings)
