"""What the response headers say, on the first event and the response: the provider's request
id and its rate limits (OpenAI-style ``x-ratelimit-*`` with duration resets, Anthropic's
``anthropic-ratelimit-*`` with RFC 3339 resets)."""

from __future__ import annotations

import httpx
import pytest

import llmbridge as lb
from llmbridge.providers.anthropic.usage import read_rate_limit as anthropic_limits
from llmbridge.providers.openai.usage import read_rate_limit as openai_limits

pytestmark = pytest.mark.anyio

OPENAI_SSE = (
    b'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4.1-mini",'
    b'"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n'
    b'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4.1-mini",'
    b'"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)
OPENAI_HEADERS = {
    "content-type": "text/event-stream",
    "x-request-id": "req_8f2b",
    "x-ratelimit-limit-requests": "10000",
    "x-ratelimit-remaining-requests": "9999",
    "x-ratelimit-remaining-tokens": "199650",
    "x-ratelimit-reset-requests": "6ms",
    "x-ratelimit-reset-tokens": "1m30.5s",
}


def test_openai_headers_read_as_counts_and_seconds() -> None:
    limit = openai_limits(OPENAI_HEADERS)
    assert limit is not None
    assert (limit.requests_remaining, limit.tokens_remaining) == (9999, 199650)
    assert limit.requests_reset == pytest.approx(0.006)
    assert limit.tokens_reset == pytest.approx(90.5)
    assert limit.raw["x-ratelimit-limit-requests"] == "10000" and "x-request-id" not in limit.raw
    assert openai_limits({"content-type": "text/event-stream"}) is None
    odd = openai_limits({"x-ratelimit-reset-tokens": "soon", "x-ratelimit-remaining-tokens": "x"})
    assert odd is not None and (odd.tokens_reset, odd.tokens_remaining) == (None, None)


def test_anthropic_headers_read_resets_from_timestamps() -> None:
    headers = {
        "anthropic-ratelimit-requests-remaining": "49",
        "anthropic-ratelimit-tokens-remaining": "39000",
        "anthropic-ratelimit-requests-reset": "2026-11-23T12:00:30Z",
        "anthropic-ratelimit-tokens-reset": "2026-11-23T11:59:00Z",  # already past
    }
    now = 1795435200.0  # 2026-11-23T12:00:00Z
    limit = anthropic_limits(headers, now=now)
    assert limit is not None
    assert (limit.requests_remaining, limit.tokens_remaining) == (49, 39000)
    assert (limit.requests_reset, limit.tokens_reset) == (30.0, 0.0)


async def test_the_client_puts_them_on_stream_start_and_the_response() -> None:
    transport = httpx.MockTransport(
        lambda request: httpx.Response(200, headers=OPENAI_HEADERS, content=OPENAI_SSE)
    )
    async with lb.Client(
        http_client=httpx.AsyncClient(transport=transport),
        providers={"openai": {"api_key": "k"}},
    ) as client:
        events = [
            e async for e in client.stream("openai:gpt-4.1-mini", [lb.ChatMessage.user("Hi")])
        ]
        response = await client.complete("openai:gpt-4.1-mini", [lb.ChatMessage.user("Hi")])
    start = events[0]
    assert isinstance(start, lb.StreamStart) and start.request_id == "req_8f2b"
    assert start.rate_limit is not None and start.rate_limit.tokens_remaining == 199650
    assert sum(isinstance(e, lb.StreamStart) for e in events) == 1
    assert response.request_id == "req_8f2b"
    assert response.rate_limit == start.rate_limit


def test_events_with_rate_limits_round_trip_through_json() -> None:
    from llmbridge.events import event_from_dict, event_to_dict

    start = lb.StreamStart("r", "m", [], "req_1", lb.RateLimit(1, 2, 3.0, 4.0, {"a": "b"}))
    assert event_from_dict(event_to_dict(start)) == start


async def test_a_stream_start_after_the_first_events_still_gets_the_request_id() -> None:
    """A decoder may report its ``StreamStart`` after other events (a plug-in's provider
    item first, or an Anthropic-style stream whose message_start comes after a block): it
    still carries the response's request id and limits, and so does the response."""
    from llmbridge.events import ProviderItem
    from llmbridge.stream import RetryPolicy, stream_events
    from tests.fakes import FakeProvider

    class LateStart:
        def feed(self, event: str, data: str) -> list[lb.StreamEvent]:
            if data == "item":
                return [ProviderItem({"kind": "note"}, "fake")]
            if data == "start":
                return [lb.StreamStart("r1", "m1", [])]
            return [lb.Finish("stop", "stop", None)]

        def close(self) -> list[lb.StreamEvent]:
            return []

    body = b"data: item\n\ndata: start\n\ndata: done\n\n"
    transport = httpx.MockTransport(
        lambda request: httpx.Response(200, headers=OPENAI_HEADERS, content=body)
    )
    provider = FakeProvider()
    provider.read_rate_limit = openai_limits  # type: ignore[attr-defined]
    events = [
        e
        async for e in stream_events(
            http=httpx.AsyncClient(transport=transport),
            provider=provider,
            request=provider.build_request(lb.ChatRequest(model="m", messages=[])),
            new_decoder=LateStart,
            retry=RetryPolicy(max_attempts=1),
        )
    ]
    start = events[1]
    assert isinstance(start, lb.StreamStart)
    assert start.request_id == "req_8f2b"
    assert start.rate_limit is not None and start.rate_limit.tokens_remaining == 199650
