"""Retries, for every provider: what is retried, how long we wait, and when we stop.

429 with ``Retry-After`` in seconds and as an HTTP date, Anthropic's 529, 503; the attempt
limit; bounded backoff; never a retry once an event was yielded; a cancellation during the
backoff sleep stops at once. Sleeps are recorded through ``stream_events(sleep=...)`` so the
tests run in milliseconds, except the cancellation test which needs the real clock.
"""

from __future__ import annotations

import email.utils
import math
import time
from typing import Any

import anyio
import httpx
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llmbridge as lb
from llmbridge.providers.http_errors import parse_retry_after
from llmbridge.stream import RetryPolicy, stream_events
from llmbridge.testing import merge_deltas
from llmbridge.testing.prepared import prepared_decoder
from tests.fakes import ChunkedBody, mock_client, sse_response
from tests.reliability.reliability_support import (
    FAMILY,
    PROVIDERS,
    base_fixture,
    build_provider,
    make_client,
    prefix_events,
)

RATE_LIMITED: dict[str, dict[str, Any]] = {
    "chat": {"error": {"message": "slow down", "type": "requests", "code": "rate_limit_exceeded"}},
    "responses": {"error": {"message": "slow down", "type": "rate_limit_exceeded"}},
    "anthropic": {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}},
    "gemini": {"error": {"code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED"}},
}
UNAVAILABLE = b'{"error": {"message": "busy", "type": "server_error"}}'
every_provider = pytest.mark.parametrize("name", PROVIDERS)


class Script:
    """A MockTransport handler answering from a list (the last answer repeats)."""

    def __init__(self, *answers: httpx.Response | Any) -> None:
        self.answers = list(answers)
        self.calls = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        return answer() if callable(answer) else answer


async def _drive(
    name: str, script: Script, policy: RetryPolicy
) -> tuple[list[lb.StreamEvent], lb.LLMBridgeError | None, list[float]]:
    fx = base_fixture(name)
    provider = build_provider(fx)
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)

    events: list[lb.StreamEvent] = []
    try:
        async for event in stream_events(
            http=mock_client(script),
            provider=provider,
            request=provider.build_request(fx.request),
            new_decoder=prepared_decoder(provider, fx.request),
            retry=policy,
            sleep=fake_sleep,
        ):
            events.append(event)
    except lb.LLMBridgeError as exc:
        return events, exc, slept
    return events, None, slept


def _rate_limited(name: str, retry_after: str) -> httpx.Response:
    body = RATE_LIMITED[FAMILY[name]]
    return httpx.Response(429, json=body, headers={"retry-after": retry_after})


def _ok(name: str) -> Any:
    return lambda: sse_response(base_fixture(name).body)


@pytest.mark.anyio
@every_provider
async def test_429_retry_after_seconds_is_honoured(name: str) -> None:
    script = Script(_rate_limited(name, "2"), _ok(name))
    events, error, slept = await _drive(name, script, RetryPolicy(max_attempts=3))
    assert error is None, repr(error)
    assert slept == [2.0] and script.calls == 2
    assert merge_deltas(events) == merge_deltas(base_fixture(name).events or [])


@pytest.mark.anyio
@every_provider
async def test_429_retry_after_http_date_is_honoured(name: str) -> None:
    when = email.utils.formatdate(time.time() + 5, usegmt=True)
    script = Script(_rate_limited(name, when), _ok(name))
    _, error, slept = await _drive(name, script, RetryPolicy(max_attempts=3))
    assert error is None, repr(error)
    assert len(slept) == 1 and 3.0 <= slept[0] <= 5.0, slept


@pytest.mark.anyio
@every_provider
async def test_429_retry_after_beyond_the_cap_is_raised_not_waited(name: str) -> None:
    script = Script(_rate_limited(name, "3600"), _ok(name))
    policy = RetryPolicy(max_attempts=3, max_retry_after=60)
    _, error, slept = await _drive(name, script, policy)
    assert isinstance(error, lb.RateLimitError) and error.retry_after == 3600.0
    assert slept == [] and script.calls == 1


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("name", "status", "body", "cls"),
    [
        (
            "anthropic",
            529,
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            lb.OverloadedError,
        ),
        (
            "gemini",
            503,
            {"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}},
            lb.OverloadedError,
        ),
        *[(n, 503, orjson.loads(UNAVAILABLE), lb.ServerError) for n in PROVIDERS],
    ],
)
async def test_overloaded_and_unavailable_are_retried_up_to_the_limit(
    name: str, status: int, body: Any, cls: type[lb.LLMBridgeError]
) -> None:
    script = Script(httpx.Response(status, json=body))
    policy = RetryPolicy(max_attempts=4, initial_delay=0.5, max_delay=1.0, jitter=1.0)
    events, error, slept = await _drive(name, script, policy)
    assert events == []
    assert isinstance(error, cls) and error.status == status
    assert script.calls == 4, "exactly max_attempts requests"
    assert len(slept) == 3 and all(0.0 <= s <= 1.0 for s in slept), slept

    recover = Script(httpx.Response(status, json=body), _ok(name))
    events, error, _ = await _drive(name, recover, policy)
    assert error is None and recover.calls == 2
    assert isinstance(events[-1], lb.Finish)


@pytest.mark.anyio
@every_provider
async def test_never_a_retry_once_an_event_was_yielded(name: str) -> None:
    fx = base_fixture(name)
    head = fx.body[: len(fx.body) // 2]

    class Breaks(ChunkedBody):
        async def __aiter__(self):  # type: ignore[no-untyped-def,override]
            yield head
            raise httpx.ReadError("connection reset by peer")

    def broken() -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=Breaks([]))

    script = Script(broken, _ok(name))
    events, error, slept = await _drive(name, script, RetryPolicy(max_attempts=5))
    assert isinstance(error, lb.StreamTruncatedError), repr(error)
    assert script.calls == 1 and slept == []
    assert merge_deltas(events) == merge_deltas(prefix_events(fx, head))
    assert error.partial is not None


@pytest.mark.anyio
@pytest.mark.loops  # the real clock and a cancellation: on asyncio and trio
@pytest.mark.parametrize("name", ["anthropic", "gemini", "openai", "openai-responses"])
async def test_cancellation_during_backoff_stops_at_once(name: str) -> None:
    fx = base_fixture(name)
    script = Script(_rate_limited(name, "30"), _ok(name))
    client, provider = make_client(fx, mock_client(script))
    client.retry = RetryPolicy(max_attempts=3, max_retry_after=60)
    started = time.monotonic()
    with anyio.move_on_after(0.2) as scope:
        async for _ in client.stream_request(provider, fx.request):
            pytest.fail("no event can arrive before the retry")
    elapsed = time.monotonic() - started
    assert scope.cancelled_caught
    assert elapsed < 10, f"cancellation took {elapsed:.2f}s"  # not the 30 s Retry-After
    assert script.calls == 1


@settings(max_examples=300, deadline=None)
@given(
    attempt=st.integers(min_value=1, max_value=60),
    initial=st.floats(min_value=0.0, max_value=10.0),
    max_delay=st.floats(min_value=0.0, max_value=30.0),
    multiplier=st.floats(min_value=1.0, max_value=10.0),
    jitter=st.floats(min_value=0.0, max_value=1.0),
)
def test_backoff_is_bounded(
    attempt: int, initial: float, max_delay: float, multiplier: float, jitter: float
) -> None:
    policy = RetryPolicy(
        max_attempts=100,
        initial_delay=initial,
        max_delay=max_delay,
        multiplier=multiplier,
        jitter=jitter,
    )
    delay = policy.delay(attempt=attempt, error=lb.ServerError("busy"))
    assert delay is not None and 0.0 <= delay <= max_delay


@settings(max_examples=300, deadline=None)
@given(
    value=st.one_of(
        st.text(max_size=40),
        st.floats(allow_nan=True, allow_infinity=True).map(str),
        st.integers(min_value=-(10**12), max_value=10**12).map(str),
    ),
    ms=st.booleans(),
)
def test_retry_after_parses_to_a_finite_wait_or_none(value: str, ms: bool) -> None:
    parsed = parse_retry_after({"retry-after-ms" if ms else "retry-after": value})
    assert parsed is None or (math.isfinite(parsed) and parsed >= 0.0), (value, parsed)
    if parsed is not None:
        policy = RetryPolicy(max_retry_after=60.0)
        delay = policy.delay(attempt=1, error=lb.RateLimitError("x", retry_after=parsed))
        assert delay is None or 0.0 <= delay <= 60.0
