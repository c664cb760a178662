"""Issue 34, item 12: a key the app's own httpx client adds (``params={"key": K}``, a default
header, an ``httpx.Auth``) and the server echoes never shows in the error: message, args,
body, provider message. Scrubbed from the request as actually sent, not only from llmbridge's
own request. A real loopback server, on asyncio, uvloop and trio."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import anyio
import httpx
import orjson
import pytest
from anyio.abc import SocketStream

import llmbridge as lb
from tests.loopback import SSE_HEAD, chunk, read_request, serve

pytestmark = pytest.mark.anyio

QUERY_KEY = "AIzaSy-query-KEY-0123456789abcdef"
HEADER_KEY = "hdr-KEY-fedcba9876543210"
SAS = "sv=2024&sig=AbCdEf0123456789SIGNATURE"


def _sent(head: bytes) -> tuple[dict[str, list[str]], dict[str, str]]:
    lines = head.split(b"\r\n")
    target = lines[0].split(b" ")[1].decode()
    headers = {}
    for line in lines[1:]:
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    return parse_qs(urlsplit(target).query), headers


def _echoed(head: bytes) -> str:
    query, headers = _sent(head)
    return " ".join([*(v for vs in query.values() for v in vs), *headers.values()])


async def _rejects(stream: SocketStream) -> None:
    head, _ = await read_request(stream)
    body = orjson.dumps(
        {"error": {"message": f"API key not valid: {_echoed(head)}", "type": "auth_error"}}
    )
    await stream.send(
        b"HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n"
        + f"content-length: {len(body)}\r\n\r\n".encode()
        + body
    )


async def _fails_midway(stream: SocketStream) -> None:
    head, _ = await read_request(stream)
    delta = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    delta["choices"] = [{"index": 0, "delta": {"content": "hi"}}]  # type: ignore[assignment]
    error = {"error": {"message": f"quota exceeded for {_echoed(head)}", "type": "server_error"}}
    await stream.send(SSE_HEAD)
    await stream.send(chunk(b"data: " + orjson.dumps(delta) + b"\n\n"))
    await stream.send(chunk(b"data: " + orjson.dumps(error) + b"\n\n") + b"0\r\n\r\n")


def _everything(error: lb.LLMBridgeError) -> str:
    return " ".join(
        [
            str(error),
            repr(error),
            repr(error.args),
            repr(getattr(error, "body", None)),
            repr(error.provider_message),
        ]
    )


def _assert_clean(error: lb.LLMBridgeError) -> None:
    shown = _everything(error)
    for secret in (QUERY_KEY, HEADER_KEY, "AbCdEf0123456789SIGNATURE"):
        assert secret not in shown, shown
    assert "<redacted>" in str(error)


def _client(url: str, http: httpx.AsyncClient) -> lb.Client:
    return lb.Client(
        http_client=http,
        providers={"openai-compatible": {"base_url": f"{url}/v1"}},
        retry=lb.RetryPolicy(max_attempts=1),
    )


async def test_a_query_key_the_apps_client_adds_is_scrubbed_from_a_401() -> None:
    with anyio.fail_after(20):
        async with serve(_rejects) as url, httpx.AsyncClient(params={"key": QUERY_KEY}) as http:
            with pytest.raises(lb.AuthenticationError) as info:
                await _client(url, http).complete("openai-compatible:m", [lb.ChatMessage.user("x")])
    assert "API key not valid" in str(info.value)
    _assert_clean(info.value)


async def test_a_default_header_and_a_signature_query_are_scrubbed() -> None:
    http = httpx.AsyncClient(
        headers={"api-key": HEADER_KEY}, params=dict([SAS.split("&")[1].split("=")])
    )
    with anyio.fail_after(20):
        async with serve(_rejects) as url, http:
            with pytest.raises(lb.AuthenticationError) as info:
                await _client(url, http).complete("openai-compatible:m", [lb.ChatMessage.user("x")])
    _assert_clean(info.value)


async def test_an_auth_flow_of_the_apps_client_is_scrubbed() -> None:
    class QueryAuth(httpx.Auth):
        def auth_flow(self, request: httpx.Request):  # type: ignore[no-untyped-def]
            request.url = request.url.copy_merge_params({"api_key": QUERY_KEY})
            yield request

    with anyio.fail_after(20):
        async with serve(_rejects) as url, httpx.AsyncClient(auth=QueryAuth()) as http:
            with pytest.raises(lb.AuthenticationError) as info:
                await _client(url, http).complete("openai-compatible:m", [lb.ChatMessage.user("x")])
    _assert_clean(info.value)


async def test_a_key_echoed_in_a_mid_stream_error_is_scrubbed() -> None:
    with anyio.fail_after(20):
        async with (
            serve(_fails_midway) as url,
            httpx.AsyncClient(params={"key": QUERY_KEY}) as http,
        ):
            with pytest.raises(lb.LLMBridgeError) as info:
                await _client(url, http).complete("openai-compatible:m", [lb.ChatMessage.user("x")])
    assert "quota exceeded" in str(info.value)
    _assert_clean(info.value)
    assert info.value.partial is not None and info.value.partial.text == "hi"


async def test_a_query_key_of_the_apps_client_is_scrubbed_from_a_model_list_error() -> None:
    with anyio.fail_after(20):
        async with serve(_rejects) as url, httpx.AsyncClient(params={"key": QUERY_KEY}) as http:
            with pytest.raises(lb.AuthenticationError) as info:
                await _client(url, http).list_models("openai-compatible")
    assert "API key not valid" in str(info.value)
    _assert_clean(info.value)
