"""The common sampling settings (``seed``, ``top_k``, ``presence_penalty``,
``frequency_penalty``): sent under each API's own field names, checked against the official
SDKs' request types, or named in ``StreamStart.warnings`` where a provider has no such setting."""

from __future__ import annotations

from typing import Any

import pytest

import llmbridge as lb
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.types import ChatMessage, ChatRequest

SETTINGS: dict[str, Any] = {
    "seed": 7,
    "top_k": 40,
    "presence_penalty": 0.5,
    "frequency_penalty": -0.25,
}


def _request(**settings: Any) -> ChatRequest:
    return ChatRequest(model="m-1", messages=[ChatMessage.user("hi")], **settings)


def _built(name: str) -> tuple[dict[str, Any], list[str]]:
    """The body an OpenAI-compatible or Gemini provider sends, and its StreamStart warnings."""
    config = ProviderConfig.from_mapping({"api_key": "k", "base_url": "http://127.0.0.1:9/v1"})
    provider = create_provider(name, config)
    request = _request(**SETTINGS)
    prepared = provider.prepare(request)  # type: ignore[attr-defined]
    return prepared.http.json, list(prepared.warnings)


def test_openai_chat_sends_seed_and_penalties_and_names_the_missing_top_k() -> None:
    body, warnings = _built("openai")
    assert (body["seed"], body["presence_penalty"], body["frequency_penalty"]) == (7, 0.5, -0.25)
    assert "top_k" not in body
    assert any(w.startswith("top_k: openai does not take it") for w in warnings)


@pytest.mark.parametrize("name", ["llamacpp", "vllm", "lmstudio", "openrouter", "together"])
def test_servers_that_take_top_k_get_it(name: str) -> None:
    body, warnings = _built(name)
    assert body["top_k"] == 40 and body["seed"] == 7
    assert not any(w.startswith("top_k") for w in warnings)


def test_mistral_gets_its_own_seed_field() -> None:
    body, _ = _built("mistral")
    assert body["random_seed"] == 7 and "seed" not in body


def test_chat_completions_field_names_match_the_openai_sdk() -> None:
    params = pytest.importorskip("openai.types.chat.completion_create_params")
    fields = params.CompletionCreateParamsBase.__annotations__
    assert {"seed", "presence_penalty", "frequency_penalty"} <= fields.keys()


def test_responses_api_drops_each_setting_with_a_warning() -> None:
    from llmbridge.providers.openai_responses.request import build_body

    request = _request(**SETTINGS)
    body, warnings = build_body(request)
    assert not SETTINGS.keys() & body.keys()
    warned = " ".join(warnings)
    assert all(name in warned for name in SETTINGS)
    params = pytest.importorskip("openai.types.responses.response_create_params")
    assert not SETTINGS.keys() & params.ResponseCreateParamsBase.__annotations__.keys()


def test_anthropic_drops_each_setting_with_a_warning() -> None:
    from llmbridge.providers.anthropic.request import build_body

    body, warnings, _ = build_body(
        _request(**SETTINGS), provider_name="anthropic", api_version="2026-10-21"
    )
    assert not SETTINGS.keys() & body.keys()
    assert all(any(name in w for w in warnings) for name in SETTINGS)
    older, _, _ = build_body(
        _request(top_k=40), provider_name="anthropic", api_version="2023-06-01"
    )
    assert older["top_k"] == 40  # the API version that still takes sampling settings


def test_gemini_sends_every_setting_in_generation_config() -> None:
    body, warnings = _built("gemini")
    assert body["generationConfig"] == {
        "seed": 7,
        "topK": 40,
        "presencePenalty": 0.5,
        "frequencyPenalty": -0.25,
    }
    assert warnings == []


def test_gemini_field_names_match_the_google_sdk() -> None:
    models = pytest.importorskip("google.genai.models")
    source = __import__("inspect").getsource(models)
    for field in ("'seed'", "'topK'", "'presencePenalty'", "'frequencyPenalty'"):
        assert f"[{field}]" in source


def test_client_options_reach_the_request() -> None:
    client = lb.Client()
    request = client.build_request("m-1", [ChatMessage.user("hi")], **SETTINGS)
    assert (request.seed, request.top_k) == (7, 40)
    assert (request.presence_penalty, request.frequency_penalty) == (0.5, -0.25)
