"""Requests of ``gemini-interactions:`` / ``vertex-interactions:``: every body is checked
against the google-genai SDK's Interactions types (``sdk.strays``: no unknown variant, no field
the SDK lacks) and sent through the SDK's own ``interactions.create`` to compare what it sends.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import orjson
import pytest
from pydantic import BaseModel

import llmbridge as lb
from llmbridge.hosted import CodeExecution, FileSearch, WebFetch, WebSearch
from llmbridge.parts import ImagePart, RawPart, ReasoningPart, ToolCallPart
from llmbridge.providers.gemini_interactions import API_REVISION, create, create_vertex
from llmbridge.providers.gemini_interactions.request import build_body
from tests.providers.interactions.sdk import strays

PROVIDER = "gemini-interactions"
PNG = b"\x89PNG\r\n\x1a\n"


def gemini(**options: Any) -> Any:
    return create(lb.ProviderConfig.from_mapping({"api_key": "AIza-secret", **options}))


def _sdk_sent(body: dict[str, Any]) -> dict[str, Any]:
    """What google-genai's ``interactions.create`` sends for the same fields."""
    from google import genai
    from google.genai import types

    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=b"")

    http = httpx.Client(transport=httpx.MockTransport(handler))
    client = genai.Client(api_key="k", http_options=types.HttpOptions(httpx_client=http))
    list(
        client.interactions.create(**{k: v for k, v in body.items() if k != "stream"}, stream=True)
    )
    sent: dict[str, Any] = json.loads(seen[0].content)
    return sent


def _conversation() -> list[lb.ChatMessage]:
    call = ToolCallPart(id="fc_1", name="get_weather", arguments={"city": "Paris"})
    thought = ReasoningPart(text="Check the weather.", signature="c2lnbmVk", provider=PROVIDER)
    search = RawPart(
        provider=PROVIDER,
        data={"type": "google_search_call", "id": "gs_1", "arguments": {"queries": ["paris"]}},
    )
    return [
        lb.ChatMessage.system("Be brief."),
        lb.ChatMessage.user("Weather in Paris?", ImagePart(data=PNG, media_type="image/png")),
        lb.ChatMessage(role="assistant", content=[thought, search, call]),
        lb.ChatMessage.tool_result("fc_1", '{"temp": 21}', name="get_weather"),
        lb.ChatMessage.user(ImagePart(url="https://example.com/a.png")),
    ]


def test_a_whole_conversation_is_the_sdks_steps() -> None:
    request = lb.ChatRequest(model="gemini-3-flash-preview", messages=_conversation())
    body, warnings = build_body(request, provider=PROVIDER)
    assert strays(body) == [] and warnings == []
    assert _sdk_sent(body) == body
    assert body["system_instruction"] == "Be brief."
    kinds = [step["type"] for step in body["input"]]
    assert kinds == [
        "user_input", "thought", "google_search_call", "function_call", "function_result",
        "user_input",
    ]  # fmt: skip
    assert body["input"][1] == {
        "type": "thought",
        "signature": "c2lnbmVk",
        "summary": [{"type": "text", "text": "Check the weather."}],
    }
    assert body["input"][4] == {
        "type": "function_result", "call_id": "fc_1", "name": "get_weather",
        "result": '{"temp": 21}',
    }  # fmt: skip
    assert body["input"][5]["content"] == [{"type": "image", "uri": "https://example.com/a.png"}]


def test_tools_settings_and_structured_output_are_typed() -> None:
    class City(BaseModel):
        name: str

    def get_weather(city: str) -> str:
        """The weather in a city."""
        return "sunny"

    request = lb.ChatRequest(
        model="gemini-3-flash-preview",
        messages=[lb.ChatMessage.user("hi")],
        tools=[lb.ToolSpec.from_function(get_weather)],
        hosted_tools=[WebSearch(), WebFetch(), CodeExecution(), FileSearch(vector_store_ids=["s"])],
        tool_choice=lb.ToolChoice(mode="tool", name="get_weather"),
        temperature=0.2, top_p=0.9, max_tokens=64, stop=["END"], seed=7,
        reasoning=lb.ReasoningConfig(effort="low"),
        response_format=lb.ResponseFormat(schema=City.model_json_schema()),
    )  # fmt: skip
    body, warnings = build_body(request, provider=PROVIDER)
    assert strays(body) == [] and warnings == []
    assert _sdk_sent(body) == body
    assert [t["type"] for t in body["tools"]] == [
        "function", "google_search", "url_context", "code_execution", "file_search",
    ]  # fmt: skip
    assert body["tools"][4]["file_search_store_names"] == ["s"]
    assert body["generation_config"] == {
        "temperature": 0.2, "top_p": 0.9, "max_output_tokens": 64, "seed": 7,
        "stop_sequences": ["END"], "thinking_level": "low", "thinking_summaries": "auto",
        "tool_choice": {"allowed_tools": {"mode": "any", "tools": ["get_weather"]}},
    }  # fmt: skip
    assert body["response_format"]["mime_type"] == "application/json"
    assert body["response_format"]["schema"]["properties"]["name"]["type"] == "string"


def test_what_the_api_has_no_field_for_is_a_warning_and_not_sent() -> None:
    request = lb.ChatRequest(
        model="gemini-2.5-flash",
        messages=[lb.ChatMessage.user("hi")],
        reasoning=lb.ReasoningConfig(budget_tokens=1024),
        top_k=5,
        presence_penalty=0.1,
    )
    body, warnings = build_body(request, provider=PROVIDER)
    assert strays(body) == []
    assert any("budget_tokens" in w for w in warnings)
    assert any(w.startswith("top_k") for w in warnings)
    assert any(w.startswith("presence_penalty") for w in warnings)
    assert "thinking_level" not in body["generation_config"]


def test_other_providers_reasoning_is_left_out_with_a_warning() -> None:
    foreign = ReasoningPart(text="hmm", signature="sig", provider="anthropic")
    messages = [
        lb.ChatMessage.user("hi"),
        lb.ChatMessage(role="assistant", content=[foreign, lb.TextPart(text="Hello")]),
        lb.ChatMessage.user("again"),
    ]
    request = lb.ChatRequest(model="gemini-2.5-flash", messages=messages)
    body, warnings = build_body(request, provider=PROVIDER)
    assert [s["type"] for s in body["input"]] == ["user_input", "model_output", "user_input"]
    assert any("anthropic" in w for w in warnings)


def test_server_state_options_and_background() -> None:
    request = lb.ChatRequest(
        model="gemini-2.5-flash",
        messages=[lb.ChatMessage.user("and then?")],
        background=True,
        extra={"previous_interaction_id": "v1_prev"},
    )
    body, _ = build_body(request, provider=PROVIDER)
    assert strays(body) == []
    assert (body["background"], body["previous_interaction_id"]) == (True, "v1_prev")
    stateless = request.model_copy(update={"background": None, "extra": {"store": False}})
    assert build_body(stateless, provider=PROVIDER).body["store"] is False
    with pytest.raises(lb.ConfigurationError, match="store=False"):
        build_body(request.model_copy(update={"extra": {"store": False}}), provider=PROVIDER)


def test_the_request_the_provider_sends() -> None:
    provider = gemini()
    request = lb.ChatRequest(model="gemini-2.5-flash", messages=[lb.ChatMessage.user("hi")])
    http = provider.prepare(request).http
    assert (http.method, http.url) == (
        "POST",
        "https://generativelanguage.googleapis.com/v1/interactions",
    )
    assert http.headers["api-revision"] == API_REVISION >= "2026-05-20"
    assert http.headers["x-goog-api-key"] == "AIza-secret"
    assert "AIza-secret" not in repr(provider) + repr(http)
    resume = provider.resume_request("v1_abc", after="evt_7")
    assert resume.method == "GET"
    assert resume.url.endswith("/v1/interactions/v1_abc?stream=true&last_event_id=evt_7")
    assert provider.cancel_request("v1_abc").url.endswith("/interactions/v1_abc/cancel")
    with pytest.raises(lb.LLMBridgeError):
        provider.resume_request("..", after=None)


def test_vertex_addresses_its_project_and_location_with_a_bearer_token() -> None:
    config = lb.ProviderConfig.from_mapping(
        {"api_key": "ya29.token", "project": "proj", "location": "us-central1"}
    )
    provider = create_vertex(config)
    http = provider.build_request(
        lb.ChatRequest(model="gemini-2.5-flash", messages=[lb.ChatMessage.user("hi")])
    )
    assert http.url == (
        "https://us-central1-aiplatform.googleapis.com/v1beta1/projects/proj/locations/"
        "us-central1/interactions"
    )
    assert http.headers["authorization"] == "Bearer ya29.token"
    assert http.json is not None and http.json["model"] == "gemini-2.5-flash"


def test_both_prefixes_are_registered_with_gemini_and_vertex_options() -> None:
    from llmbridge.providers import available_providers

    assert {"gemini-interactions", "vertex-interactions"} <= set(available_providers())
    client = lb.Client(providers={"gemini-interactions": {"api_key": "k", "api_version": "v1beta"}})
    provider = client.provider("gemini-interactions")
    assert provider.name == "gemini-interactions"
    with pytest.raises(lb.ConfigurationError, match="api_versoin"):
        lb.Client(providers={"gemini-interactions": {"api_key": "k", "api_versoin": "v1"}})


def test_documents_audio_and_images_in_tool_results_are_typed_contents() -> None:
    from llmbridge.parts import AudioPart, DocumentPart

    pdf = DocumentPart(data=b"%PDF-1.4", media_type="application/pdf")
    wav = AudioPart(url="data:audio/wav;base64,UklGRg==")
    shot = ImagePart(data=PNG, media_type="image/png")
    call = ToolCallPart(id="fc_9", name="screenshot", arguments={})
    messages = [
        lb.ChatMessage.user("Read these.", pdf, wav),
        lb.ChatMessage(role="assistant", content=[call]),
        lb.ChatMessage.tool_result("fc_9", [lb.TextPart(text="here"), shot]),
    ]
    body, warnings = build_body(
        lb.ChatRequest(model="gemini-3-flash-preview", messages=messages), provider=PROVIDER
    )
    assert strays(body) == [] and warnings == []
    contents = body["input"][0]["content"]
    assert contents[1] == {
        "type": "document",
        "data": "JVBERi0xLjQ=",
        "mime_type": "application/pdf",
    }
    assert contents[2] == {"type": "audio", "data": "UklGRg==", "mime_type": "audio/wav"}
    result = body["input"][2]
    assert result["name"] == "screenshot"
    assert [c["type"] for c in result["result"]] == ["text", "image"]


def test_a_token_provider_replaces_the_key_on_both_hosts() -> None:
    def token() -> str:
        return "ya29.from-provider"

    for factory, options in ((create, {}), (create_vertex, {"project": "p", "location": "global"})):
        config = lb.ProviderConfig.from_mapping({"token_provider": token, **options})
        provider = factory(config)
        http = provider.build_request(
            lb.ChatRequest(model="gemini-2.5-flash", messages=[lb.ChatMessage.user("hi")])
        )
        assert http.auth is not None
        assert "x-goog-api-key" not in http.headers and "authorization" not in http.headers
        assert provider.resume_request("v1_a", after=None).auth is http.auth


def test_a_whole_interaction_body_decodes_to_the_streams_events() -> None:
    from llmbridge.providers.gemini_interactions import WholeInteractionDecoder

    body = {
        "id": "v1_w", "status": "requires_action", "model": "gemini-3-flash-preview",
        "steps": [
            {"type": "thought", "signature": "c2ln"},
            {"type": "function_call", "id": "fc", "name": "f", "arguments": {"x": 1}},
        ],
        "usage": {"total_input_tokens": 2, "total_output_tokens": 1},
    }  # fmt: skip
    decoder = WholeInteractionDecoder(provider=PROVIDER)
    text = orjson.dumps(body).decode()
    assert decoder.feed("", text[:10]) == [] and decoder.feed("", text[10:]) == []
    events = decoder.close()
    end = next(e for e in events if isinstance(e, lb.ToolCallEnd))
    assert (end.id, end.arguments) == ("fc", {"x": 1})
    assert events[-1] == lb.Finish("tool_calls", "requires_action", lb.Usage(2, 1))
