"""AWS test helpers: a clean environment, temporary config files, one auth flow by hand."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

AWS_VARS = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_CONFIG_FILE",
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_ROLE_ARN",
)


def clean_aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[Path, Path]:
    """No AWS variable from the machine; empty config/credentials files; no IMDS."""
    for name in AWS_VARS:
        monkeypatch.delenv(name, raising=False)
    config, credentials = tmp_path / "config", tmp_path / "credentials"
    config.write_text("")
    credentials.write_text("")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(credentials))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    return config, credentials


async def run_flow(auth: httpx.Auth, request: httpx.Request) -> httpx.Request:
    """The request ``auth`` sends first (its flow run by hand, no network)."""
    flow = auth.async_auth_flow(request)
    sent = await flow.__anext__()
    await flow.aclose()
    return sent


def post(url: str, body: bytes, **headers: str) -> httpx.Request:
    return httpx.Request(
        "POST", url, content=body, headers={"content-type": "application/json", **headers}
    )
