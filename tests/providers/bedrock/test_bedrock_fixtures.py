"""Bedrock fixtures: the readable companion says what the binary body holds, and recording a
SigV4-signed request keeps no credential or signature while its replay needs none."""

from __future__ import annotations

from pathlib import Path

import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.stream.aws_eventstream import iter_eventstream
from llmbridge.testing import ReplayTransport, load_fixture, record_fixture
from tests.fakes import ChunkedBody
from tests.providers.bedrock.frames import converse

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "bedrock"
BINARY = sorted(FIXTURES.glob("*/response.eventstream"))
SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
TOKEN = "IQoJb3JpZ2luX2VjEXAMPLESESSIONTOKEN"
AWS = {
    "region": "us-west-2",
    "aws_access_key_id": "AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key": SECRET,
    "aws_session_token": TOKEN,
}


@pytest.mark.parametrize("body", BINARY, ids=lambda p: p.parent.name)
def test_the_companion_lists_the_frames_of_the_binary_body(body: Path) -> None:
    companion = [
        orjson.loads(line)
        for line in (body.parent / "response.frames.jsonl").read_text().splitlines()
    ]
    frames = [
        {"event": event, "data": orjson.loads(data) if data.startswith("{") else data}
        for event, data in (m.pair() for m in iter_eventstream(body.read_bytes()))
    ]
    assert companion == frames and frames


@pytest.mark.anyio
async def test_recording_a_signed_request_redacts_it_and_the_replay_needs_no_signature(
    tmp_path: Path,
) -> None:
    body = converse(
        ("messageStart", {"role": "assistant"}),
        ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hello"}}),
        ("messageStop", {"stopReason": "end_turn"}),
        (
            "metadata",
            {
                "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
                "metrics": {"latencyMs": 1},
            },
        ),
    )
    signed: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        signed.append(request)
        return httpx.Response(
            200,
            headers={
                "content-type": "application/vnd.amazon.eventstream",
                "x-amzn-requestid": "r-1",
            },
            stream=ChunkedBody([body]),
        )

    path = tmp_path / "signed"
    await record_fixture(
        path,
        "bedrock:us.amazon.nova-lite-v1:0",
        [lb.ChatMessage.user("hi")],
        client_options={"providers": {"bedrock": AWS}},
        transport=httpx.MockTransport(handler),
    )
    sent = signed[0].headers
    assert sent["authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/")
    assert sent["x-amz-security-token"] == TOKEN and "x-amz-date" in sent
    written = "".join(p.read_text("utf-8", "replace") for p in path.iterdir())
    for secret in (
        SECRET,
        TOKEN,
        "AKIAIOSFODNN7EXAMPLE",
        sent["authorization"],
        sent["x-amz-date"],
    ):
        assert secret not in written
    recorded = orjson.loads((path / "request.json").read_bytes())["headers"]
    assert recorded["authorization"] == recorded["x-amz-date"] == "<redacted>"
    assert recorded["x-amz-security-token"] == "<redacted>"
    assert (path / "response.eventstream").read_bytes() == body
    assert (path / "response.frames.jsonl").exists()
    fx = load_fixture(path)
    # replayed with other credentials (another signature, another date): no mismatch
    other = {**AWS, "aws_secret_access_key": "another-secret", "aws_session_token": "another-token"}
    client = lb.Client(
        http_client=httpx.AsyncClient(transport=ReplayTransport(fx, chunk_size=5)),
        providers={"bedrock": {**fx.provider_config, **other}},
    )
    resp = await client.complete(fx.model, [lb.ChatMessage.user("hi")])
    assert resp.text == "Hello"
