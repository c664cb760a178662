"""The client and the one IO path, driven through a fake provider (asyncio and trio)."""

from __future__ import annotations

import gc
import zlib
from typing import Any

import anyio
import anyio.lowlevel
import httpx
import pytest

import llmbridge as lb
from llmbridge.stream import RetryPolicy, stream_events
from tests.fakes import ChunkedBody, FakeProvider, mock_client, sse_body, sse_response

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("fake_registered", "young_heap")]

BODY = sse_body({"text": "Hel"}, {"text": "lo"}, {"finish": "stop"})
USER = [lb.ChatMessage.user("hi")]


def fast_retry(attempts: int = 3) -> RetryPolicy:
    return RetryPolicy(max_attempts=attempts, initial_delay=0.001, max_delay=0.002)


async def test_stream_yields_events_and_complete_folds_them() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return sse_response([BODY[:7], BODY[7:30], BODY[30:]])

    client = lb.Client(
        http_client=mock_client(handler), providers={"fake": {"api_key": "sk-secret-1"}}
    )
    events = [e async for e in client.stream("fake:m1", USER)]
    assert [e.type for e in events] == ["text_delta", "text_delta", "finish"]
    resp = await client.complete("fake:m1", USER)
    assert resp.text == "Hello" and resp.finish_reason == "stop"
    assert resp.usage == lb.Usage(input_tokens=3, output_tokens=2)
    assert resp.message.role == "assistant"
    assert seen[0].headers["authorization"] == "Bearer sk-secret-1"
    assert seen[0].headers["accept"] == "text/event-stream"
    assert "sk-secret-1" not in repr(client)


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (400, lb.InvalidRequestError),
        (401, lb.AuthenticationError),
        (403, lb.PermissionDeniedError),
        (404, lb.NotFoundError),
        (413, lb.InvalidRequestError),
        (422, lb.InvalidRequestError),
        (429, lb.RateLimitError),
        (500, lb.ServerError),
        (502, lb.ServerError),
        (503, lb.ServerError),
        (529, lb.OverloadedError),
    ],
)
async def test_http_status_maps_to_typed_error(status: int, cls: type[Exception]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            status,
            json={"error": {"message": "nope", "type": "whatever"}},
            headers={"x-request-id": "req_42"},
        )

    client = lb.Client(http_client=mock_client(handler), retry=RetryPolicy(max_attempts=1))
    with pytest.raises(cls) as info:
        await client.complete("fake:m", USER)
    err = info.value
    assert type(err) is cls
    assert (err.status, err.request_id, err.provider_message, err.provider) == (
        status,
        "req_42",
        "nope",
        "fake",
    )
    assert err.partial is None


async def test_context_length_code_is_its_own_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        body = {
            "error": {
                "message": "too long",
                "type": "invalid_request_error",
                "code": "context_length_exceeded",
            }
        }
        return httpx.Response(400, json=body)

    client = lb.Client(http_client=mock_client(handler))
    with pytest.raises(lb.ContextLengthError):
        await client.complete("fake:m", USER)


async def test_retries_retryable_errors_before_first_event() -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        if calls < 3:
            return httpx.Response(503 if calls == 1 else 429, json={"error": {"message": "busy"}})
        return sse_response(BODY)

    client = lb.Client(http_client=mock_client(handler), retry=fast_retry(3))
    assert (await client.complete("fake:m", USER)).text == "Hello"
    assert calls == 3


async def test_gives_up_after_max_attempts() -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        return httpx.Response(
            529, json={"type": "error", "error": {"type": "overloaded_error", "message": "x"}}
        )

    client = lb.Client(http_client=mock_client(handler), retry=fast_retry(4))
    with pytest.raises(lb.OverloadedError):
        await client.complete("fake:m", USER)
    assert calls == 4


async def test_client_errors_are_not_retried() -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        return httpx.Response(400, json={"error": {"message": "bad"}})

    client = lb.Client(http_client=mock_client(handler), retry=fast_retry(5))
    with pytest.raises(lb.InvalidRequestError):
        await client.complete("fake:m", USER)
    assert calls == 1


async def test_retry_after_is_honoured_and_never_retried_after_an_event() -> None:
    provider = FakeProvider()
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)

    responses = [
        httpx.Response(429, json={"error": {"message": "slow"}}, headers={"retry-after": "7"}),
        sse_response(
            sse_body({"text": "partial"}, {"error": {"type": "overloaded_error", "message": "o"}})
        ),
        sse_response(BODY),
    ]

    def handler(request: httpx.Request) -> httpx.Response:
        return responses.pop(0)

    http = mock_client(handler)
    events: list[Any] = []
    with pytest.raises(lb.OverloadedError) as info:
        async for event in stream_events(
            http=http,
            provider=provider,
            request=provider.build_request(lb.ChatRequest(model="m", messages=USER)),
            new_decoder=lambda: provider.new_decoder(None),  # type: ignore[arg-type]
            retry=RetryPolicy(max_attempts=5),
            sleep=fake_sleep,
        ):
            events.append(event)
    assert slept == [7.0]
    assert [e.text for e in events] == ["partial"]
    assert len(responses) == 1, "no retry once an event was yielded"
    assert info.value.partial is not None and info.value.partial.text == "partial"


def test_retry_policy_delays() -> None:
    policy = RetryPolicy(
        max_attempts=3, initial_delay=1.0, max_delay=3.0, jitter=0.0, max_retry_after=30
    )
    busy = lb.ServerError("busy")
    assert policy.delay(attempt=1, error=busy) == 1.0
    assert policy.delay(attempt=2, error=busy) == 2.0
    assert policy.delay(attempt=3, error=busy) is None
    assert policy.delay(attempt=1, error=lb.RateLimitError("x", retry_after=12.5)) == 12.5
    assert policy.delay(attempt=1, error=lb.RateLimitError("x", retry_after=99)) is None
    assert policy.delay(attempt=1, error=lb.AuthenticationError("x")) is None
    assert RetryPolicy(max_delay=4.0, jitter=0.0).delay(attempt=2, error=busy) == 1.0


def test_retry_after_http_date() -> None:
    from llmbridge.providers.http_errors import parse_retry_after

    assert (
        parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:10 GMT"}, now=1445412480.0)
        == 10.0
    )
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({"retry-after": "soon"}) is None


async def test_midstream_error_keeps_events_and_partial() -> None:
    body = sse_body({"text": "Hal"}, {"text": "f"}) + b"data: {broken\n\n"

    client = lb.Client(http_client=mock_client(lambda r: sse_response(body)))
    events: list[Any] = []
    with pytest.raises(lb.MalformedStreamError) as info:
        async for event in client.stream("fake:m", USER):
            events.append(event)
    assert "".join(e.text for e in events) == "Half"
    assert info.value.partial is not None and info.value.partial.text == "Half"
    assert info.value.partial.finish_reason is None


async def test_truncated_stream_raises_after_events() -> None:
    body = sse_body({"text": "cut"})
    client = lb.Client(http_client=mock_client(lambda r: sse_response(body)))
    with pytest.raises(lb.StreamTruncatedError) as info:
        await client.complete("fake:m", USER)
    assert info.value.partial is not None and info.value.partial.text == "cut"


async def test_a_body_ending_between_two_lines_of_one_event_is_truncation() -> None:
    body = sse_body({"text": "a"}) + b'data: {"text":\n'  # the next data line never came
    client = lb.Client(http_client=mock_client(lambda r: sse_response(body)))
    with pytest.raises(lb.StreamTruncatedError) as info:
        await client.complete("fake:m", USER)
    assert info.value.partial is not None and info.value.partial.text == "a"


def _gzip(*pieces: bytes) -> list[bytes]:
    """``pieces`` gzip-compressed, one flushed compressed chunk per piece."""
    z = zlib.compressobj(wbits=31)
    return [z.compress(p) + z.flush(zlib.Z_SYNC_FLUSH) for p in pieces]


async def test_a_gzip_event_stream_is_decoded() -> None:
    chunks = _gzip(BODY[:20], BODY[20:])
    client = lb.Client(
        http_client=mock_client(lambda r: sse_response(chunks, **{"content-encoding": "gzip"}))
    )
    assert (await client.complete("fake:m", USER)).text == "Hello"


async def test_a_corrupt_compressed_body_is_malformed_with_partial() -> None:
    chunks = [*_gzip(sse_body({"text": "half"})), b"\x00not deflate at all" * 4]
    client = lb.Client(
        http_client=mock_client(lambda r: sse_response(chunks, **{"content-encoding": "gzip"})),
        retry=fast_retry(1),
    )
    with pytest.raises(lb.MalformedStreamError, match="could not be decoded") as info:
        await client.complete("fake:m", USER)
    assert info.value.partial is not None and info.value.partial.text == "half"


async def test_non_sse_200_is_a_clear_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, text="<html>proxy login</html>", headers={"content-type": "text/html"}
        )

    client = lb.Client(http_client=mock_client(handler), retry=fast_retry(1))
    with pytest.raises(lb.MalformedStreamError, match="proxy login"):
        await client.complete("fake:m", USER)


async def test_json_error_with_200_status_surfaces_provider_message() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, json={"error": {"message": "model is loading", "type": "server_error"}}
        )

    client = lb.Client(http_client=mock_client(handler), retry=fast_retry(1))
    with pytest.raises(lb.LLMBridgeError, match="model is loading"):
        await client.complete("fake:m", USER)


async def test_breaking_out_closes_the_response() -> None:
    bodies: list[ChunkedBody] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = ChunkedBody([sse_body({"text": "a"}), sse_body({"text": "b"})], hang_after=1)
        bodies.append(body)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=body)

    client = lb.Client(http_client=mock_client(handler))
    async with client.stream("fake:m", USER) as stream:
        async for _event in stream:
            break
    assert bodies[0].closed

    async for _event in client.stream("fake:m", USER):
        break
    gc.collect()
    for _ in range(5):
        await anyio.lowlevel.checkpoint()
    assert bodies[1].closed


async def test_cancellation_closes_the_response() -> None:
    bodies: list[ChunkedBody] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = ChunkedBody([sse_body({"text": "a"}), b""], hang_after=1)
        bodies.append(body)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=body)

    client = lb.Client(http_client=mock_client(handler))
    got: list[Any] = []
    with anyio.move_on_after(0.2):
        async with client.stream("fake:m", USER) as stream:
            async for event in stream:
                got.append(event)
    assert len(got) == 1 and bodies[0].closed


async def test_connect_error_is_typed_and_retried() -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise httpx.ConnectError("refused", request=request)
        return sse_response(BODY)

    client = lb.Client(http_client=mock_client(handler), retry=fast_retry(2))
    assert (await client.complete("fake:m", USER)).text == "Hello"

    def always(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    client = lb.Client(http_client=mock_client(always), retry=fast_retry(1))
    with pytest.raises(lb.TimeoutError):
        await client.complete("fake:m", USER)


async def test_unknown_provider_lists_known_ones() -> None:
    client = lb.Client(http_client=mock_client(lambda r: sse_response(BODY)))
    with pytest.raises(lb.ConfigurationError, match="known providers: .*anthropic"):
        await client.complete("nosuch:m", USER)
    with pytest.raises(lb.ConfigurationError, match="provider:model"):
        await client.complete("no-colon", USER)


async def test_httpx2_client_is_accepted() -> None:
    httpx2 = pytest.importorskip("httpx2")

    def handler(request: Any) -> Any:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=BODY)

    http = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    client = lb.Client(http_client=http)
    resp = await client.complete("fake:m", USER)
    assert resp.text == "Hello" and resp.finish_reason == "stop"

    def failing(request: Any) -> Any:
        raise httpx2.ConnectError("refused", request=request)

    client = lb.Client(
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(failing)), retry=fast_retry(1)
    )
    with pytest.raises(lb.ConnectionError):
        await client.complete("fake:m", USER)
