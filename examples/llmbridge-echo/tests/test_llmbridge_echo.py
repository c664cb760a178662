"""The echo plug-in checked with llmbridge's own conformance helpers (``llmbridge.testing``).

Copy this file into your plug-in: every fixture is checked both ways (the encoder still builds
the recorded request; the decoder still yields the golden events, whole and split at every
byte offset, keeping the event invariants), then through a real ``Client`` over the replay
transport, and the failure modes raise the typed llmbridge errors.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import orjson
import pytest
from llmbridge_echo import EchoDecoder, create

import llmbridge as lb
from llmbridge.testing import (
    assert_split_invariant,
    check_invariants,
    decode_collect,
    load_fixture,
    merge_deltas,
    replay_client,
)

FIXTURES = sorted(p.parent for p in (Path(__file__).parents[1] / "fixtures").glob("*/*/input.json"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_encoder_builds_the_recorded_request(path: Path) -> None:
    fx = load_fixture(path)
    built = create(lb.ProviderConfig()).build_request(fx.request)
    sent = {"method": built.method, "url": built.url, "headers": built.redacted_headers()}
    assert {**sent, "body": built.json} == fx.http_request


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_decoder_yields_golden_events_split_anywhere(path: Path) -> None:
    fx = load_fixture(path)
    events, error = decode_collect(EchoDecoder(), fx.body_chunks())
    assert error is None
    assert events == fx.events
    check_invariants(events)
    merged, error_name = assert_split_invariant(EchoDecoder, fx.body)
    assert merged == merge_deltas(events) and error_name is None


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_fixture_streams_through_the_client(path: Path) -> None:
    fx = load_fixture(path)

    async def main() -> list[lb.StreamEvent]:
        async with lb.Client(http_client=replay_client(path)) as client:
            stream = client.stream(fx.model, fx.request.messages, tools=fx.request.tools)
            return [event async for event in stream]

    assert anyio.run(main) == fx.events


def test_missing_done_is_a_truncated_stream() -> None:
    body = b'event: text\ndata: {"text":"Hel"}\n\n'
    events, error = decode_collect(EchoDecoder(), [body])
    assert events == [lb.TextDelta("Hel")]
    assert isinstance(error, lb.StreamTruncatedError)


def test_error_event_raises_the_typed_api_error() -> None:
    error = {"error": {"type": "rate_limit_error", "message": "slow down"}}
    body = b"event: error\ndata: " + orjson.dumps(error) + b"\n\n"
    _, raised = decode_collect(EchoDecoder(), [body])
    assert isinstance(raised, lb.RateLimitError) and "slow down" in str(raised)


@pytest.mark.parametrize("body", [b"event: text\ndata: not json\n\n", b"event: text\ndata: {}\n\n"])
def test_unreadable_data_is_a_malformed_stream(body: bytes) -> None:
    _, raised = decode_collect(EchoDecoder(), [body])
    assert isinstance(raised, lb.MalformedStreamError)


def test_bad_argument_json_is_a_flagged_call_not_a_crash() -> None:
    body = (
        b'event: call_start\ndata: {"call":0,"id":"c1","name":"f"}\n\n'
        b'event: call_args\ndata: {"call":0,"args":"{oops"}\n\n'
        b'event: done\ndata: {"reason":"tool_calls"}\n\n'
    )
    events, error = decode_collect(EchoDecoder(), [body])
    assert error is None
    check_invariants(events)
    end = events[2]
    assert isinstance(end, lb.ToolCallEnd) and end.arguments == {} and end.error


def test_key_never_shows() -> None:
    provider = create(lb.ProviderConfig.from_mapping({"api_key": "sk-echo-secret"}))
    assert "sk-echo-secret" not in repr(provider)
    request = provider.build_request(lb.ChatRequest(model="echo-1", messages=[]))
    assert "sk-echo-secret" not in repr(request)
    assert request.headers["authorization"] == "Bearer sk-echo-secret"
