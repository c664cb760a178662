"""API keys never show: not in ``repr``/``str`` of clients, providers and built requests, not in
exception messages (even when a server echoes the key back), not in log records at DEBUG (ours,
httpx's and httpcore's), and not in any recorded fixture file.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import anyio
import httpx
import orjson
import pytest
from anyio.abc import SocketStream

import llmbridge as lb
from llmbridge.providers import ProviderConfig, create_provider
from llmbridge.providers.base import SECRET_QUERY_PARAMS, SENSITIVE_HEADERS
from llmbridge.providers.embedding_hosts import EmbeddingHost
from llmbridge.providers.registry import available_providers
from llmbridge.testing.redact import REDACTED
from tests.fakes import mock_client, sse_response
from tests.loopback import serve
from tests.reliability.reliability_support import (
    API_KEY,
    FIXTURES,
    PROVIDERS,
    RedirectTransport,
    base_fixture,
    collect,
    make_client,
    read_http_request,
)

EXTRA_CONFIG: dict[str, dict[str, Any]] = {
    "azure": {"base_url": "https://contoso.openai.azure.com"},
    "openai-compatible": {"base_url": "http://127.0.0.1:9/v1"},
    "anthropic-compatible": {"base_url": "http://127.0.0.1:9"},
    "vertex": {"project": "demo-project", "location": "global"},
    "vertex-interactions": {"project": "demo-project", "location": "global"},
    "bedrock": {"region": "us-east-1"},
    "azure-responses": {"base_url": "https://contoso.openai.azure.com"},
    "bedrock-mantle": {"region": "us-east-1"},
    "bedrock-mantle-responses": {"region": "us-east-1"},
    "anthropic-bedrock": {"region": "us-east-1"},
    "anthropic-vertex": {"project": "demo-project", "location": "global"},
    "anthropic-foundry": {"resource": "contoso"},
    "anthropic-aws": {"region": "us-east-1", "workspace_id": "wrkspc_demo"},
    "anthropic-google-cloud": {"project": "demo-project", "workspace_id": "wrkspc_demo"},
    "anthropic-bedrock-mantle": {"region": "us-east-1"},
}
USER = [lb.ChatMessage.user("hi")]


def _config(name: str) -> dict[str, Any]:
    return {"api_key": API_KEY, **EXTRA_CONFIG.get(name, {})}


def _no_call(request: httpx.Request) -> httpx.Response:
    raise AssertionError("no request is sent here")


def _leaks(text: str) -> bool:
    return API_KEY in text or API_KEY[-12:] in text


@pytest.mark.parametrize("name", available_providers())
def test_reprs_of_providers_clients_and_requests_hide_the_key(name: str) -> None:
    provider = create_provider(name, ProviderConfig.from_mapping(_config(name)))
    client = lb.Client(providers={name: _config(name)}, http_client=mock_client(_no_call))
    assert client.provider(name) is not None
    if isinstance(provider, EmbeddingHost):  # no chat: its requests carry auth_headers()
        headers = provider.auth_headers()
        request = lb.HttpRequest("POST", "https://embed.invalid/v1/embeddings", headers, None)
    else:
        request = provider.build_request(lb.ChatRequest(model="some-model", messages=USER))
    for text in (repr(provider), str(provider), repr(client), str(client), repr(request)):
        assert not _leaks(text), text
    config = ProviderConfig.from_mapping(_config(name))
    assert not _leaks(repr(config)) and not _leaks(str(config))
    sent = json.dumps(request.headers) + request.url
    auth = request.auth or getattr(provider, "auth", None)
    if auth is not None:  # the key goes on through an httpx.Auth (Bedrock's bearer key)
        wire = httpx.Request(request.method, request.url, headers=request.headers)

        async def sign() -> httpx.Request:
            return await auth.async_auth_flow(wire).__anext__()

        sent += json.dumps(dict(anyio.run(sign).headers))
    assert API_KEY in sent, "the key does reach the wire (so the checks above are meaningful)"


def _echo_key_error(name: str) -> bytes:
    message = f"Incorrect API key provided: {API_KEY}. Find your key at example.test."
    family = {"anthropic": "anthropic", "gemini": "gemini", "vertex": "gemini"}.get(name, "chat")
    if family == "anthropic":
        return orjson.dumps(
            {"type": "error", "error": {"type": "authentication_error", "message": message}}
        )
    if family == "gemini":
        return orjson.dumps(
            {"error": {"code": 401, "message": message, "status": "UNAUTHENTICATED"}}
        )
    return orjson.dumps({"error": {"message": message, "type": "invalid_request_error"}})


def _error_texts(error: lb.LLMBridgeError) -> list[str]:
    return [
        str(error),
        repr(error),
        *(str(a) for a in error.args),
        str(error.provider_message),
        orjson.dumps(getattr(error, "body", None), default=str).decode(),
    ]


@pytest.mark.anyio
@pytest.mark.parametrize("name", PROVIDERS)
async def test_errors_never_carry_the_key_even_when_the_server_echoes_it(name: str) -> None:
    fx = base_fixture(name)
    body = _echo_key_error(name)

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, content=body, headers={"content-type": "application/json"})

    client, provider = make_client(fx, mock_client(handler))
    events, error = await collect(client, provider, fx.request)
    assert events == [] and isinstance(error, lb.AuthenticationError), repr(error)
    for text in _error_texts(error):
        assert not _leaks(text), text
    assert "Incorrect API key provided" in str(error), "the rest of the message is kept"

    # The same echo inside the stream (an in-band error event), after some events.
    midway = fx.body[: len(fx.body) // 2] + b"\n\ndata: " + body + b"\n\n"
    client, provider = make_client(fx, mock_client(lambda r: sse_response(midway)))
    _, error = await collect(client, provider, fx.request)
    assert error is not None
    for text in _error_texts(error):
        assert not _leaks(text), text


@pytest.mark.anyio
@pytest.mark.io  # httpcore's debug records of a real connection
@pytest.mark.parametrize("name", PROVIDERS)
async def test_log_records_at_debug_never_carry_the_key(
    name: str, caplog: pytest.LogCaptureFixture
) -> None:
    fx = base_fixture(name)
    answers = [b"429", fx.body]

    async def script(stream: SocketStream) -> None:
        while answers:
            await read_http_request(stream)
            answer = answers.pop(0)
            if answer == b"429":
                err = _echo_key_error(name)
                head = (
                    b"HTTP/1.1 429 Too Many\r\ncontent-type: application/json\r\n"
                    b"retry-after: 0\r\ncontent-length: %d\r\n\r\n" % len(err)
                )
                await stream.send(head + err)
            else:
                head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                await stream.send(head + b"content-length: %d\r\n\r\n" % len(answer) + answer)

    caplog.set_level(logging.DEBUG)
    async with serve(script) as url:
        async with httpx.AsyncClient(transport=RedirectTransport(url)) as http:
            client, provider = make_client(fx, http, attempts=2)
            with anyio.fail_after(10):
                events, error = await collect(client, provider, fx.request)
    assert error is None, repr(error)
    assert events
    assert any(r.name.startswith(("httpx", "httpcore")) for r in caplog.records)
    assert any(r.name == "llmbridge" for r in caplog.records), "the retry was logged"
    for record in caplog.records:
        assert not _leaks(record.getMessage()), (record.name, record.getMessage())
        assert not _leaks(repr(record.args)), (record.name, record.args)


# -- recorded fixtures ---------------------------------------------------------------------

KEY_PATTERNS = [
    re.compile(rb"sk-(?:proj-|ant-|or-)?[A-Za-z0-9_-]{20,}"),  # OpenAI / Anthropic / OpenRouter
    re.compile(rb"AIza[0-9A-Za-z_-]{35}"),  # Google API keys
    re.compile(rb"gsk_[A-Za-z0-9]{20,}"),  # Groq
    re.compile(rb"xai-[A-Za-z0-9]{20,}"),
    re.compile(rb"ya29\.[0-9A-Za-z_-]{20,}"),  # Google OAuth access tokens
    re.compile(rb"Bearer [A-Za-z0-9._-]{16,}"),
]
ALL_FIXTURE_FILES = sorted(p for p in FIXTURES.rglob("*") if p.is_file())


def test_fixture_files_were_scanned() -> None:
    assert len(ALL_FIXTURE_FILES) >= 5 * len(PROVIDERS)


@pytest.mark.parametrize("path", ALL_FIXTURE_FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_no_secret_in_any_fixture_file(path: Path) -> None:
    data = path.read_bytes()
    for pattern in KEY_PATTERNS:
        found = pattern.search(data)
        assert found is None, f"{path}: looks like a secret: {found.group()[:12]!r}..."
    if path.name != "request.json":
        return
    recorded = orjson.loads(data)
    for header, value in recorded.get("headers", {}).items():
        if header.lower() in SENSITIVE_HEADERS:
            assert value == REDACTED, f"{path}: header {header} is not redacted"
    query = httpx.URL(recorded["url"]).params
    for param in SECRET_QUERY_PARAMS:
        assert query.get(param) in (None, REDACTED), f"{path}: ?{param}= is not redacted"
