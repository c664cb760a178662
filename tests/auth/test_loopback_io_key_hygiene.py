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

AWS = {"region": "us-east-1"}
# name, model, the key variable it reads, the header its key is sent in, extra options
PROVIDERS = [
    ("openai-compatible", "openai-compatible:m", None, "authorization", {}),
    ("openai", "openai:gpt-4.1-mini", "OPENAI_API_KEY", "authorization", {}),
    ("anthropic", "anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY", "", {}),
    ("gemini", "gemini:gemini-2.5-flash", "GEMINI_API_KEY", "x-goog-api-key", {}),
    ("azure", "azure:gpt-4o", "AZURE_OPENAI_API_KEY", "api-key", {"api_version": "2024-10-21"}),
    ("bedrock", "bedrock:anthropic.claude", "AWS_BEARER_TOKEN_BEDROCK", "authorization", AWS),
    (
        "anthropic-bedrock",
        "anthropic-bedrock:anthropic.claude-sonnet-4-5",
        "AWS_BEARER_TOKEN_BEDROCK",
        "authorization",
        AWS,
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


TRANSPORTS = ["httpcore", "aiohttp"]
BAD_VALUES = [KEY + "\n", KEY + "\r\n", "sk-hygiene\x00KEY-0123456789"]


def _http(transport: str, backend: Any) -> httpx.AsyncClient:
    if transport == "aiohttp":
        if "trio" in str(backend):
            pytest.skip("aiohttp runs on asyncio only")
        aiohttp = pytest.importorskip("httpx_aiohttp")
        return httpx.AsyncClient(transport=aiohttp.AiohttpTransport())
    return httpx.AsyncClient()


def _assert_refused_unshown(error: lb.LLMBridgeError) -> None:
    assert isinstance(error, lb.ConfigurationError) and not error.retryable
    assert not isinstance(error, lb.TransportError)
    text = _shown(error)
    assert KEY not in text and "sk-hygiene" not in text
    assert "control character" in text or "line break or NUL" in text


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("value", BAD_VALUES)
async def test_an_auth_setting_an_unsendable_header_is_refused_on_every_transport(
    value: str, transport: str, anyio_backend: Any
) -> None:
    """Was a retried ``ConnectionError`` quoting ``b'Bearer sk-...\\n'`` (httpcore), a bare
    ``ValueError`` (aiohttp)."""
    auth = NewlineAuth(value)
    async with chat_server() as (url, seen):
        options = {"base_url": url, "auth": auth}
        async with (
            _http(transport, anyio_backend) as http,
            lb.Client(http_client=http, providers={"openai-compatible": options}, retry=RETRY) as client,
        ):  # fmt: skip
            with pytest.raises(lb.LLMBridgeError) as caught:
                await client.complete("openai-compatible:m", MESSAGES)
            with pytest.raises(lb.LLMBridgeError) as listing:
                await client.list_models("openai-compatible")
    assert not seen
    assert auth.calls == 2  # once each: not retried
    _assert_refused_unshown(caught.value)
    _assert_refused_unshown(listing.value)
    assert "'authorization'" in caught.value.message  # which header, never its value


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_an_unsendable_header_of_the_config_is_refused_on_every_transport(
    transport: str, anyio_backend: Any
) -> None:
    async with chat_server() as (url, seen):
        options = {"base_url": url, "api_key": KEY, "headers": {"x-team": "blue\r\nx-evil: 1"}}
        async with (
            _http(transport, anyio_backend) as http,
            lb.Client(http_client=http, providers={"openai-compatible": options}, retry=RETRY) as client,
        ):  # fmt: skip
            with pytest.raises(lb.ConfigurationError, match="'x-team'") as caught:
                await client.complete("openai-compatible:m", MESSAGES)
    assert not seen
    _assert_refused_unshown(caught.value)


async def test_httpx_refusing_a_header_is_a_configuration_error_without_its_value() -> None:
    """The app's client's own default auth is not llmbridge's to check: h11 refuses the header,
    and httpx's ``LocalProtocolError`` (was: a retried ``ConnectionError`` quoting it) becomes a
    ``ConfigurationError`` whose cause is not chained (its message holds the value)."""
    auth = NewlineAuth(KEY + "\n")
    async with chat_server() as (url, seen):
        async with (
            httpx.AsyncClient(auth=auth) as http,
            lb.Client(http_client=http, providers={"openai-compatible": {"base_url": url}}, retry=RETRY) as client,
        ):  # fmt: skip
            with pytest.raises(lb.ConfigurationError) as caught:
                await client.complete("openai-compatible:m", MESSAGES)
    assert not seen and auth.calls == 1
    assert caught.value.__cause__ is None
    _assert_refused_unshown(caught.value)


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


async def test_a_credential_option_is_stripped_and_refused_when_sent_if_unsendable() -> None:
    """Options are only stripped when loaded (a PEM or JSON credential holds line breaks); one
    that reaches a header with a control character inside is refused as it is sent."""
    pem = (
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n"
    )
    config = lb.providers.base.ProviderConfig.from_mapping({"private_key": pem, "access_token": f" {KEY}\n"})  # fmt: skip
    assert config.options == {"private_key": pem.strip(), "access_token": KEY}
    async with chat_server() as (url, seen):
        options = {"base_url": f"{url}/v1/projects/p/locations/global", "access_token": "ya29.abc\ndef-0123456789"}  # fmt: skip
        async with lb.Client(providers={"vertex": options}, retry=RETRY) as client:
            with pytest.raises(lb.ConfigurationError, match="'authorization'") as caught:
                await client.complete("vertex:gemini-2.5-flash", MESSAGES)
    assert not seen
    assert "ya29" not in _shown(caught.value) and "0123456789" not in _shown(caught.value)
