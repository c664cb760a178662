"""Google Application Default Credentials for ``vertex:``, google-auth doing its real flow.

A service-account file (a key generated here) whose ``token_uri`` is a loopback endpoint that
checks the signed assertion: the bearer token reaches the request; an expiring token is
refreshed before the request; 100 concurrent requests cause one refresh; a 401 causes one
refresh and one retry; the loop keeps running while the token endpoint is slow. On asyncio,
uvloop and trio.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

import llmbridge as lb
from llmbridge.auth import REFRESH_MARGIN
from llmbridge.stream import RetryPolicy
from tests.auth.google_support import GEMINI_SSE, PROJECT, token_endpoint
from tests.auth.support import Answer, Seen, chat_server, unauthorized
from tests.fakes import FakeClock
from tests.heartbeat import Heartbeat

pytest.importorskip("google.auth")
pytest.importorskip("cryptography")

pytestmark = pytest.mark.anyio

MESSAGES = [lb.ChatMessage.user("hi")]
GOOGLE_VARS = ("GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "CLOUDSDK_CONFIG")


@pytest.fixture
def adc_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in GOOGLE_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path / "gcloud"))  # no gcloud user login
    monkeypatch.setattr("google.auth.compute_engine._metadata._NO_GCE_CHECK", True)  # no IMDS


def ok(request: Seen) -> Answer:
    return Answer(body=GEMINI_SSE)


def vertex(url: str, **options: Any) -> dict[str, Any]:
    return {"base_url": f"{url}/v1/projects/p/locations/global", **options}


@pytest.mark.usefixtures("adc_env")
async def test_the_bearer_token_reaches_the_request(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    async with token_endpoint(tmp_path) as (endpoint, key_file), chat_server(ok) as (url, seen):
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key_file))
        async with lb.Client(providers={"vertex": vertex(url)}) as client:
            first = await client.complete("vertex:gemini-2.5-flash", MESSAGES)
            await client.complete("vertex:gemini-2.5-flash", MESSAGES)
    assert first.text == "hi"
    assert endpoint.issued == ["google-access-token-0001-abcdefghij"]  # cached while fresh
    assert [s.headers["authorization"] for s in seen] == [
        "Bearer google-access-token-0001-abcdefghij"
    ] * 2
    assert (
        seen[0].path
        == "/v1/projects/p/locations/global/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    )
    assert "x-goog-api-key" not in seen[0].headers


@pytest.mark.usefixtures("adc_env")
async def test_an_expiring_token_is_refreshed_before_the_request(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    order: list[str] = []

    def answer(request: Seen) -> Answer:
        order.append(request.headers["authorization"][-21:])
        return ok(request)

    lifetimes = [int(REFRESH_MARGIN) + 2, 3600]  # the first is usable for two seconds
    async with (
        token_endpoint(tmp_path, lifetimes=lifetimes) as (endpoint, key_file),
        chat_server(answer) as (url, _),
    ):
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key_file))
        async with lb.Client(providers={"vertex": vertex(url)}) as client:
            await client.complete("vertex:gemini-2.5-flash", MESSAGES)
            assert len(endpoint.issued) == 1
            clock = FakeClock()  # past the first token's two usable seconds
            clock.advance(2.5)
            monkeypatch.setattr("llmbridge.auth.bearer.time", clock)
            await client.complete("vertex:gemini-2.5-flash", MESSAGES)
    assert endpoint.issued[-1] == "google-access-token-0002-abcdefghij"
    assert order == ["token-0001-abcdefghij", "token-0002-abcdefghij"]


@pytest.mark.usefixtures("adc_env")
async def test_100_concurrent_requests_cause_one_refresh_and_the_loop_keeps_running(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    heartbeat = Heartbeat()
    ticked: list[int] = []

    async def hold() -> None:  # answer only once the loop has visibly run meanwhile
        ticked.append(await heartbeat.wait(ticks=5))

    async with (
        token_endpoint(tmp_path, delay=0.2) as (endpoint, key_file),
        chat_server(ok) as (url, seen),
    ):
        endpoint.hold = hold
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key_file))
        async with lb.Client(providers={"vertex": vertex(url)}) as client:
            async with anyio.create_task_group() as tg:
                tg.start_soon(heartbeat.run)
                async with anyio.create_task_group() as requests:
                    for _ in range(100):
                        requests.start_soon(client.complete, "vertex:gemini-2.5-flash", MESSAGES)
                tg.cancel_scope.cancel()
    assert len(endpoint.issued) == 1
    assert len(seen) == 100
    assert {s.headers["authorization"] for s in seen} == {
        "Bearer google-access-token-0001-abcdefghij"
    }
    # the blocking google-auth refresh ran off the loop: the loop ticked and served the endpoint
    assert len(ticked) == 1 and ticked[0] >= 5  # (it may tick again before the wait sees it)


@pytest.mark.usefixtures("adc_env")
async def test_a_401_causes_one_refresh_and_one_retry(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def answer(request: Seen) -> Answer:
        if request.headers["authorization"].endswith("0001-abcdefghij"):
            return unauthorized("token revoked")
        return ok(request)

    async with token_endpoint(tmp_path) as (endpoint, key_file), chat_server(answer) as (url, seen):
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key_file))
        client = lb.Client(providers={"vertex": vertex(url)}, retry=RetryPolicy(max_attempts=1))
        async with client:
            assert (await client.complete("vertex:gemini-2.5-flash", MESSAGES)).text == "hi"
    assert len(endpoint.issued) == 2 and len(seen) == 2


@pytest.mark.usefixtures("adc_env")
async def test_a_second_401_is_raised_never_a_loop(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def answer(request: Seen) -> Answer:
        return unauthorized("echo " + request.headers["authorization"])

    async with token_endpoint(tmp_path) as (endpoint, key_file), chat_server(answer) as (url, seen):
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key_file))
        client = lb.Client(providers={"vertex": vertex(url)}, retry=RetryPolicy(max_attempts=3))
        async with client:
            with pytest.raises(lb.AuthenticationError) as info:
                await client.complete("vertex:gemini-2.5-flash", MESSAGES)
    assert len(endpoint.issued) == 2 and len(seen) == 2
    assert "google-access-token" not in f"{info.value} {info.value.body}"


@pytest.mark.usefixtures("adc_env")
async def test_project_from_options_then_environment_then_credentials(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    async with token_endpoint(tmp_path) as (_, key_file):
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key_file))

        def url_of(**options: Any) -> str:
            provider = lb.Client(providers={"vertex": options}).provider("vertex")
            request = lb.Client().build_request("gemini-2.5-flash", MESSAGES)
            return provider.build_request(request).url

        assert f"/projects/{PROJECT}/locations/global/" in url_of()
        monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "env-project")
        assert "/projects/env-project/" in url_of()
        assert "/projects/opt-project/locations/europe-west4/" in url_of(
            project="opt-project", location="europe-west4"
        )


@pytest.mark.usefixtures("adc_env")
async def test_a_given_token_still_wins_and_needs_no_google_auth(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "google.auth", None)
    async with chat_server(ok) as (url, seen):
        async with lb.Client(
            providers={"vertex": vertex(url, access_token="ya29.given-token-0123")}
        ) as client:
            await client.complete("vertex:gemini-2.5-flash", MESSAGES)
    assert seen[0].headers["authorization"] == "Bearer ya29.given-token-0123"


@pytest.mark.usefixtures("adc_env")
def test_without_the_extra_a_vertex_model_without_token_names_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "google.auth", None)
    with pytest.raises(lb.ConfigurationError, match=r"llmbridge\[google\]"):
        lb.Client(providers={"vertex": {"project": "p"}}).provider("vertex")


@pytest.mark.usefixtures("adc_env")
def test_no_credentials_anywhere_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    with pytest.raises(lb.ConfigurationError, match="Application Default Credentials"):
        lb.Client(providers={"vertex": {}}).provider("vertex")


@pytest.mark.usefixtures("adc_env")
async def test_with_a_base_url_nothing_is_loaded_until_the_first_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    async with chat_server(ok) as (url, seen):
        client = lb.Client(providers={"vertex": vertex(url)}, retry=RetryPolicy(max_attempts=1))
        async with client:
            client.provider("vertex")  # built: no project needed, no credentials loaded
            with pytest.raises(lb.ConfigurationError, match="Application Default Credentials"):
                await client.complete("vertex:gemini-2.5-flash", MESSAGES)
    assert seen == []


@pytest.mark.usefixtures("adc_env")
async def test_an_unreachable_or_refusing_token_endpoint_is_a_typed_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    async with token_endpoint(tmp_path) as (_, key_file):
        pass  # the endpoint is closed now: its port refuses
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key_file))
    async with chat_server(ok) as (url, seen):
        client = lb.Client(providers={"vertex": vertex(url)}, retry=RetryPolicy(max_attempts=1))
        async with client:
            with pytest.raises(
                lb.ConnectionError, match="token endpoint could not be reached"
            ) as caught:
                await client.complete("vertex:gemini-2.5-flash", MESSAGES)
    assert caught.value.retryable and seen == []
