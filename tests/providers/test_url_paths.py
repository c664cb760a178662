"""Model ids (and ids the server gives) that would change the URL path are refused before
anything is sent (issue 49, item 14).

httpx removes dot segments: ``bedrock:..`` sent a validly signed ``POST /converse-stream`` and
``bedrock:.`` went to ``/model/converse-stream``. One check (``llmbridge.providers.url_paths``)
serves every provider that puts an id in the path."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import llmbridge as lb
from llmbridge.providers.openai_responses.resume import BackgroundDecoder
from llmbridge.providers.url_paths import is_dot_segment, path_segment, path_segments

pytestmark = pytest.mark.anyio

AWS = {"api_key": "k", "region": "us-east-1"}
AZURE = {"api_key": "k", "base_url": "https://r.openai.azure.com", "api_version": "2024-10-21"}
PROVIDERS: dict[str, dict[str, Any]] = {
    "bedrock": AWS,
    "anthropic-bedrock": AWS,
    "azure": AZURE,
    "gemini": {"api_key": "k"},
    "vertex": {"api_key": "k", "project": "p"},
    "openai-responses": {"api_key": "k"},
}
REFUSED = [
    ("bedrock", ".."),
    ("bedrock", "."),
    ("bedrock", "..;x"),
    ("anthropic-bedrock", ".."),
    ("anthropic-bedrock", "."),
    ("anthropic-bedrock", "..;x"),
    ("azure", ".."),
    ("azure", "."),
    ("gemini", "tunedModels/../files"),
    ("gemini", "tunedModels/%2e%2e/files"),
    ("gemini", "../v1/files"),
    ("gemini", "tunedModels//x"),
    ("vertex", "projects/p/locations/l/endpoints/.."),
]


def _client(provider: str, sent: list[httpx.Request]) -> lb.Client:
    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(500)

    return lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(answer)),
        providers={provider: PROVIDERS[provider]},
        retry=lb.RetryPolicy(max_attempts=1),
    )


@pytest.mark.parametrize(("provider", "model"), REFUSED)
async def test_a_model_id_that_would_change_the_path_is_refused_before_sending(
    provider: str, model: str
) -> None:
    sent: list[httpx.Request] = []
    async with _client(provider, sent) as client:
        with pytest.raises(lb.UsageError, match="another URL path") as caught:
            await client.complete(f"{provider}:{model}", [lb.ChatMessage.user("hi")])
    assert repr(model) in str(caught.value) and provider in str(caught.value)
    assert sent == []


@pytest.mark.parametrize("provider", ["bedrock", "anthropic-bedrock"])
async def test_an_id_that_becomes_a_dot_segment_once_its_geography_is_dropped(
    provider: str,
) -> None:
    """``count_tokens`` sends a foundation id: ``us..`` would be ``/model/./count-tokens``."""
    sent: list[httpx.Request] = []
    async with _client(provider, sent) as client:
        with pytest.raises(lb.UsageError, match="another URL path"):
            await client.count_tokens(f"{provider}:us..", [lb.ChatMessage.user("hi")])
    assert sent == []


@pytest.mark.parametrize(
    ("provider", "model", "path"),
    [
        ("bedrock", "us.anthropic.claude-x-v1:0", "/model/us.anthropic.claude-x-v1%3A0/"),
        ("bedrock", "arn:aws:bedrock:us-east-1:1:x/y", "/model/arn%3Aaws%3Abedrock%3Aus-east-1"),
        ("anthropic-bedrock", "anthropic.claude-x-v1:0", "/model/anthropic.claude-x-v1:0/"),
        ("azure", "my-gpt.4", "/openai/deployments/my-gpt.4/chat/completions"),
        ("gemini", "tunedModels/my-model", "/tunedModels/my-model:streamGenerateContent"),
        ("gemini", "gemini-2.5-flash", "/models/gemini-2.5-flash:streamGenerateContent"),
    ],
)
async def test_ordinary_ids_go_where_they_went(provider: str, model: str, path: str) -> None:
    sent: list[httpx.Request] = []
    async with _client(provider, sent) as client:
        with pytest.raises(lb.LLMBridgeError):
            await client.complete(f"{provider}:{model}", [lb.ChatMessage.user("hi")])
    assert len(sent) == 1 and path in sent[0].url.raw_path.decode()


async def test_resuming_a_response_id_that_is_a_dot_segment_is_refused() -> None:
    sent: list[httpx.Request] = []
    async with _client("openai-responses", sent) as client:
        with pytest.raises(lb.UsageError, match="response id"):
            async for _ in client.resume("openai-responses:gpt-4o", ".."):
                pass
    assert sent == []


def test_a_server_given_response_id_that_is_a_dot_segment_is_malformed() -> None:
    decoder = BackgroundDecoder()
    created = '{"type":"response.created","sequence_number":0,"response":{"id":".."}}'
    with pytest.raises(lb.MalformedStreamError, match="cannot be resumed"):
        decoder.feed("response.created", created)
    with pytest.raises(lb.MalformedStreamError):  # refused from then on
        decoder.feed("response.created", created)


def test_the_one_check() -> None:
    assert [is_dot_segment(s) for s in (".", "..", "..;a", ".;", "...", "a..", "")] == [
        True,
        True,
        True,
        True,
        False,
        False,
        False,
    ]
    assert path_segment("a/b:c", provider="p") == "a%2Fb%3Ac"
    assert path_segment("%2e%2e", provider="p") == "%252e%252e"  # stays one literal segment
    assert path_segments("tunedModels/x", provider="p") == "tunedModels/x"
    for bad in ("", ".", ".."):
        with pytest.raises(lb.UsageError):
            path_segment(bad, provider="p")
