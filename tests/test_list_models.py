"""``Client.list_models``: one GET per page through the same IO path as streams (auth, typed
errors, retries, scrubbed secrets), parsed into ``ModelInfo`` rows; the sample answers are
checked against the official SDKs' types so they are the shapes the APIs send."""

from __future__ import annotations

from typing import Any

import httpx
import orjson
import pytest

import llmbridge as lb

pytestmark = pytest.mark.anyio

OPENAI_MODELS = {
    "object": "list",
    "data": [
        {"id": "gpt-4.1-mini", "object": "model", "created": 1744318173, "owned_by": "system"},
        {"id": "gpt-5", "object": "model", "created": 1754425777, "owned_by": "system"},
    ],
}
LLAMA_MODELS = {  # llama-server's answer, as the real server sends it (tests/live_local)
    "object": "list",
    "data": [
        {
            "id": "gemma3-270m",
            "object": "model",
            "created": 1795474342,
            "owned_by": "llamacpp",
            "meta": {"n_ctx": 4096, "n_ctx_train": 32768, "n_params": 268098176},
        }
    ],
}
ANTHROPIC_PAGES = [
    {
        "data": [
            {
                "id": "claude-sonnet-4-5-20250929",
                "type": "model",
                "display_name": "Claude Sonnet 4.5",
                "created_at": "2025-09-29T00:00:00Z",
                "lifecycle": "active",
                "max_input_tokens": 200000,
                "max_tokens": 64000,
            }
        ],
        "has_more": True,
        "first_id": "claude-sonnet-4-5-20250929",
        "last_id": "claude-sonnet-4-5-20250929",
    },
    {
        "data": [
            {
                "id": "claude-haiku-4-5-20251001",
                "type": "model",
                "display_name": "Claude Haiku 4.5",
                "created_at": "2025-10-01T00:00:00Z",
                "lifecycle": "active",
            }
        ],
        "has_more": False,
        "first_id": "claude-haiku-4-5-20251001",
        "last_id": "claude-haiku-4-5-20251001",
    },
]
GEMINI_PAGES = [
    {
        "models": [
            {
                "name": "models/gemini-2.5-flash",
                "displayName": "Gemini 2.5 Flash",
                "inputTokenLimit": 1048576,
                "outputTokenLimit": 65536,
                "supportedGenerationMethods": ["generateContent", "countTokens"],
            }
        ],
        "nextPageToken": "page-2",
    },
    {"models": [{"name": "models/gemini-2.5-pro", "displayName": "Gemini 2.5 Pro"}]},
]


class Server:
    """Answers GETs from a list of (status, body) pages; records what was asked."""

    def __init__(self, *answers: tuple[int, Any]) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        status, body = self.answers.pop(0)
        content = body if isinstance(body, bytes) else orjson.dumps(body)
        return httpx.Response(status, content=content, headers={"content-type": "application/json"})


def client_for(server: Server, name: str, **options: Any) -> lb.Client:
    return lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),
        providers={name: {"api_key": "sk-secret-123", **options}},
        retry=lb.RetryPolicy(max_attempts=2, initial_delay=0, jitter=0),
    )


async def test_openai_models_with_auth_and_no_body() -> None:
    server = Server((200, OPENAI_MODELS))
    async with client_for(server, "openai") as client:
        models = await client.list_models("openai")
    assert [m.model for m in models] == ["openai:gpt-4.1-mini", "openai:gpt-5"]
    assert models[0].created == 1744318173 and models[0].raw["owned_by"] == "system"
    (sent,) = server.requests
    assert (sent.method, str(sent.url)) == ("GET", "https://api.openai.com/v1/models")
    assert sent.headers["authorization"] == "Bearer sk-secret-123" and sent.content == b""


async def test_a_llama_cpp_server_says_its_context_window() -> None:
    server = Server((200, LLAMA_MODELS))
    async with client_for(server, "llamacpp", base_url="http://127.0.0.1:8080/v1") as client:
        (model,) = await client.list_models("llamacpp")
    assert (model.model, model.context_window) == ("llamacpp:gemma3-270m", 4096)
    assert str(server.requests[0].url) == "http://127.0.0.1:8080/v1/models"


async def test_anthropic_follows_pages_with_after_id() -> None:
    server = Server((200, ANTHROPIC_PAGES[0]), (200, ANTHROPIC_PAGES[1]))
    async with client_for(server, "anthropic") as client:
        models = await client.list_models("anthropic")
    assert [m.id for m in models] == ["claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001"]
    first = models[0]
    assert (first.display_name, first.context_window, first.max_output_tokens) == (
        "Claude Sonnet 4.5",
        200000,
        64000,
    )
    assert first.created == 1759104000  # 2025-09-29T00:00:00Z
    urls = [str(r.url) for r in server.requests]
    assert urls[0] == "https://api.anthropic.com/v1/models?limit=1000"
    assert urls[1].endswith("after_id=claude-sonnet-4-5-20250929")
    assert server.requests[0].headers["anthropic-version"]


async def test_gemini_follows_page_tokens_and_drops_the_models_prefix() -> None:
    server = Server((200, GEMINI_PAGES[0]), (200, GEMINI_PAGES[1]))
    async with client_for(server, "gemini") as client:
        models = await client.list_models("gemini")
    assert [m.model for m in models] == ["gemini:gemini-2.5-flash", "gemini:gemini-2.5-pro"]
    assert (models[0].context_window, models[0].max_output_tokens) == (1048576, 65536)
    assert "pageToken=page-2" in str(server.requests[1].url)
    assert server.requests[0].headers["x-goog-api-key"] == "sk-secret-123"
    assert "key=" not in str(server.requests[0].url)


async def test_errors_are_typed_retried_and_keep_no_secret() -> None:
    unauthorized = {
        "error": {
            "message": "Incorrect API key: sk-secret-123",
            "type": "invalid_request_error",
            "code": "invalid_api_key",
        }
    }
    server = Server((503, {"error": {"message": "busy"}}), (401, unauthorized))
    async with client_for(server, "openai") as client:
        with pytest.raises(lb.AuthenticationError) as caught:
            await client.list_models("openai")
    assert len(server.requests) == 2  # the 503 was retried, the 401 was not
    assert "sk-secret-123" not in str(caught.value) + repr(caught.value.body)


async def test_an_answer_that_is_not_json_is_a_clear_error() -> None:
    server = Server((200, b"<html>proxy login</html>"))
    async with client_for(server, "openai") as client:
        with pytest.raises(lb.MalformedStreamError, match="expected a JSON answer"):
            await client.list_models("openai")


async def test_providers_that_cannot_list_say_so() -> None:
    async with lb.Client(providers={"vertex": {"api_key": "t", "project": "p"}}) as client:
        with pytest.raises(lb.ConfigurationError, match="vertex"):
            await client.list_models("vertex")

    class Plain:
        name = "plain"

    async with lb.Client() as client:
        with pytest.raises(lb.ConfigurationError, match="cannot list its models"):
            await client.list_models(Plain())  # type: ignore[arg-type]


def test_sync_twin() -> None:
    server = Server((200, OPENAI_MODELS))
    with lb.SyncClient(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),
        providers={"openai": {"api_key": "k"}},
    ) as client:
        assert [m.id for m in client.list_models("openai")] == ["gpt-4.1-mini", "gpt-5"]


def test_sample_answers_are_what_the_sdks_parse() -> None:
    openai_model = pytest.importorskip("openai.types").Model
    for entry in OPENAI_MODELS["data"] + LLAMA_MODELS["data"]:
        assert openai_model.model_validate(entry).id == entry["id"]
    anthropic_info = pytest.importorskip("anthropic.types").ModelInfo
    for page in ANTHROPIC_PAGES:
        for entry in page["data"]:
            info = anthropic_info.model_validate(entry)
            assert (info.id, info.display_name) == (entry["id"], entry["display_name"])
    genai = pytest.importorskip("google.genai.types")
    listed = genai.ListModelsResponse._from_response(response=GEMINI_PAGES[0], kwargs={})
    assert listed.models[0].input_token_limit == 1048576
