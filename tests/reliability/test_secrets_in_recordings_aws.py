"""Recordings keep no AWS credential when it comes from the environment and the server echoes it
(issue 49, item 11): ``record_fixture`` asks the provider's SigV4 auth for its secrets, as the
error path does, and the recorder reads the access key id and signature out of a SigV4
``Authorization`` value; both are scrubbed from recorded bodies, headers and errors."""

from __future__ import annotations

from pathlib import Path

import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.secrets import named_secrets
from llmbridge.testing import RecordingTransport, record_fixture
from tests.auth.aws_support import clean_aws_env

pytest.importorskip("botocore")
pytestmark = pytest.mark.anyio

KEY_ID = "AKIAENVIRONMENT00042"
SECRET = "environment-secret-access-key-0123456789"
SESSION = "environment-session-token-0123456789abcdef"
MESSAGES = [lb.ChatMessage.user("who am I?")]
NO_RETRY = lb.RetryPolicy(max_attempts=1)


@pytest.fixture
def env_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clean_aws_env(monkeypatch, tmp_path)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", KEY_ID)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_SESSION_TOKEN", SESSION)
    monkeypatch.setenv("AWS_REGION", "us-east-1")


def _everything(path: Path) -> str:
    return "".join(p.read_text("utf-8", "replace") for p in path.rglob("*") if p.is_file())


def _key_id_of(request: httpx.Request) -> str:
    credential = request.headers["authorization"].split("Credential=")[1]
    return credential.split("/")[0]


def _anthropic_text(text: str) -> bytes:
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
               "content": [], "usage": {"input_tokens": 1, "output_tokens": 1}}  # fmt: skip
    events = [
        ("message_start", {"type": "message_start", "message": message}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": text}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                           "usage": {"output_tokens": 2}}),
        ("message_stop", {"type": "message_stop"}),
    ]  # fmt: skip
    return b"".join(
        f"event: {name}\n".encode() + b"data: " + orjson.dumps(data) + b"\n\n"
        for name, data in events
    )


@pytest.mark.usefixtures("env_credentials")
async def test_a_403_echoing_the_access_key_id_is_recorded_without_it(tmp_path: Path) -> None:
    def upstream(request: httpx.Request) -> httpx.Response:
        key_id = _key_id_of(request)
        assert key_id == KEY_ID  # signed with the environment's credentials
        body = {"message": f"The security token included in the request is invalid ({key_id})"}
        return httpx.Response(
            403,
            headers={"content-type": "application/json", "x-amzn-errormessage": key_id},
            content=orjson.dumps(body),
        )

    path = tmp_path / "bedrock403"
    await record_fixture(
        path, "bedrock:anthropic.claude", MESSAGES,
        client_options={"retry": NO_RETRY}, transport=httpx.MockTransport(upstream),
    )  # fmt: skip
    written = _everything(path)
    assert (path / "error.json").exists() and "security token included" in written
    for secret in (KEY_ID, SECRET, SESSION):
        assert secret not in written, secret
    assert "<redacted>" in (path / "response.sse").read_text()


@pytest.mark.usefixtures("env_credentials")
async def test_a_stream_echoing_the_access_key_id_is_recorded_without_it(tmp_path: Path) -> None:
    def upstream(request: httpx.Request) -> httpx.Response:
        body = _anthropic_text(f"you signed as {_key_id_of(request)}")
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    path = tmp_path / "mantle"
    fixture = await record_fixture(
        path, "anthropic-bedrock-mantle:anthropic.claude-sonnet-4-5", MESSAGES,
        client_options={"retry": NO_RETRY}, transport=httpx.MockTransport(upstream),
    )  # fmt: skip
    written = _everything(path)
    assert KEY_ID not in written and SECRET not in written
    assert any(getattr(e, "text", "") == "you signed as <redacted>" for e in fixture.events or [])


async def test_the_recorder_alone_knows_the_key_id_and_signature_of_a_sigv4_header() -> None:
    signature = "0123456789abcdef" * 4
    value = (
        f"AWS4-HMAC-SHA256 Credential={KEY_ID}/20261202/us-east-1/bedrock/aws4_request, "
        f"SignedHeaders=host;x-amz-date, Signature={signature}"
    )
    assert {KEY_ID, signature} <= named_secrets([("Authorization", value)])

    def upstream(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=f"{KEY_ID} {signature}".encode())

    recorder = RecordingTransport(httpx.MockTransport(upstream))
    async with httpx.AsyncClient(transport=recorder) as http:
        response = await http.post("https://aws.example.test/", headers={"authorization": value})
    assert response.text == f"{KEY_ID} {signature}"  # handed on exact
    shown = repr(recorder.recordings[0])
    assert KEY_ID not in shown and signature not in shown


@pytest.mark.usefixtures("env_credentials")
async def test_what_the_providers_own_auth_sent_is_scrubbed_from_the_recording(
    tmp_path: Path,
) -> None:
    """The secret access key is never on the wire: only the SigV4 auth knows it."""

    def upstream(request: httpx.Request) -> httpx.Response:
        body = {"message": f"debug: signed with {KEY_ID} / {SECRET} / {SESSION}"}
        return httpx.Response(
            400, headers={"content-type": "application/json"}, content=orjson.dumps(body)
        )

    path = tmp_path / "bedrock400"
    await record_fixture(
        path, "bedrock:anthropic.claude", MESSAGES,
        client_options={"retry": NO_RETRY}, transport=httpx.MockTransport(upstream),
    )  # fmt: skip
    written = _everything(path)
    assert "debug: signed with" in written
    for secret in (KEY_ID, SECRET, SESSION):
        assert secret not in written, secret
