"""The whole (non-streaming) requests, judged by the official SDKs' own types for the
non-streaming call: openai ``CompletionCreateParamsNonStreaming`` /
``ResponseCreateParamsNonStreaming``, anthropic ``MessageCreateParamsNonStreaming``, botocore's
``Converse`` input shape (and its URL), google-genai's types, the ``cohere`` v2 ``chat``
keywords and the ``ollama`` client's ``ChatRequest``; and, for every family, the same body as
the streamed request but for the stream fields."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from pydantic import TypeAdapter

import llmbridge as lb
from llmbridge.providers import ProviderConfig, create_provider
from tests.sdk_requests import _strict, _without_extensions, check_body, check_ollama_body

REQUEST = lb.ChatRequest(
    model="m-1",
    messages=[lb.ChatMessage.system("Be brief."), lb.ChatMessage.user("Weather in Oslo?")],
    tools=[lb.ToolSpec(name="weather", parameters={"type": "object", "properties": {}})],
    temperature=0.2,
    max_tokens=100,
)
CONFIG = {
    "bedrock": {"region": "us-east-1"},
    "vertex": {"access_token": "t", "project": "p", "location": "global"},
    "anthropic-vertex": {"access_token": "t", "project": "p", "location": "global"},
    "anthropic-bedrock": {"region": "us-east-1"},
    "ollama-native": {},
}


def _prepared(name: str, *, stream: bool | None) -> Any:
    config = ProviderConfig.from_mapping({"api_key": "k", **CONFIG.get(name, {})})
    provider = create_provider(name, config)
    return provider.prepare(REQUEST.model_copy(update={"stream": stream}))


STREAM_FIELDS = {
    "openai": {"stream", "stream_options"},
    "groq": {"stream", "stream_options"},
    "anthropic": {"stream"},
    "anthropic-bedrock": set(),
    "anthropic-vertex": {"stream"},
    "openai-responses": {"stream"},
    "gemini": set(),
    "vertex": set(),
    "bedrock": set(),
    "cohere": {"stream"},
    "ollama-native": {"stream"},
}
"""What the streamed body has that the whole one lacks (or sends as ``false``)."""


@pytest.mark.parametrize("name", sorted(STREAM_FIELDS))
def test_the_whole_body_is_the_streamed_one_but_for_the_stream_fields(name: str) -> None:
    whole, streamed = _prepared(name, stream=False), _prepared(name, stream=None)
    assert whole.framing == "whole" and streamed.framing != "whole"
    assert whole.http.headers["accept" if "accept" in whole.http.headers else "Accept"] == (
        "application/json"
    )
    fields = STREAM_FIELDS[name]
    assert {k: v for k, v in whole.http.json.items() if k not in fields} == {
        k: v for k, v in streamed.http.json.items() if k not in fields
    }
    for field in fields:
        assert whole.http.json.get(field) in (None, False)
    assert whole.http.url != streamed.http.url or fields


def test_chat_completions_whole_body_is_the_sdks_non_streaming_params() -> None:
    params = pytest.importorskip("openai.types.chat.completion_create_params")
    body = _prepared("openai", stream=False).http.json
    _strict(TypeAdapter(params.CompletionCreateParamsNonStreaming), _without_extensions(body))


def test_responses_whole_body_is_the_sdks_non_streaming_params() -> None:
    params = pytest.importorskip("openai.types.responses.response_create_params")
    body = _prepared("openai-responses", stream=False).http.json
    assert body["stream"] is False
    _strict(TypeAdapter(params.ResponseCreateParamsNonStreaming), body)


def test_anthropic_whole_body_is_the_sdks_non_streaming_params() -> None:
    params = pytest.importorskip("anthropic.types.message_create_params")
    body = _prepared("anthropic", stream=False).http.json
    _strict(TypeAdapter(params.MessageCreateParamsNonStreaming), body)


def test_converse_whole_request_is_botocores_converse() -> None:
    from tests.providers.bedrock.botocore_model import check

    prepared = _prepared("bedrock", stream=False)
    check(prepared.http.url, prepared.http.json, model_id="m-1", operation="Converse")


@pytest.mark.parametrize("name", ["gemini", "vertex"])
def test_generate_content_whole_body_is_google_genais(name: str) -> None:
    prepared = _prepared(name, stream=False)
    assert prepared.http.url.endswith("/m-1:generateContent")
    check_body("gemini", prepared.http.json)


def test_cohere_whole_body_is_the_v2_chat_keywords() -> None:
    cohere = pytest.importorskip("cohere")
    body = _prepared("cohere", stream=False).http.json
    assert body["stream"] is False
    params = set(inspect.signature(cohere.ClientV2.chat).parameters) - {"self", "request_options"}
    assert set(body) - {"stream"} <= params
    check_body("cohere", {**body, "stream": True})  # the same types, streamed or not


def test_ollama_whole_body_is_the_clients_chat_request() -> None:
    body = _prepared("ollama-native", stream=False).http.json
    assert body["stream"] is False
    check_ollama_body(body)


@pytest.mark.parametrize(
    ("name", "ending"),
    [
        ("anthropic-bedrock", "/model/m-1/invoke"),
        ("anthropic-vertex", "/publishers/anthropic/models/m-1:rawPredict"),
        ("bedrock", "/model/m-1/converse"),
    ],
)
def test_the_clouds_whole_routes(name: str, ending: str) -> None:
    assert _prepared(name, stream=False).http.url.endswith(ending)
