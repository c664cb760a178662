"""The HTTP status decides the error's family and whether it is retried (issue 34, 19-21).

* 19: a 4xx is never retried (except 408, 409 and 429) whatever its body says; the body's type
  refines the class only within the status's family. claude-code-router answers a context
  overflow with 400 + ``{"error": {"type": "api_error"}}``: an ``InvalidRequestError``, sent
  once (the anthropic SDK raises ``BadRequestError`` after one request).
* 20: llama.cpp's ``exceed_context_size_error`` is a ``ContextLengthError`` through every
  provider that can talk to a llama.cpp-style server, by one rule in ``http_errors``.
* 21: FastAPI's ``{"detail": ...}`` bodies (llama-cpp-python, LiteLLM) give the message.
"""

from __future__ import annotations

import importlib
from typing import Any

import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.providers.http_errors import SERVER_CONTEXT_LENGTH_CODES
from tests.reliability.reliability_support import base_fixture, make_client

ERROR_MODULES = ["anthropic", "gemini", "openai", "openai_responses"]
LLAMA_FORMATS = {  # the providers whose wire format llama.cpp's server speaks
    "anthropic": "anthropic",
    "openai": "openai",
    "openai_responses": "openai-responses",
}
# llama.cpp's own body for a prompt over the context window (tools/server/utils.hpp)
LLAMA_OVERFLOW = {
    "error": {
        "code": 400,
        "message": "the request exceeds the available context size, try increasing it",
        "type": "exceed_context_size_error",
        "n_prompt_tokens": 9000,
        "n_ctx": 4096,
    }
}
CCR_OVERFLOW = {  # claude-code-router in front of llama.cpp
    "error": {"type": "api_error", "message": "context window exceeded: 9000 > 4096"}
}


def _map(module: str, status: int, body: Any) -> lb.APIError:
    errors = importlib.import_module(f"llmbridge.providers.{module}.errors")
    raw = body if isinstance(body, bytes) else orjson.dumps(body)
    error: lb.APIError = errors.map_http_error(provider=module, status=status, headers={}, body=raw)
    return error


@pytest.mark.parametrize("module", ERROR_MODULES)
def test_a_400_naming_a_server_error_type_is_a_client_error_not_retried(module: str) -> None:
    error = _map(module, 400, CCR_OVERFLOW)
    assert type(error) is lb.InvalidRequestError, repr(error)
    assert not error.retryable and error.status == 400
    assert error.error_type == "api_error"
    assert error.provider_message == "context window exceeded: 9000 > 4096"


@pytest.mark.parametrize("module", ERROR_MODULES)
@pytest.mark.parametrize("status", [400, 401, 403, 404, 405, 410, 413, 422, 451])
@pytest.mark.parametrize("kind", ["api_error", "server_error", "overloaded_error", "INTERNAL"])
def test_no_4xx_is_retried_whatever_its_body_says(module: str, status: int, kind: str) -> None:
    error = _map(module, status, {"error": {"type": kind, "status": kind, "message": "m"}})
    assert isinstance(error, lb.APIError) and not isinstance(error, lb.ServerError)
    assert not error.retryable, (status, kind, repr(error))


@pytest.mark.parametrize("module", ERROR_MODULES)
@pytest.mark.parametrize("status", [408, 409])
def test_408_and_409_are_retried_as_documented(module: str, status: int) -> None:
    error = _map(module, status, {"error": {"type": "invalid_request_error", "message": "m"}})
    assert isinstance(error, lb.InvalidRequestError) and error.retryable


@pytest.mark.parametrize("module", ERROR_MODULES)
def test_a_429_is_a_rate_limit_whatever_its_body_says(module: str) -> None:
    error = _map(module, 429, {"error": {"type": "invalid_request_error", "message": "m"}})
    assert type(error) is lb.RateLimitError and error.retryable


@pytest.mark.parametrize("module", ERROR_MODULES)
@pytest.mark.parametrize("kind", ["invalid_request_error", "authentication_error", "NOT_FOUND"])
def test_a_5xx_stays_a_retried_server_error_whatever_its_body_says(module: str, kind: str) -> None:
    error = _map(module, 500, {"error": {"type": kind, "status": kind, "message": "m"}})
    assert type(error) is lb.ServerError and error.retryable


def test_a_5xx_body_still_refines_within_the_server_family() -> None:
    error = _map("anthropic", 500, {"type": "error", "error": {"type": "overloaded_error"}})
    assert type(error) is lb.OverloadedError
    gemini = _map("gemini", 503, {"error": {"code": 503, "status": "UNAVAILABLE"}})
    assert type(gemini) is lb.OverloadedError


def test_the_llamacpp_code_is_declared_once() -> None:
    assert "exceed_context_size_error" in SERVER_CONTEXT_LENGTH_CODES
    from llmbridge.providers.openai.errors import CONTEXT_LENGTH_CODES

    assert not CONTEXT_LENGTH_CODES & SERVER_CONTEXT_LENGTH_CODES, "one rule, one place"


@pytest.mark.parametrize("module", list(LLAMA_FORMATS))
def test_llamacpp_context_overflow_is_a_context_length_error_everywhere(module: str) -> None:
    error = _map(module, 400, LLAMA_OVERFLOW)
    assert type(error) is lb.ContextLengthError, repr(error)
    assert not error.retryable and error.error_type == "exceed_context_size_error"
    errors = importlib.import_module(f"llmbridge.providers.{module}.errors")
    in_stream = errors.stream_error(provider=module, error=LLAMA_OVERFLOW)
    assert type(in_stream) is lb.ContextLengthError, repr(in_stream)


@pytest.mark.parametrize("module", ERROR_MODULES)
def test_fastapi_detail_string_is_the_message(module: str) -> None:
    error = _map(module, 405, {"detail": "Method Not Allowed"})
    assert isinstance(error, lb.InvalidRequestError)
    assert error.message == "Method Not Allowed" == error.provider_message
    assert "Method Not Allowed" in str(error)


@pytest.mark.parametrize("module", ERROR_MODULES)
def test_fastapi_detail_list_is_the_message(module: str) -> None:
    detail = [
        {"type": "missing", "loc": ["body", "messages"], "msg": "Field required", "input": {}},
        {"type": "float_type", "loc": ["body", "temperature"], "msg": "Input should be a number"},
    ]
    error = _map(module, 422, {"detail": detail})
    assert isinstance(error, lb.InvalidRequestError)
    assert error.message == (
        "body.messages: Field required; body.temperature: Input should be a number"
    )
    assert error.body == {"detail": detail}


@pytest.mark.parametrize("module", ERROR_MODULES)
def test_fastapi_detail_object_is_read_as_an_error_object(module: str) -> None:
    body = {"detail": {"error": {"message": "budget exceeded", "type": "invalid_request_error"}}}
    error = _map(module, 400, body)
    assert error.message == "budget exceeded" and error.error_type == "invalid_request_error"


def test_a_detail_beside_an_error_object_does_not_hide_it() -> None:
    body = {"error": {"type": "invalid_request_error", "message": "real"}, "detail": "other"}
    assert _map("openai", 400, body).message == "real"


class _Counting:
    def __init__(self, status: int, body: Any) -> None:
        self.calls, self.status, self.body = 0, status, body

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        return httpx.Response(self.status, json=self.body)


@pytest.mark.anyio
@pytest.mark.parametrize("name", ["anthropic", "openai", "openai-responses"])
async def test_claude_code_router_400_is_sent_once(name: str) -> None:
    fx = base_fixture(name)
    server = _Counting(400, CCR_OVERFLOW)
    http = httpx.AsyncClient(transport=httpx.MockTransport(server))
    client, provider = make_client(fx, http, attempts=3)
    with pytest.raises(lb.InvalidRequestError) as caught:
        await client.complete((provider, fx.request.model), fx.request.messages)
    assert server.calls == 1
    assert type(caught.value) is lb.InvalidRequestError and caught.value.status == 400
    await http.aclose()


@pytest.mark.anyio
@pytest.mark.parametrize("name", ["anthropic", "openai", "openai-responses"])
async def test_llamacpp_overflow_is_sent_once_and_typed(name: str) -> None:
    fx = base_fixture(name)
    server = _Counting(400, LLAMA_OVERFLOW)
    http = httpx.AsyncClient(transport=httpx.MockTransport(server))
    client, provider = make_client(fx, http, attempts=3)
    with pytest.raises(lb.ContextLengthError):
        await client.complete((provider, fx.request.model), fx.request.messages)
    assert server.calls == 1
    await http.aclose()
