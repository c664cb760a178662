"""The one auth seam: a custom ``httpx.Auth`` on an OpenAI-compatible preset, over a socket.

``auth=`` takes an ``httpx.Auth`` (no API key needed then), run on every attempt (a retried
request is authed afresh), for streams and plain requests (the model list) alike; a
header-style ``auth`` string keeps its meaning; the auth never shows in reprs.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncGenerator

import httpx
import pytest

import llmbridge as lb
from llmbridge.auth import config_auth
from llmbridge.providers.base import HttpRequest, ProviderConfig
from llmbridge.stream import RetryPolicy, stream_events
from tests.auth.support import Answer, Seen, chat_server

pytestmark = pytest.mark.anyio

MESSAGES = [lb.ChatMessage.user("hi")]


class NonceAuth(httpx.Auth):
    """A plug-in scheme: a fresh signature header on every attempt."""

    def __init__(self) -> None:
        self.counter = itertools.count(1)
        self.flows = 0

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        self.flows += 1
        request.headers["x-plugin-signature"] = f"sig-{next(self.counter)}-{request.url.path}"
        yield request


async def test_custom_auth_runs_on_every_attempt_without_a_key() -> None:
    failures = iter([True, False])

    def answer(request: Seen) -> Answer:
        if request.path.endswith("/chat/completions") and next(failures, False):
            return Answer(500, b'{"error":{"message":"try again"}}', "application/json")
        if request.path.endswith("/models"):
            return Answer(
                200, b'{"object":"list","data":[{"id":"m1","object":"model"}]}', "application/json"
            )
        return Answer()

    auth = NonceAuth()
    async with chat_server(answer) as (url, seen):
        options = {"base_url": f"{url}/v1", "auth": auth, "env": {}}
        retry = RetryPolicy(max_attempts=3, initial_delay=0.0, max_delay=0.0)
        async with lb.Client(providers={"together": options}, retry=retry) as client:
            response = await client.complete("together:m", MESSAGES)
            models = await client.list_models("together")
    assert response.text == "hi"
    assert [m.id for m in models] == ["m1"]
    assert [s.headers["x-plugin-signature"] for s in seen] == [
        "sig-1-/v1/chat/completions",
        "sig-2-/v1/chat/completions",
        "sig-3-/v1/models",
    ]
    assert all("authorization" not in s.headers for s in seen)  # no key was needed or sent
    assert auth.flows == 3


async def test_a_request_s_own_auth_wins_over_the_provider_s() -> None:
    provider_auth, request_auth = NonceAuth(), NonceAuth()
    async with chat_server() as (url, seen):
        options = {"base_url": f"{url}/v1", "auth": provider_auth, "env": {}}
        async with (
            lb.Client(providers={"together": options}) as client,
            httpx.AsyncClient() as http,
        ):
            provider = client.provider("together")
            chat = client.build_request("m", MESSAGES)
            built = provider.build_request(chat)
            built.auth = request_auth
            events = [
                e
                async for e in stream_events(
                    http=http,
                    provider=provider,
                    request=built,
                    new_decoder=lambda: provider.new_decoder(chat),
                    retry=RetryPolicy(max_attempts=1),
                )
            ]
    assert any(isinstance(e, lb.TextDelta) for e in events)
    assert (provider_auth.flows, request_auth.flows) == (0, 1)
    assert len(seen) == 1


def test_config_tells_auth_objects_from_header_style_strings() -> None:
    auth = NonceAuth()
    config = ProviderConfig.from_mapping({"auth": auth, "api_key": "sk-test-0123456789"})
    assert config.auth is auth and "auth" not in config.options
    assert config_auth(config) is auth
    header_style = ProviderConfig.from_mapping({"auth": "x-api-key"})
    assert header_style.auth is None and header_style.options["auth"] == "x-api-key"
    assert config_auth(header_style) is None
    assert ProviderConfig(auth="x-api-key").options == {"auth": "x-api-key"}  # type: ignore[arg-type]
    with pytest.raises(lb.ConfigurationError):
        ProviderConfig.from_mapping({"auth": 42})
    with pytest.raises(lb.ConfigurationError, match="not both"):
        ProviderConfig.from_mapping({"auth": auth, "token_provider": lambda: "t"})


@pytest.mark.parametrize("how", ["lambda", "async def", "method"])
def test_a_function_given_as_auth_is_told_to_be_a_token_provider(how: str) -> None:
    """The slip users make (issue 49): ``{"auth": lambda: token}``."""

    async def fetch() -> str:
        return "tok"

    function = {"lambda": lambda: "tok", "async def": fetch, "method": "tok".strip}[how]
    with pytest.raises(lb.UsageError, match="not a function") as caught:
        lb.Client(providers={"openai-compatible": {"base_url": "http://x", "auth": function}})
    assert "token_provider" in str(caught.value)
    assert "tok" not in str(caught.value).replace("token", "")
    with pytest.raises(lb.UsageError, match="not a int"):  # not a function: the type, as before
        ProviderConfig.from_mapping({"auth": 42})


def test_auth_never_shows_in_reprs() -> None:
    config = ProviderConfig.from_mapping({"token_provider": lambda: "tok-secret-0123456789"})
    request = HttpRequest("POST", "http://x", {}, None, auth=config.auth)
    for text in (repr(config), repr(request), repr(config.auth)):
        assert "tok-secret" not in text


def test_the_auth_modules_load_neither_botocore_nor_google_auth() -> None:
    import subprocess
    import sys

    code = (
        "import sys, llmbridge, llmbridge.auth, llmbridge.auth.aws, llmbridge.auth.google\n"
        "import llmbridge.providers.gemini.provider, llmbridge.providers.openai.provider\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'botocore' or m.startswith('google.auth')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
