"""Hosted tool specs on Chat Completions servers (OpenAI's search models, OpenRouter): request
bodies checked against the SDK's types, refusals, and ``url_citation`` annotations decoded."""

from __future__ import annotations

import json

import pytest

import llmbridge as lb
from llmbridge.providers import ProviderConfig, create_provider
from tests.providers.test_hosted_requests import _request
from tests.sdk_requests import check_body


# -- Chat Completions: OpenAI's search models, OpenRouter ----------------------------------
def test_openai_search_models_take_web_search_options() -> None:
    p, req, built = _request(
        "openai",
        "gpt-4o-search-preview",
        lb.WebSearch(
            context_size="low",
            max_uses=2,
            user_location=lb.UserLocation(city="Lisbon", country="PT"),
        ),
    )
    assert built.json["web_search_options"] == {
        "search_context_size": "low",
        "user_location": {
            "type": "approximate",
            "approximate": {"city": "Lisbon", "country": "PT"},
        },
    }
    check_body("chat", built.json)
    assert any("max_uses=2" in w for w in list(p.prepare(req).warnings))
    assert p.capabilities("gpt-4o-search-preview").hosted_tools == {"web_search"}
    assert p.capabilities("gpt-4.1").hosted_tools == frozenset()


def test_openrouter_runs_web_search_as_its_server_tool() -> None:
    p, _, built = _request(
        "openrouter", "deepseek/deepseek-chat", lb.WebSearch(max_uses=1, context_size="medium")
    )
    assert built.json["tools"][1:] == [
        {
            "type": "openrouter:web_search",
            "parameters": {"max_uses": 1, "search_context_size": "medium"},
        }
    ]
    assert p.capabilities("any/model").hosted_tools == {"web_search"}
    # the rest of the body is what the SDK types (the server tool is OpenRouter's extension)
    check_body("chat", {**built.json, "tools": built.json["tools"][:1]})


@pytest.mark.parametrize("provider", ["openai", "openrouter"])
def test_chat_web_search_refuses_domain_filters(provider: str) -> None:
    with pytest.raises(lb.ConfigurationError, match="no domain filters"):
        _request(provider, "gpt-4o-search-preview", lb.WebSearch(allowed_domains=["a.com"]))


@pytest.mark.parametrize("preset", ["groq", "ollama", "vllm", "deepseek", "mistral", "xai"])
def test_other_presets_run_no_hosted_tools(preset: str) -> None:
    p = create_provider(
        preset, ProviderConfig.from_mapping({"api_key": "k", "base_url": "http://x/v1"})
    )
    assert p.capabilities("some-search-model").hosted_tools == frozenset()


def test_chat_annotations_become_citations() -> None:
    from llmbridge.providers.openai.decode import ChatCompletionsDecoder

    decoder = ChatCompletionsDecoder(provider="openai")
    note = {"type": "url_citation", "url_citation": {"url": "https://a.example", "title": "",
            "start_index": 0, "end_index": 5, "content": "cited"}}  # fmt: skip
    chunks = [
        {"id": "c1", "model": "m", "choices": [{"index": 0, "delta": {"content": "Hello"},
                                                "finish_reason": None}]},
        {"id": "c1", "model": "m", "choices": [{"index": 0, "delta": {"annotations": [note]},
                                                "finish_reason": None}]},
        {"id": "c1", "model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]  # fmt: skip
    events = [e for c in chunks for e in decoder.feed("", json.dumps(c))]
    events += decoder.feed("", "[DONE]") + decoder.close()
    assert [e for e in events if isinstance(e, lb.Citation)] == [
        lb.Citation("https://a.example", None, "cited")
    ]
