"""AWS credentials and SigV4 (``llmbridge.auth.aws``), on asyncio, uvloop and trio.

Signatures equal botocore's own ``SigV4Auth`` on the same request with a fixed clock; a loopback
server re-signs what it received and finds the same signature (exact body bytes, the path's
percent-encoding); the credential chain reads temporary config/credentials files and the
environment; an expiring credential is refreshed once, in a worker thread, for 50 concurrent
requests; a Bedrock API key is a bearer token; the region comes from option, environment,
profile; without botocore a ``ConfigurationError`` names the extra.
"""

from __future__ import annotations

import datetime
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

import llmbridge as lb
from llmbridge.auth.aws import AwsAuth, SigV4Auth, aws_auth
from llmbridge.providers.base import ProviderConfig
from llmbridge.stream import RetryPolicy
from tests.auth.aws_support import clean_aws_env, post, run_flow
from tests.auth.support import Answer, Seen, chat_server
from tests.heartbeat import Heartbeat

pytest.importorskip("botocore")
from botocore.auth import SigV4Auth as BotocoreSigV4
from botocore.awsrequest import AWSRequest
from botocore.credentials import (
    CredentialProvider,
    Credentials,
    RefreshableCredentials,
)
from botocore.session import Session

pytestmark = pytest.mark.anyio

ACCESS = "AKIAEXAMPLEKEY000001"
SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
SESSION = "IQoJb3JpZ2luX2VjEXAMPLESESSIONTOKEN0123456789"
FIXED = datetime.datetime(2026, 1, 2, 3, 4, 5)
URL = "https://bedrock-runtime.us-east-1.amazonaws.com/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Aapplication-inference-profile%2Fabc/converse-stream"
BODY = b'{"messages":[{"role":"user","content":[{"text":"h\xc3\xa9llo"}]}]}'


@pytest.fixture
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("botocore.auth.get_current_datetime", lambda *a, **k: FIXED)


@pytest.fixture
def aws_files(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[Path, Path]:
    return clean_aws_env(monkeypatch, tmp_path)


def keys_config(**options: Any) -> ProviderConfig:
    return ProviderConfig.from_mapping(
        {
            "region": "us-east-1",
            "aws_access_key_id": ACCESS,
            "aws_secret_access_key": SECRET,
            "aws_session_token": SESSION,
            **options,
        }
    )


def _bedrock_auth_with(credentials: RefreshableCredentials) -> AwsAuth:
    """``aws_auth`` for bedrock over a botocore session whose chain yields ``credentials``."""

    class Provider(CredentialProvider):  # type: ignore[misc]
        METHOD = CANONICAL_NAME = "llmbridge-test"

        def load(self) -> RefreshableCredentials:
            return credentials

    session = Session()
    session.get_component("credential_provider").insert_before("env", Provider())
    return aws_auth(
        ProviderConfig.from_mapping({"botocore_session": session, "region": "us-east-1"}),
        service="bedrock",
        provider="bedrock",
    )


def botocore_signature(
    method: str,
    url: str,
    body: bytes,
    headers: dict[str, str],
    *,
    region: str = "us-east-1",
    credentials: Any = None,
) -> AWSRequest:
    request = AWSRequest(method=method, url=url, data=body, headers=headers)
    BotocoreSigV4(credentials or Credentials(ACCESS, SECRET, SESSION), "bedrock", region).add_auth(
        request
    )
    return request


@pytest.mark.usefixtures("fixed_clock", "aws_files")
async def test_signature_equals_botocore_sigv4_on_the_same_request() -> None:
    auth = aws_auth(keys_config(), service="bedrock", provider="bedrock").auth
    assert isinstance(auth, SigV4Auth)
    sent = await run_flow(auth, post(URL, BODY, accept="application/vnd.amazon.eventstream"))
    expected = botocore_signature(
        "POST",
        URL,
        BODY,
        {"host": "bedrock-runtime.us-east-1.amazonaws.com", "content-type": "application/json"},
    )
    assert sent.headers["authorization"] == expected.headers["Authorization"]
    assert sent.headers["x-amz-date"] == "20260102T030405Z" == expected.headers["X-Amz-Date"]
    assert sent.headers["x-amz-security-token"] == SESSION
    assert (
        "SignedHeaders=content-type;host;x-amz-date;x-amz-security-token,"
        in sent.headers["authorization"]
    )
    # the exact bytes are signed: one byte more is another signature
    other = await run_flow(auth, post(URL, BODY + b" "))
    assert other.headers["authorization"] != sent.headers["authorization"]


@pytest.mark.usefixtures("fixed_clock", "aws_files")
async def test_a_get_without_body_and_with_a_query_is_signed_like_botocore() -> None:
    auth = aws_auth(
        keys_config(aws_session_token=None, region="eu-west-1"),
        service="bedrock",
        provider="bedrock",
    ).auth
    url = (
        "https://bedrock.eu-west-1.amazonaws.com/inference-profiles?maxResults=1000&nextToken=a%2Bb"
    )
    sent = await run_flow(auth, httpx.Request("GET", url))
    expected = AWSRequest(
        method="GET", url=url, data=b"", headers={"host": "bedrock.eu-west-1.amazonaws.com"}
    )
    BotocoreSigV4(Credentials(ACCESS, SECRET), "bedrock", "eu-west-1").add_auth(expected)
    assert sent.headers["authorization"] == expected.headers["Authorization"]
    assert "x-amz-security-token" not in sent.headers


def _resign(seen: Seen, base: str) -> str:
    """What AWS does: rebuild the request from the wire and sign it with the shared secret."""
    signed = seen.headers["authorization"].split("SignedHeaders=")[1].split(",")[0].split(";")
    headers = {
        n: seen.headers[n] for n in signed if n not in ("x-amz-date", "x-amz-security-token")
    }
    expected = botocore_signature(seen.method, base + seen.path, seen.body, headers)
    return str(expected.headers["Authorization"])


@pytest.mark.usefixtures("fixed_clock", "aws_files")
async def test_every_attempt_over_the_wire_is_signed_and_verifies() -> None:
    attempts = iter([500, 200])

    def answer(request: Seen) -> Answer:
        status = next(attempts)
        return (
            Answer()
            if status == 200
            else Answer(500, b'{"error":{"message":"x"}}', "application/json")
        )

    async with chat_server(answer) as (url, seen):
        options = {
            "base_url": f"{url}/model/a%3Ab",
            "auth": aws_auth(keys_config(), service="bedrock", provider="bedrock").auth,
            "env": {},
        }
        retry = RetryPolicy(max_attempts=2, initial_delay=0, max_delay=0)
        async with lb.Client(providers={"openai-compatible": options}, retry=retry) as client:
            assert (
                await client.complete("openai-compatible:m", [lb.ChatMessage.user("é")])
            ).text == "hi"
    assert len(seen) == 2
    for request in seen:
        assert request.path == "/model/a%3Ab/chat/completions"
        assert request.headers["authorization"] == _resign(request, url)
        assert request.headers["x-amz-security-token"] == SESSION


@pytest.mark.usefixtures("fixed_clock")
async def test_chain_reads_profile_files_and_environment(
    monkeypatch: pytest.MonkeyPatch, aws_files: tuple[Path, Path]
) -> None:
    config, credentials = aws_files
    config.write_text(
        "[profile dev]\nregion = ap-south-1\n[profile other]\nregion = eu-central-1\n"
    )
    credentials.write_text(
        "[dev]\naws_access_key_id = AKIAFILEDEV000000001\naws_secret_access_key = devsecret0123456789\n"
        "[other]\naws_access_key_id = AKIAFILEOTHER0000001\naws_secret_access_key = othersecret0123456\n"
    )
    monkeypatch.setenv("AWS_PROFILE", "dev")

    async def credential_of(config: ProviderConfig) -> tuple[str, str]:
        found = aws_auth(config, service="bedrock", provider="bedrock")
        sent = await run_flow(found.auth, post(URL, BODY))
        return found.region, sent.headers["authorization"].split("Credential=")[1].split(",")[0]

    assert await credential_of(ProviderConfig()) == (
        "ap-south-1",
        "AKIAFILEDEV000000001/20260102/ap-south-1/bedrock/aws4_request",
    )
    named = ProviderConfig.from_mapping({"profile": "other"})
    assert (await credential_of(named))[1].startswith("AKIAFILEOTHER0000001/20260102/eu-central-1/")
    region = ProviderConfig.from_mapping({"region": "us-west-2"})
    assert (await credential_of(region))[0] == "us-west-2"
    monkeypatch.setenv("AWS_REGION", "sa-east-1")
    assert (await credential_of(ProviderConfig()))[0] == "sa-east-1"
    # no profile: the environment's keys come first in the chain
    monkeypatch.delenv("AWS_PROFILE")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAENVIRONMENT00001")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "envsecret0123456789")
    assert (await credential_of(ProviderConfig()))[1].startswith("AKIAENVIRONMENT00001/")


async def test_credential_process_profile_is_temporary_and_resolved_off_the_loop(
    monkeypatch: pytest.MonkeyPatch, aws_files: tuple[Path, Path], tmp_path: Path
) -> None:
    config, _ = aws_files
    script = tmp_path / "creds.py"
    expiry = (
        datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1)
    ).isoformat()
    script.write_text(
        "import json\nprint(json.dumps({'Version': 1, 'AccessKeyId': 'ASIAPROCESS000000001', "
        f"'SecretAccessKey': 'processsecret01234', 'SessionToken': 'process-session-token-0123', 'Expiration': '{expiry}'}}))\n"
    )
    config.write_text(
        f"[profile proc]\nregion = eu-west-3\ncredential_process = {sys.executable} {script}\n"
    )
    found = aws_auth(
        ProviderConfig.from_mapping({"profile": "proc"}), service="bedrock", provider="bedrock"
    )
    assert found.region == "eu-west-3"
    sent = await run_flow(found.auth, post(URL, BODY))
    assert "Credential=ASIAPROCESS000000001/" in sent.headers["authorization"]
    assert sent.headers["x-amz-security-token"] == "process-session-token-0123"
    assert isinstance(found.auth, SigV4Auth) and found.auth.refreshes == 1


class _Clock:
    def __init__(self) -> None:
        self.now = datetime.datetime.now(datetime.timezone.utc)

    def __call__(self) -> datetime.datetime:
        return self.now


async def test_an_expiring_credential_is_refreshed_once_for_50_concurrent_requests(
    aws_files: tuple[Path, Path],
) -> None:
    clock = _Clock()
    refreshes: list[int] = []
    heartbeat = Heartbeat()
    ticked_during_refresh: list[int] = []

    def refresh() -> dict[str, str]:  # blocking, like STS or IMDS
        refreshes.append(threading.get_ident())
        ticked_during_refresh.append(heartbeat.wait_in_thread(ticks=5))
        n = len(refreshes)
        return {
            "access_key": f"ASIAREFRESHED{n:07d}",
            "secret_key": f"refreshed-secret-{n:04d}",
            "token": f"refreshed-session-token-{n:04d}",
            "expiry_time": (clock.now + datetime.timedelta(hours=1)).isoformat(),
        }

    credentials = RefreshableCredentials(
        "ASIAINITIAL000000001", "initial-secret-0001", "initial-session-token-0001",
        clock.now + datetime.timedelta(hours=1), refresh, "test", time_fetcher=clock,
    )  # fmt: skip

    found = _bedrock_auth_with(credentials)
    auth = found.auth
    assert isinstance(auth, SigV4Auth)

    def answer(request: Seen) -> Answer:
        return Answer()

    async with chat_server(answer) as (url, seen):
        options = {"base_url": url, "auth": auth, "env": {}}
        async with lb.Client(providers={"openai-compatible": options}) as client:
            await client.complete("openai-compatible:m", [lb.ChatMessage.user("hi")])
            assert auth.refreshes == 1 and refreshes == []  # resolved, still fresh
            clock.now += datetime.timedelta(
                minutes=55
            )  # 5 minutes left: inside the mandatory window
            async with anyio.create_task_group() as tg:
                tg.start_soon(heartbeat.run)
                async with anyio.create_task_group() as requests:
                    for _ in range(50):
                        requests.start_soon(
                            client.complete, "openai-compatible:m", [lb.ChatMessage.user("hi")]
                        )
                tg.cancel_scope.cancel()
    assert len(refreshes) == 1 and auth.refreshes == 2
    assert threading.get_ident() not in refreshes  # the blocking refresh ran in a worker thread
    # the loop kept running while the refresh blocked (it may tick again before the wait sees it)
    assert len(ticked_during_refresh) == 1 and ticked_during_refresh[0] >= 5
    assert "Credential=ASIAINITIAL000000001/" in seen[0].headers["authorization"]
    assert all("Credential=ASIAREFRESHED0000001/" in s.headers["authorization"] for s in seen[1:])
    assert {s.headers["x-amz-security-token"] for s in seen[1:]} == {"refreshed-session-token-0001"}


async def test_bedrock_api_key_is_a_bearer_token_without_signing(
    monkeypatch: pytest.MonkeyPatch, aws_files: tuple[Path, Path]
) -> None:
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key-ABSKexample0123")
    found = aws_auth(
        ProviderConfig.from_mapping({"region": "us-west-2"}), service="bedrock", provider="bedrock"
    )
    sent = await run_flow(found.auth, post(URL, BODY))
    assert sent.headers["authorization"] == "Bearer bedrock-api-key-ABSKexample0123"
    assert "x-amz-date" not in sent.headers and found.region == "us-west-2"
    option = aws_auth(
        ProviderConfig.from_mapping({"api_key": "option-key-0123456789", "region": "us-west-2"}),
        service="bedrock",
        provider="bedrock",
    )
    assert (await run_flow(option.auth, post(URL, BODY))).headers[
        "authorization"
    ] == "Bearer option-key-0123456789"
    assert "option-key" not in repr(option) + repr(option.auth)


def test_no_region_anywhere_is_a_configuration_error(aws_files: tuple[Path, Path]) -> None:
    with pytest.raises(lb.ConfigurationError, match="needs an AWS region"):
        aws_auth(ProviderConfig(), service="bedrock", provider="bedrock")


async def test_no_credentials_anywhere_is_a_configuration_error(
    aws_files: tuple[Path, Path],
) -> None:
    found = aws_auth(
        ProviderConfig.from_mapping({"region": "us-east-1"}), service="bedrock", provider="bedrock"
    )
    with pytest.raises(lb.ConfigurationError, match="no AWS credentials found"):
        await run_flow(found.auth, post(URL, BODY))


def test_without_botocore_the_error_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, aws_files: tuple[Path, Path]
) -> None:
    for name in [m for m in sys.modules if m == "botocore" or m.startswith("botocore.")]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(lb.ConfigurationError, match=r"llmbridge\[bedrock\]"):
        aws_auth(
            ProviderConfig.from_mapping({"region": "us-east-1"}),
            service="bedrock",
            provider="bedrock",
        )
    # a Bedrock API key with a region needs no botocore at all
    keyed = aws_auth(
        ProviderConfig.from_mapping({"api_key": "k" * 20, "region": "us-east-1"}),
        service="bedrock",
        provider="bedrock",
    )
    assert keyed.region == "us-east-1"


def test_reprs_and_errors_show_no_key() -> None:
    found = aws_auth(keys_config(), service="bedrock", provider="bedrock")
    shown = repr(found) + repr(found.auth) + repr(keys_config())
    for secret in (ACCESS, SECRET, SESSION):
        assert secret not in shown


def test_a_bedrock_key_without_botocore_or_region_asks_for_the_region(
    monkeypatch: pytest.MonkeyPatch, aws_files: tuple[Path, Path]
) -> None:
    for name in [m for m in sys.modules if m == "botocore" or m.startswith("botocore.")]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(lb.ConfigurationError, match="needs an AWS region"):
        aws_auth(
            ProviderConfig.from_mapping({"api_key": "k" * 20}),
            service="bedrock",
            provider="bedrock",
        )


@pytest.mark.usefixtures("fixed_clock")
def test_the_sync_client_signs_too(aws_files: tuple[Path, Path]) -> None:
    async def main() -> list[Seen]:
        async with chat_server() as (url, seen):
            options = {
                "base_url": url,
                "auth": aws_auth(keys_config(), service="bedrock", provider="bedrock").auth,
            }
            with lb.SyncClient(providers={"openai-compatible": options}) as client:
                await anyio.to_thread.run_sync(
                    client.complete, "openai-compatible:m", [lb.ChatMessage.user("hi")]
                )
            return seen

    seen = anyio.run(main)
    assert len(seen) == 1
    assert seen[0].headers["authorization"].startswith("AWS4-HMAC-SHA256 ")


async def test_an_unknown_profile_and_a_failing_refresh_are_typed_errors(
    aws_files: tuple[Path, Path],
) -> None:
    with pytest.raises(lb.ConfigurationError, match="ProfileNotFound"):
        aws_auth(
            ProviderConfig.from_mapping({"profile": "nope"}), service="bedrock", provider="bedrock"
        )

    def refresh() -> dict[str, str]:
        raise RuntimeError("the identity broker is down")

    expired = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=1)
    credentials = RefreshableCredentials(
        "ASIAOLD0000000000001", "old-secret-000001", "old-token-000001", expired, refresh, "test"
    )

    found = _bedrock_auth_with(credentials)
    with pytest.raises(lb.AuthenticationError, match="identity broker is down") as info:
        await run_flow(found.auth, post(URL, BODY))
    assert isinstance(info.value.__cause__, RuntimeError)
