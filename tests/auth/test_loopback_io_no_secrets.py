"""No token, key, session token or signature in any artefact of an authed stream.

For each scheme (an Entra ID token provider on ``azure``, Google ADC on ``vertex``, SigV4
credentials through the ``auth=`` seam), a server that echoes the credential back (in the
streamed text, then in a 401 error) is recorded with ``record_fixture`` while OpenTelemetry
spans and every log record are captured; the fixture files, spans, logs and the error are then
searched for each secret value.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.auth.aws import aws_auth
from llmbridge.providers.base import ProviderConfig
from llmbridge.stream import RetryPolicy
from llmbridge.testing import record_fixture
from tests.auth.aws_support import clean_aws_env
from tests.auth.support import Answer, Seen, chat_server

pytest.importorskip("botocore")
pytest.importorskip("google.auth")
sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)

from tests.auth.google_support import token_endpoint  # noqa: E402

pytestmark = pytest.mark.anyio

MESSAGES = [lb.ChatMessage.user("what is my credential?")]
AWS_SECRET = "aws-secret-access-key-0123456789abcdef"
AWS_SESSION = "aws-session-token-0123456789abcdefghij"


def _echo(request: Seen, *, gemini: bool, fail: bool) -> Answer:
    credential = request.headers["authorization"]
    text = f"you sent {credential} and {request.headers.get('x-amz-security-token')}"
    if fail:
        body = orjson.dumps({"error": {"message": f"invalid credential {credential}"}})
        return Answer(401, body, "application/json")
    part: dict[str, Any]
    if gemini:
        content = {"role": "model", "parts": [{"text": text}]}
        part = {"candidates": [{"content": content, "finishReason": "STOP"}]}
    else:
        choice = {"index": 0, "delta": {"content": text}, "finish_reason": "stop"}
        part = {"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}
    done = b"" if gemini else b"data: [DONE]\n\n"
    return Answer(body=b"data: " + orjson.dumps(part) + b"\n\n" + done)


@asynccontextmanager
async def scheme(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, fail: bool
) -> AsyncIterator[tuple[str, dict[str, Any], list[str]]]:
    """The model, its provider options and (after the run) the secrets it sent."""
    gemini = name == "google"
    secrets: list[str] = []

    def answer(request: Seen) -> Answer:
        secrets.append(request.headers["authorization"].split()[-1])
        if "x-amz-security-token" in request.headers:
            secrets.append(request.headers["x-amz-security-token"])
        return _echo(request, gemini=gemini, fail=fail)

    async with chat_server(answer) as (url, _):
        if name == "entra":
            options = {
                "base_url": url,
                "token_provider": lambda: "entra-id-token-0123456789abcdef",
                "env": {},
            }
            yield "azure:gpt-4o", {"azure": options}, secrets
        elif name == "google":
            monkeypatch.setattr("google.auth.compute_engine._metadata._NO_GCE_CHECK", True)
            async with token_endpoint(tmp_path) as (endpoint, key_file):
                monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key_file))
                options = {"base_url": f"{url}/v1/projects/p/locations/global"}
                yield "vertex:gemini-2.5-flash", {"vertex": options}, secrets
                secrets.extend(endpoint.issued)
                secrets.append(json.loads(key_file.read_text())["private_key"].splitlines()[1])
        else:
            clean_aws_env(monkeypatch, tmp_path)
            config = ProviderConfig.from_mapping(
                {"region": "us-east-1", "aws_access_key_id": "AKIAEXAMPLE000000042",
                 "aws_secret_access_key": AWS_SECRET, "aws_session_token": AWS_SESSION}
            )  # fmt: skip
            auth = aws_auth(config, service="bedrock", provider="openai-compatible").auth
            yield (
                "openai-compatible:m",
                {"openai-compatible": {"base_url": url, "auth": auth}},
                secrets,
            )
            secrets.extend([AWS_SECRET, AWS_SESSION])


def _spans_text(exporter: InMemorySpanExporter) -> str:
    return "\n".join(span.to_json() for span in exporter.get_finished_spans())


@pytest.mark.parametrize("name", ["entra", "google", "aws"])
@pytest.mark.parametrize("fail", [False, True], ids=["echoed-in-stream", "echoed-in-401"])
async def test_no_secret_in_recordings_spans_logs_or_errors(
    name: str,
    fail: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    exporter = InMemorySpanExporter()
    tracer_provider = sdk_trace.TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry = lb.Telemetry(tracer_provider=tracer_provider)
    caplog.set_level(logging.DEBUG)
    shown: list[str] = []
    async with scheme(name, tmp_path, monkeypatch, fail=fail) as (model, providers, secrets):
        options = {
            "providers": providers,
            "telemetry": telemetry,
            "retry": RetryPolicy(max_attempts=1),
        }
        fixture = await record_fixture(
            tmp_path / "fixture", model, MESSAGES, client_options=options,
            transport=httpx.AsyncHTTPTransport(),
        )  # fmt: skip
        async with lb.Client(**options) as client:
            try:
                response = await client.complete(model, MESSAGES)  # its text is the server's
                assert "you sent" in response.text
            except lb.LLMBridgeError as exc:
                shown += [
                    str(exc),
                    repr(exc),
                    str(exc.provider_message),
                    str(getattr(exc, "body", "")),
                ]
            shown.append(repr(client.provider(model.split(":")[0])))
    assert secrets and all(len(s) >= 8 for s in secrets)
    assert (fixture.path / "request.json").exists()
    artefacts = {p.name: p.read_text(errors="replace") for p in fixture.path.iterdir()}
    assert ("error.json" in artefacts) == fail
    artefacts["spans"] = _spans_text(exporter)
    artefacts["logs"] = caplog.text + "\n".join(str(r.__dict__) for r in caplog.records)
    artefacts["shown"] = "\n".join(shown)
    assert "<redacted>" in artefacts["request.json"]
    for where, text in artefacts.items():
        for secret in secrets:
            assert secret not in text, f"a credential leaked into {where}"
    assert "<redacted>" in (artefacts["error.json"] if fail else artefacts["response.sse"])


async def test_a_signed_recording_replays_with_other_credentials_and_another_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from llmbridge.testing import replay_client

    clean_aws_env(monkeypatch, tmp_path)

    def auth(secret: str) -> Any:
        config = ProviderConfig.from_mapping(
            {"region": "us-east-1", "aws_access_key_id": "AKIAEXAMPLE000000042",
             "aws_secret_access_key": secret, "aws_session_token": AWS_SESSION}
        )  # fmt: skip
        return aws_auth(config, service="bedrock", provider="openai-compatible").auth

    async with chat_server(lambda r: _echo(r, gemini=False, fail=False)) as (url, _):
        providers = {"openai-compatible": {"base_url": url, "auth": auth(AWS_SECRET)}}
        fixture = await record_fixture(
            tmp_path / "signed", "openai-compatible:m", MESSAGES,
            client_options={"providers": providers}, transport=httpx.AsyncHTTPTransport(),
        )  # fmt: skip
    recorded = json.loads((fixture.path / "request.json").read_text())["headers"]
    for name in ("authorization", "x-amz-date", "x-amz-security-token"):
        assert recorded[name] == "<redacted>"
    # replay: another secret, another moment: the signature differs, the replay still matches
    providers = {"openai-compatible": {"base_url": url, "auth": auth("another-secret-0123456789")}}
    async with (
        replay_client(fixture.path) as http,
        lb.Client(http_client=http, providers=providers) as client,
    ):
        response = await client.complete("openai-compatible:m", MESSAGES)
    assert response.text.startswith("you sent <redacted>")
