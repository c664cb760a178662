"""A key or token with a trailing newline (``open("key").read()``, a mounted secret) or a
control character inside it, over a real socket on every loop (issue 49, item 9).

Surrounding whitespace is stripped when a key is loaded (option or environment variable) or a
token applied, so the request goes out with the clean key; a control character inside is a
non-retried ``ConfigurationError`` (``AuthenticationError`` for a token provider's token) that
never shows the key, sent nowhere. An app's own ``httpx.Auth`` putting such a value on a header
is refused the same way (httpx's ``LocalProtocolError``: was a retried ``ConnectionError``
quoting ``b'Bearer sk-...\\n'``), and the scrubber removes the escaped forms of every secret.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import httpx
import pytest

import llmbridge as lb
from llmbridge.secrets import REDACTED, named_secrets, secret_scrubber
from llmbridge.stream import RetryPolicy
from tests.auth.support import chat_server, unauthorized

pytestmark = pytest.mark.anyio

KEY = "sk-hygiene-KEY-0123456789abcdef"
MESSAGES = [lb.ChatMessage.user("hi")]
RETRY = RetryPolicy(max_attempts=3, initial_delay=0.0, jitter=0.0)

# name, model, the key variable it reads, the header its key is sent in, extra options
PROVIDERS = [
    ("openai-compatible", "openai-compatible:m", None, "authorization", {}),
    ("openai", "openai:gpt-4.1-mini", "OPENAI_API_KEY", "authorization", {}),
    ("anthropic", "anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY", "", {}),
    ("gemini", "gemini:gemini-2.5-flash", "GEMINI_API_KEY", "x-goog-api-key", {}),
    ("azure", "azure:gpt-4o", "AZURE_OPENAI_API_KEY", "api-key", {"api_version": "2024-10-21"}),
    (
        "bedrock",
        "bedrock:anthropic.claude",
        "AWS_BEARER_TOKEN_BEDROCK",
        "authorization",
        {"region": "us-east-1"},
    ),
]
IDS = [p[0] for p in PROVIDERS]
AROUND = {"newline": KEY + "\n", "crlf": KEY + "\r\n", "spaces": f"  {KEY}\t \n"}
INSIDE = {"nul": "sk-hygiene\x00KEY-0123456789", "newline": "sk-hygiene\nKEY-0123456789",
          "escape": "sk-hygiene\x1b[2JKEY-0123", "trailing-nul": KEY + "\x00"}  # fmt: skip


def _config(name: str, url: str, extra: dict[str, Any], **credential: Any) -> dict[str, Any]:
    base = f"{url}/v1" if name == "openai" else url
    return {"base_url": base, "env": {}, **extra, **credential}


def _sent_key(headers: dict[str, str], header: str) -> str:
    if not header:  # anthropic: x-api-key, or a bearer for a key that is not an API key
        header = "x-api-key" if "x-api-key" in headers else "authorization"
    value = headers[header]
    return value.removeprefix("Bearer ")


def _shown(exc: BaseException) -> str:
    return "\n".join([str(exc), repr(exc), str(getattr(exc, "body", "")), str(exc.args)])


@pytest.mark.parametrize("where", ["option", "environment"])
@pytest.mark.parametrize("around", AROUND.values(), ids=AROUND.keys())
@pytest.mark.parametrize(("name", "model", "var", "header", "extra"), PROVIDERS, ids=IDS)
async def test_whitespace_around_a_key_is_stripped_before_it_is_sent(
    name: str, model: str, var: str | None, header: str, extra: dict[str, Any], around: str,
    where: str,
) -> None:  # fmt: skip
    if where == "environment" and var is None:
        pytest.skip("openai-compatible reads no key variable")
    credential = {"api_key": around} if where == "option" else {"env": {var: around}}
    async with chat_server(lambda _: unauthorized(f"bad key {around}")) as (url, seen):
        options = _config(name, url, extra, **credential)
        async with lb.Client(providers={name: options}, retry=RETRY) as client:
            with pytest.raises(lb.AuthenticationError) as caught:
                await client.complete(model, MESSAGES)
    assert len(seen) == 1  # the server's answer (a 401), not a connection error retried
    assert _sent_key(seen[0].headers, header) == KEY
    assert KEY not in _shown(caught.value)


@pytest.mark.parametrize("where", ["option", "environment"])
@pytest.mark.parametrize("inside", INSIDE.values(), ids=INSIDE.keys())
@pytest.mark.parametrize(("name", "model", "var", "header", "extra"), PROVIDERS, ids=IDS)
async def test_a_key_with_a_control_character_inside_is_refused_unshown(
    name: str, model: str, var: str | None, header: str, extra: dict[str, Any], inside: str,
    where: str,
) -> None:  # fmt: skip
    if where == "environment" and (var is None or "\x00" in inside):
        pytest.skip("no key variable" if var is None else "no NUL in an environment variable")
    credential = {"api_key": inside} if where == "option" else {"env": {var: inside}}
    async with chat_server() as (url, seen):
        with pytest.raises(lb.ConfigurationError) as caught:
            options = _config(name, url, extra, **credential)
            async with lb.Client(providers={name: options}, retry=RETRY) as client:
                await client.complete(model, MESSAGES)
    assert not seen
    assert not caught.value.retryable
    text = _shown(caught.value)
    assert "control character" in text
    for shown in (inside, repr(inside)[1:-1], inside[:12], inside[-10:].strip("\x00\n")):
        assert shown not in text


@pytest.mark.parametrize("around", AROUND.values(), ids=AROUND.keys())
async def test_a_token_providers_token_is_stripped(around: str) -> None:
    async with chat_server() as (url, seen):
        options = {"base_url": url, "token_provider": lambda: around}
        async with lb.Client(providers={"openai-compatible": options}, retry=RETRY) as client:
            response = await client.complete("openai-compatible:m", MESSAGES)
    assert response.text == "hi"
    assert seen[0].headers["authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize("inside", INSIDE.values(), ids=INSIDE.keys())
async def test_a_token_with_a_control_character_inside_is_an_authentication_error(
    inside: str,
) -> None:
    async with chat_server() as (url, seen):
        options = {"base_url": url, "token_provider": lambda: inside}
        async with lb.Client(providers={"openai-compatible": options}, retry=RETRY) as client:
            with pytest.raises(lb.AuthenticationError) as caught:
                await client.complete("openai-compatible:m", MESSAGES)
    assert not seen and not caught.value.retryable
    assert inside[:12] not in _shown(caught.value)


class NewlineAuth(httpx.Auth):
    """An app's own auth that puts a token read with its newline on the request."""

    def __init__(self, value: str) -> None:
        self.value, self.calls = value, 0

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        self.calls += 1
        request.headers["authorization"] = f"Bearer {self.value}"
        yield request


@pytest.mark.parametrize("value", [KEY + "\n", KEY + "\r\n", "sk-hygiene\x00KEY-0123456789"])
async def test_a_header_httpx_refuses_is_a_configuration_error_not_a_retried_connection_error(
    value: str,
) -> None:
    auth = NewlineAuth(value)
    async with chat_server() as (url, seen):
        options = {"base_url": url, "auth": auth}
        async with lb.Client(providers={"openai-compatible": options}, retry=RETRY) as client:
            with pytest.raises(lb.ConfigurationError) as caught:
                await client.complete("openai-compatible:m", MESSAGES)
    assert not seen
    assert auth.calls == 1  # not retried
    assert not isinstance(caught.value, lb.TransportError)
    assert caught.value.__cause__ is None  # httpx's message quotes the header: not chained
    text = _shown(caught.value)
    assert KEY not in text and "sk-hygiene" not in text
    assert "line break or NUL" in text


@pytest.mark.parametrize("secret", [KEY + "\n", KEY + "\r\n", "sk-hygiene\x00KEY-0123456789"])
def test_the_scrubber_removes_every_escaped_form_of_a_secret(secret: str) -> None:
    scrub = secret_scrubber(named_secrets([("authorization", f"Bearer {secret}")]))
    forms = [
        secret,
        secret.strip(),
        repr(secret),  # 'sk-...\n'
        repr(f"Bearer {secret}".encode()),  # b'Bearer sk-...\n': h11's "Illegal header value"
        repr(secret.encode()),
        '{"key": "'
        + secret.replace("\n", "\\n").replace("\r", "\\r").replace("\x00", "\\u0000")
        + '"}',
    ]
    for form in forms:
        message = f"Illegal header value {form} in the request"
        cleaned = scrub(message)
        assert REDACTED in cleaned, form
        assert "sk-hygiene" not in cleaned, form
