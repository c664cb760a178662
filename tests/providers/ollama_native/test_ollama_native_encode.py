"""``ollama-native`` requests: the body (checked against the ``ollama`` client's types), the
host as ``OLLAMA_HOST`` says, keys, warnings, the model list and HTTP errors."""

from __future__ import annotations

from typing import Any

import pytest

import llmbridge as lb
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.ollama_native.provider import parse_host
from tests.sdk_requests import check_ollama_body

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
WEATHER = lb.ToolSpec.from_json_schema(
    "get_weather", "Weather.", {"type": "object", "properties": {"city": {"type": "string"}}}
)


def _provider(**config: Any) -> Any:
    return create_provider("ollama-native", ProviderConfig.from_mapping({"env": {}, **config}))


def _body(request: lb.ChatRequest, **config: Any) -> dict[str, Any]:
    body = _provider(**config).build_request(request).json
    check_ollama_body(body)
    return body  # type: ignore[no-any-return]


def test_a_whole_conversation() -> None:
    messages = [
        lb.ChatMessage.system("Be brief."),
        lb.ChatMessage.user("Look", lb.ImagePart(data=PNG, media_type="image/png")),
        lb.ChatMessage.assistant(
            "Checking.",
            tool_calls=[lb.ToolCallPart(id="c1", name="get_weather", arguments={"city": "Quito"})],
            reasoning=[
                lb.ReasoningPart(text="mine", provider="ollama-native"),
                lb.ReasoningPart(text="theirs", provider="anthropic", signature="s" * 20),
            ],
        ),
        lb.ChatMessage.tool_result("c1", "18 C"),
    ]
    request = lb.ChatRequest(
        model="qwen3:8b",
        messages=messages,
        tools=[WEATHER],
        temperature=0.2,
        top_p=0.9,
        top_k=40,
        seed=7,
        max_tokens=100,
        stop=["END"],
        presence_penalty=0.1,
        frequency_penalty=0.2,
        reasoning=lb.ReasoningConfig(effort="minimal"),
    )
    body = _body(
        request, num_ctx=32768, keep_alive="10m", options={"repeat_penalty": 1.1, "temperature": 1}
    )
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Look", "images": ["iVBORw0KGgoAAAAAAAAAAA=="]},
        {
            "role": "assistant",
            "content": "Checking.",
            "thinking": "mine",
            "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Quito"}}}],
        },
        {"role": "tool", "content": "18 C", "tool_name": "get_weather"},
    ]
    assert body["tools"][0] == {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather.",
            "parameters": WEATHER.parameters,
        },
    }
    assert body["options"] == {
        "repeat_penalty": 1.1,
        "num_ctx": 32768,
        "temperature": 0.2,  # the request's own setting wins
        "top_p": 0.9,
        "top_k": 40,
        "seed": 7,
        "num_predict": 100,
        "stop": ["END"],
        "presence_penalty": 0.1,
        "frequency_penalty": 0.2,
    }
    assert (body["think"], body["keep_alive"], body["stream"]) == ("low", "10m", True)


@pytest.mark.parametrize(
    ("reasoning", "think"),
    [
        (lb.ReasoningConfig(effort="high"), "high"),
        (lb.ReasoningConfig(budget_tokens=2000), True),
        (lb.ReasoningConfig(budget_tokens=0), False),
        (None, None),
    ],
)
def test_think(reasoning: lb.ReasoningConfig | None, think: Any) -> None:
    body = _body(
        lb.ChatRequest(model="m", messages=[lb.ChatMessage.user("hi")], reasoning=reasoning)
    )
    assert body.get("think") == think


def test_format_schema_and_json_mode() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "$schema": "x"}
    fmt = lb.ResponseFormat(schema=schema)
    request = lb.ChatRequest(model="m", messages=[lb.ChatMessage.user("hi")], response_format=fmt)
    assert _body(request)["format"] == {"type": "object", "properties": {"a": {"type": "integer"}}}
    request = request.model_copy(
        update={"response_format": lb.ResponseFormat(schema={"type": "object"})}
    )
    assert _body(request)["format"] == "json"


def test_tool_choice_and_warnings() -> None:
    provider = _provider()
    base = lb.ChatRequest(model="m", messages=[lb.ChatMessage.user("hi")], tools=[WEATHER])
    none = base.model_copy(update={"tool_choice": lb.ToolChoice(mode="none")})
    assert "tools" not in provider.build_request(none).json
    required = base.model_copy(
        update={"tool_choice": lb.ToolChoice(mode="required"), "parallel_tool_calls": False}
    )
    assert "tools" in provider.build_request(required).json
    warnings = provider.prepare(required).warnings
    assert any("tool_choice" in w for w in warnings)
    assert any("parallel_tool_calls" in w for w in warnings)
    prompt = base.model_copy(update={"tool_mode": "prompt"})
    assert "tools" not in provider.build_request(prompt).json


def test_what_ollama_cannot_take_is_refused() -> None:
    for part in (
        lb.ImagePart(url="https://x.test/a.png"),
        lb.AudioPart(data=b"x", media_type="audio/wav"),
        lb.DocumentPart(data=b"%PDF", media_type="application/pdf"),
    ):
        request = lb.ChatRequest(model="m", messages=[lb.ChatMessage.user("hi", part)])
        with pytest.raises(lb.UnsupportedFeatureError):
            _provider().build_request(request)
    doc = lb.DocumentPart(data=b"notes", media_type="text/plain", name="a.txt")
    request = lb.ChatRequest(model="m", messages=[lb.ChatMessage.user("hi", doc)])
    assert _body(request)["messages"][0]["content"] == "hi\na.txt:\nnotes"


@pytest.mark.parametrize(
    ("host", "url"),
    [
        (None, "http://localhost:11434"),
        ("", "http://localhost:11434"),
        ("1.2.3.4", "http://1.2.3.4:11434"),
        (":56789", "http://127.0.0.1:56789"),
        ("https://example.com", "https://example.com:443"),
        ("example.com:56789/path/", "http://example.com:56789/path"),
        ("[::1]:5000", "http://[::1]:5000"),
    ],
)
def test_host_as_the_ollama_client_reads_it(host: str | None, url: str) -> None:
    assert parse_host(host) == url
    if host:
        from ollama._client import _parse_host

        assert parse_host(host) == _parse_host(host)
    env = {} if host is None else {"OLLAMA_HOST": host}
    request = lb.ChatRequest(model="m", messages=[lb.ChatMessage.user("hi")])
    assert _provider(env=env).build_request(request).url == f"{url}/api/chat"


def test_base_url_wins_and_keys_are_optional() -> None:
    request = lb.ChatRequest(model="m", messages=[lb.ChatMessage.user("hi")])
    provider = _provider(base_url="http://box:11434/v1/", env={"OLLAMA_HOST": "other"})
    built = provider.build_request(request)
    assert built.url == "http://box:11434/api/chat" and "authorization" not in built.headers
    keyed = _provider(env={"OLLAMA_API_KEY": "sekret-123"}).build_request(request)
    assert keyed.headers["authorization"] == "Bearer sekret-123"
    assert "sekret" not in repr(keyed) and "sekret" not in repr(_provider(api_key="sekret-123"))


def test_model_list_and_errors() -> None:
    provider = _provider()
    listed = provider.models_request(None)
    assert (listed.method, listed.url, listed.json) == (
        "GET",
        "http://localhost:11434/api/tags",
        None,
    )
    data = {
        "models": [
            {
                "name": "qwen3:8b",
                "model": "qwen3:8b",
                "modified_at": "2025-05-01T10:00:00.123456789-07:00",
                "size": 5,
            },
            {"nope": 1},
        ]
    }
    models, cursor = provider.parse_models(data)
    assert cursor is None and [m.model for m in models] == ["ollama-native:qwen3:8b"]
    assert models[0].created == 1746118800 and models[0].context_window is None
    with pytest.raises(lb.MalformedStreamError):
        provider.parse_models({"data": []})
    missing = provider.map_error(
        status=404, headers={}, body=b'{"error":"model \\"x\\" not found, try pulling it first"}'
    )
    assert isinstance(missing, lb.NotFoundError) and "not found" in missing.message
    assert isinstance(
        provider.map_error(status=400, headers={}, body=b'{"error":"x does not support tools"}'),
        lb.InvalidRequestError,
    )
    assert isinstance(provider.map_error(status=500, headers={}, body=b"boom"), lb.ServerError)
