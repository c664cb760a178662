"""Every credential a provider is given stays out of recordings, reprs and errors: options
(Vertex ``access_token``), ``env=`` values, credential headers outside the fixed list, and keys a
server echoes back in a 401 body or in its text."""

from __future__ import annotations

from pathlib import Path

import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.providers.base import ProviderConfig, is_secret_name
from llmbridge.testing import record_fixture

pytestmark = pytest.mark.anyio

TOKEN = "ya29.vertex-ACCESS-token-0123456789"
ENV_KEY = "sk-env-KEY-abcdefghijklmnop"
APIM = "apim-subscription-KEY-9876543210"
EMAIL = "alice@example.com"


def everything_in(path: Path) -> str:
    return "".join(p.read_text(encoding="utf-8", errors="replace") for p in path.rglob("*"))


def test_credential_names_are_recognised() -> None:
    for name in (
        "Authorization",
        "x-api-key",
        "Ocp-Apim-Subscription-Key",
        "access_token",
        "client_secret",
        "X-Auth-Token",
        "password",
        "key",
    ):
        assert is_secret_name(name), name
    for name in ("max_tokens", "anthropic-version", "content-type", "project", "keep_alive"):
        assert not is_secret_name(name), name


def test_provider_config_repr_shows_no_credential() -> None:
    config = ProviderConfig.from_mapping(
        {
            "api_key": ENV_KEY,
            "access_token": TOKEN,
            "headers": {"Ocp-Apim-Subscription-Key": APIM, "x-team": "blue"},
            "env": {"OPENAI_API_KEY": ENV_KEY},
            "project": "p1",
        }
    )
    text = repr(config)
    assert TOKEN not in text and ENV_KEY not in text and APIM not in text
    assert "p1" in text and "blue" in text and "OPENAI_API_KEY" in text
    assert {TOKEN, ENV_KEY, APIM} <= config.secrets()


async def test_vertex_recording_keeps_no_token_even_when_the_server_echoes_it(
    tmp_path: Path,
) -> None:
    def upstream(request: httpx.Request) -> httpx.Response:
        sent = request.headers["authorization"].partition(" ")[2]
        body = {
            "error": {"code": 401, "message": f"Invalid token {sent}", "status": "UNAUTHENTICATED"}
        }
        return httpx.Response(
            401, headers={"content-type": "application/json"}, content=orjson.dumps(body)
        )

    path = tmp_path / "vertex401"
    options = {
        "providers": {
            "vertex": {
                "access_token": TOKEN,
                "project": "p1",
                "location": "us-central1",
                "env": {"GOOGLE_CLOUD_PROJECT": "p1", "SOME_API_KEY": ENV_KEY},
            }
        },
        "retry": lb.RetryPolicy(max_attempts=1),
    }
    await record_fixture(
        path,
        "vertex:gemini-2.5-flash",
        [lb.ChatMessage.user(f"mail {EMAIL} please")],
        client_options=options,
        transport=httpx.MockTransport(upstream),
        scrub=lambda text: text.replace(EMAIL, "<email>"),
    )
    written = everything_in(path)
    assert (path / "error.json").exists() and "Invalid token" in written
    for secret in (TOKEN, ENV_KEY, EMAIL):
        assert secret not in written, secret
    assert "<email>" in written  # the app's own hook ran on the prompt
    config = orjson.loads((path / "input.json").read_bytes())["provider_config"]
    assert config == {"project": "p1", "location": "us-central1"}


async def test_custom_credential_headers_are_redacted_and_scrubbed(tmp_path: Path) -> None:
    def upstream(request: httpx.Request) -> httpx.Response:
        echoed = request.headers["ocp-apim-subscription-key"]
        body = (
            b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":'
            b'[{"index":0,"delta":{"content":"your key is ' + echoed.encode() + b'"},'
            b'"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
        )
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    path = tmp_path / "azure"
    await record_fixture(
        path,
        "openai-compatible:m",
        [lb.ChatMessage.user("hi")],
        client_options={
            "providers": {
                "openai-compatible": {
                    "base_url": "https://gw.example.test/v1",
                    "headers": {"Ocp-Apim-Subscription-Key": APIM},
                }
            }
        },
        transport=httpx.MockTransport(upstream),
    )
    written = everything_in(path)
    assert APIM not in written
    request = orjson.loads((path / "request.json").read_bytes())
    assert request["headers"]["ocp-apim-subscription-key"] == "<redacted>"
    events = orjson.loads((path / "events.json").read_bytes())
    assert any(e.get("text") == "your key is <redacted>" for e in events)


async def test_errors_never_show_a_custom_credential_header() -> None:
    def upstream(request: httpx.Request) -> httpx.Response:
        key = request.headers["ocp-apim-subscription-key"]
        body = orjson.dumps({"error": {"message": f"key {key} is not valid", "type": "invalid"}})
        return httpx.Response(401, headers={"content-type": "application/json"}, content=body)

    async with httpx.AsyncClient(transport=httpx.MockTransport(upstream)) as http:
        client = lb.Client(
            http_client=http,
            providers={
                "openai-compatible": {
                    "base_url": "https://gw.example.test/v1",
                    "headers": {"Ocp-Apim-Subscription-Key": APIM},
                }
            },
        )
        with pytest.raises(lb.AuthenticationError) as info:
            await client.complete("openai-compatible:m", [lb.ChatMessage.user("hi")])
    assert APIM not in str(info.value) and APIM not in repr(info.value)
    assert APIM not in str(info.value.body) and "not valid" in str(info.value)
