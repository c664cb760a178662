"""``anthropic-compatible:`` without a server (issue 44, item 7; the live tier runs it against
llama.cpp's ``/v1/messages``): what it sends and what its errors say."""

from __future__ import annotations

import httpx
import pytest

import llmbridge as lb

HI = [lb.ChatMessage.user("Hi")]


def _provider(**options: object) -> lb.Provider:
    return lb.Client(providers={"anthropic-compatible": options}).provider("anthropic-compatible")


@pytest.mark.parametrize(
    "base", ["http://h:8080", "http://h:8080/", "http://h:8080/v1", "http://h:8080/v1/"]
)
def test_the_base_url_with_or_without_v1_reaches_v1_messages(base: str) -> None:
    request = _provider(base_url=base).build_request(
        lb.ChatRequest(model="m", messages=HI, temperature=0.3, top_p=0.5)
    )
    assert request.url == "http://h:8080/v1/messages"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert (request.json or {})["temperature"] == 0.3 and (request.json or {})["top_p"] == 0.5
    assert "authorization" not in {k.lower() for k in request.headers}  # no key: none sent


def test_a_key_from_its_own_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-not-for-this-server")
    monkeypatch.setenv("ANTHROPIC_COMPATIBLE_API_KEY", "proxy-key")
    request = _provider(base_url="http://h").build_request(lb.ChatRequest(model="m", messages=HI))
    assert request.headers["authorization"] == "Bearer proxy-key"


def test_no_base_url_is_a_configuration_error() -> None:
    with pytest.raises(lb.ConfigurationError, match="needs a base_url"):
        _provider()


def test_structured_output_is_asked_in_the_prompt_and_no_server_tools() -> None:
    caps = _provider(base_url="http://h").capabilities("claude-sonnet-4-5")
    assert caps.json_mode == "none" and caps.hosted_tools == frozenset() and not caps.compaction


@pytest.mark.anyio
async def test_a_404_names_the_url() -> None:
    def server(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            404, json={"error": {"message": "File Not Found", "type": "not_found_error"}}
        )

    client = lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),
        providers={"anthropic-compatible": {"base_url": "http://h:8080/api/v1"}},
    )
    with pytest.raises(lb.NotFoundError) as caught:
        await client.complete("anthropic-compatible:m", HI)
    assert "http://h:8080/api/v1/messages answered 404" in caught.value.message
    assert "File Not Found" in caught.value.message
