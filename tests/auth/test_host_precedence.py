"""One precedence per host (issue 42, item 7): every provider a cloud serves picks the same credential.

AWS (``bedrock``, ``anthropic-bedrock``, ``anthropic-bedrock-mantle``): the app's auth, an
``api_key``, explicit AWS credentials or a profile (SigV4, the key variable unread), the key
variable, the default chain. Google (``vertex``, ``anthropic-vertex``): a token, the app's
auth, ADC; a token and an auth together are refused. Azure (``azure``, ``azure-responses``,
``anthropic-foundry``): a key or an Entra ID token, never both. Each case is checked on the
request a provider sends (through ``httpx.MockTransport``), not on its internals.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

import llmbridge as lb
from tests.auth.aws_support import clean_aws_env

pytestmark = pytest.mark.anyio

AWS_HOSTED = {
    "bedrock": "anthropic.claude-3-haiku-20240307-v1:0",
    "anthropic-bedrock": "anthropic.claude-3-haiku-20240307-v1:0",
    "anthropic-bedrock-mantle": "anthropic.claude-haiku-4-5",
}
ENV_KEY = "bedrock-env-key-0123456789"
OPTION_KEY = "bedrock-option-key-0123456789"


async def _sent(name: str, model: str, options: dict[str, Any]) -> httpx.Request:
    """The first request ``name`` sends for one chat turn (answered 400: nothing is retried)."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(400, json={"message": "stop here"})

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    async with http:
        client = lb.Client(http_client=http, providers={name: options})
        with pytest.raises(lb.APIError):
            await client.complete(f"{name}:{model}", [lb.ChatMessage.user("hi")])
    assert len(seen) == 1
    return seen[0]


def _how(request: httpx.Request) -> str:
    value = request.headers.get("authorization", "")
    if value.startswith("AWS4-HMAC-SHA256 "):
        return "sigv4:" + value.split("Credential=")[1].split("/")[0]
    return value


@pytest.fixture
def aws_files(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[Path, Path]:
    config, credentials = clean_aws_env(monkeypatch, tmp_path)
    config.write_text("[default]\nregion = eu-west-1\n[profile work]\nregion = ap-southeast-2\n")
    credentials.write_text(
        "[work]\naws_access_key_id = AKIDWORK\naws_secret_access_key = work-secret\n"
    )
    return config, credentials


@pytest.mark.parametrize("name", sorted(AWS_HOSTED))
@pytest.mark.parametrize(
    ("env", "options", "expected"),
    [
        ({"AWS_BEARER_TOKEN_BEDROCK": ENV_KEY}, {}, f"Bearer {ENV_KEY}"),
        ({"AWS_BEARER_TOKEN_BEDROCK": ENV_KEY}, {"api_key": OPTION_KEY}, f"Bearer {OPTION_KEY}"),
        ({"AWS_BEARER_TOKEN_BEDROCK": ENV_KEY}, {"profile": "work"}, "sigv4:AKIDWORK"),
        (
            {"AWS_BEARER_TOKEN_BEDROCK": ENV_KEY},
            {"aws_access_key_id": "AKIDOPTION", "aws_secret_access_key": "option-secret"},
            "sigv4:AKIDOPTION",
        ),
        ({"AWS_ACCESS_KEY_ID": "AKIDCHAIN", "AWS_SECRET_ACCESS_KEY": "s"}, {}, "sigv4:AKIDCHAIN"),
        (
            {"AWS_BEARER_TOKEN_BEDROCK": ENV_KEY},
            {"profile": "work", "token_provider": lambda: "app-token-0123456789"},
            "Bearer app-token-0123456789",
        ),
    ],
    ids=["key-variable", "api-key-option", "profile", "aws-keys", "default-chain", "app-auth"],
)
async def test_every_aws_hosted_provider_picks_the_same_credential(
    monkeypatch: pytest.MonkeyPatch,
    aws_files: tuple[Path, Path],
    name: str,
    env: dict[str, str],
    options: dict[str, Any],
    expected: str,
) -> None:
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    sent = await _sent(name, AWS_HOSTED[name], {"region": "us-west-2", **options})
    assert _how(sent) == expected
    assert "us-west-2" in sent.url.host  # the region option wins over the profile's


@pytest.mark.parametrize("name", sorted(AWS_HOSTED))
async def test_every_aws_hosted_provider_takes_the_region_the_same_way(
    monkeypatch: pytest.MonkeyPatch, aws_files: tuple[Path, Path], name: str
) -> None:
    """A key and no region option: ``AWS_REGION``, then ``AWS_DEFAULT_REGION``, then the
    (default) profile's."""
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", ENV_KEY)
    assert "eu-west-1" in (await _sent(name, AWS_HOSTED[name], {})).url.host
    monkeypatch.setenv("AWS_DEFAULT_REGION", "ca-central-1")
    assert "ca-central-1" in (await _sent(name, AWS_HOSTED[name], {})).url.host
    monkeypatch.setenv("AWS_REGION", "sa-east-1")
    assert "sa-east-1" in (await _sent(name, AWS_HOSTED[name], {})).url.host


@pytest.mark.parametrize("name", sorted(AWS_HOSTED))
def test_a_key_and_aws_credentials_together_are_refused_by_every_aws_host(
    aws_files: tuple[Path, Path], name: str
) -> None:
    with pytest.raises(lb.ConfigurationError, match="not both"):
        lb.Client(providers={name: {"api_key": OPTION_KEY, "profile": "work"}}).provider(name)


@pytest.mark.parametrize(
    ("name", "model"),
    [("vertex", "gemini-2.5-flash"), ("anthropic-vertex", "claude-opus-4-5")],
)
async def test_google_hosted_providers_share_the_precedence_and_hosts(
    name: str, model: str
) -> None:
    token = "ya29.google-token-0123456789"
    options = {"access_token": token, "project": "p1", "location": "eu", "env": {}}
    sent = await _sent(name, model, options)
    assert sent.headers["authorization"] == f"Bearer {token}"
    assert sent.url.host == "aiplatform.eu.rep.googleapis.com"  # the multi-region host
    sent = await _sent(name, model, {**options, "location": "europe-west4"})
    assert sent.url.host == "europe-west4-aiplatform.googleapis.com"
    with pytest.raises(lb.ConfigurationError, match="not both"):
        lb.Client(providers={name: {**options, "token_provider": lambda: "t"}}).provider(name)


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("azure", {"resource": "res"}),
        ("azure-responses", {"resource": "res"}),
        ("anthropic-foundry", {"resource": "res"}),
    ],
)
async def test_azure_hosted_providers_take_a_key_or_an_entra_token(
    name: str, options: dict[str, Any]
) -> None:
    entra = "entra-token-0123456789"
    sent = await _sent(name, "m", {**options, "env": {}, "token_provider": lambda: entra})
    assert sent.headers["authorization"] == f"Bearer {entra}"
    assert sent.url.host.startswith("res.") and sent.url.host.endswith(".azure.com")
    with pytest.raises(lb.ConfigurationError, match="not both"):
        lb.Client(
            providers={name: {**options, "api_key": "k-0123456789", "token_provider": lambda: "t"}}
        ).provider(name)
