"""Resumable streams over real sockets: OpenAI Responses background mode (issue 36, item 1).

A loopback server implements background mode (``background_server.py``) on a real recorded
stream; the stream breaks after ``k`` events for every ``k`` (a reset connection, a body that
ends early, silence past the read timeout) and the events the app sees must equal those of the
unbroken stream: no duplicate, no gap, one ``StreamStart``, one ``Finish``. Runs on asyncio,
uvloop and trio.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.testing.record import record_fixture
from llmbridge.testing.replay import replay_client
from tests.corpus import needed
from tests.loopback import serve
from tests.reliability.background_server import (
    BackgroundServer,
    Break,
    other_response,
    recorded_events,
)

pytestmark = [
    pytest.mark.anyio,
    needed,
]

MODEL = "openai-responses:gpt-4o"
RESPONSE_ID = "resp_0da443d9ee8333600069950a0635d88196b2d9243b08e8cc01"
TEXT = "2 + 2 equals 4."
PROMPT = [lb.ChatMessage.user("What is 2 + 2?")]


@asynccontextmanager
async def running(
    server: BackgroundServer, *, attempts: int = 3, read: float = 5.0
) -> AsyncIterator[lb.Client]:
    async with serve(server) as url:
        http = httpx.AsyncClient(timeout=httpx.Timeout(5.0, read=read))
        client = lb.Client(
            http_client=http,
            providers={"openai-responses": {"api_key": "sk-test", "base_url": f"{url}/v1"}},
            retry=lb.RetryPolicy(max_attempts=attempts, initial_delay=0.0),
        )
        try:
            yield client
        finally:
            await client.aclose()
            await http.aclose()


def server(*breaks: Break, **options: Any) -> BackgroundServer:
    return BackgroundServer(recorded_events(), RESPONSE_ID, breaks=list(breaks), **options)


async def events_of(client: lb.Client, **options: Any) -> list[lb.StreamEvent]:
    seen: list[lb.StreamEvent] = []
    with anyio.fail_after(10):
        async with client.stream(MODEL, PROMPT, **options) as stream:
            async for event in stream:
                seen.append(event)
    return seen


async def unbroken() -> list[lb.StreamEvent]:
    async with running(server()) as client:
        return await events_of(client, background=True)


def check_whole(events: list[lb.StreamEvent]) -> None:
    starts = [e for e in events if isinstance(e, lb.StreamStart)]
    finishes = [e for e in events if isinstance(e, lb.Finish)]
    assert len(starts) == 1 and starts[0].response_id == RESPONSE_ID
    assert len(finishes) == 1 and events[-1] is finishes[0]
    assert "".join(e.text for e in events if isinstance(e, lb.TextDelta)) == TEXT


async def test_the_unbroken_background_stream_sends_background_and_store() -> None:
    bg = server()
    async with running(bg) as client:
        events = await events_of(client, background=True)
    check_whole(events)
    assert bg.requests() == ["POST /v1/responses"]
    body = orjson.loads(bg.seen[0].body)
    assert body["background"] is True and body["store"] is True and body["stream"] is True


@pytest.mark.parametrize("how", ["drop", "end"])
async def test_a_break_after_any_event_resumes_to_the_same_events(how: str) -> None:
    whole = await unbroken()
    check_whole(whole)
    count = len(recorded_events())
    for k in range(1, count):  # k = 0: nothing was yielded, an ordinary retry
        bg = server((how, k))  # type: ignore[arg-type]
        async with running(bg) as client:
            seen = await events_of(client, background=True)
        assert seen == whole, f"break after {k} events"
        assert bg.requests() == [
            "POST /v1/responses",
            f"GET /v1/responses/{RESPONSE_ID}?starting_after={k - 1}&stream=true",
        ], k


async def test_events_sent_again_by_the_server_are_dropped() -> None:
    whole = await unbroken()
    for k in (2, 6, 10, 16):
        bg = server(("drop", k), resend=3)
        async with running(bg) as client:
            assert await events_of(client, background=True) == whole, k


async def test_several_breaks_resume_each_time_within_max_attempts() -> None:
    whole = await unbroken()
    bg = server(("drop", 4), ("end", 3), ("drop", 5))
    async with running(bg, attempts=4) as client:
        assert await events_of(client, background=True) == whole
    assert [r.split("?")[-1] for r in bg.requests()[1:]] == [
        "starting_after=3&stream=true",
        "starting_after=6&stream=true",
        "starting_after=11&stream=true",
    ]


async def test_silence_past_the_read_timeout_resumes() -> None:
    whole = await unbroken()
    bg = server(("stall", 7))
    async with running(bg, read=0.3) as client:
        assert await events_of(client, background=True) == whole
    assert bg.requests()[1] == f"GET /v1/responses/{RESPONSE_ID}?starting_after=6&stream=true"


async def test_the_resume_request_carries_the_auth_and_the_calls_headers() -> None:
    bg = server(("drop", 5))
    async with running(bg) as client:
        check_whole(await events_of(client, background=True, headers={"x-trace": "t1"}))
    resume = bg.seen[1]
    assert resume.headers["authorization"] == "Bearer sk-test"
    assert resume.headers["x-trace"] == "t1"
    assert resume.headers["accept"] == "text/event-stream"
    assert resume.body == b""


@pytest.mark.parametrize(
    ("status", "error"), [(404, lb.NotFoundError), (401, lb.AuthenticationError)]
)
async def test_a_refused_resume_is_a_typed_error_naming_the_resume(
    status: int, error: type[lb.LLMBridgeError]
) -> None:
    bg = server(("drop", 9), refuse=status)
    seen: list[lb.StreamEvent] = []
    async with running(bg) as client:
        with pytest.raises(error) as info:
            async with client.stream(MODEL, PROMPT, background=True) as stream:
                async for event in stream:
                    seen.append(event)
    message = str(info.value)
    assert f"while resuming response {RESPONSE_ID} after event 8" in message
    assert "sk-test" not in message
    partial = info.value.partial
    assert partial is not None and partial.text == "2 + 2"
    assert partial.text == "".join(e.text for e in seen if isinstance(e, lb.TextDelta))
    assert len(bg.seen) == 2  # not retried: a 404 / 401 stays one


async def test_a_resume_answered_5xx_is_retried_then_given_up_at_max_attempts() -> None:
    bg = server(("drop", 6), refuse=500)
    async with running(bg, attempts=3) as client:
        with pytest.raises(lb.ServerError) as info:
            await events_of(client, background=True)
    assert len(bg.seen) == 3, bg.requests()  # the POST and two resumes
    assert "while resuming" in str(info.value) and "3 attempts" in str(info.value)
    assert info.value.partial is not None and info.value.partial.text == "2"


async def test_more_breaks_than_max_attempts_is_an_error_after_exactly_max_attempts() -> None:
    bg = server(("drop", 3), ("drop", 2), ("drop", 2), ("drop", 2))
    async with running(bg, attempts=3) as client:
        with pytest.raises(lb.StreamTruncatedError) as info:
            await events_of(client, background=True)
    assert len(bg.seen) == 3, bg.requests()
    assert "not resumed: all 3 attempts (max_attempts) spent" in str(info.value)
    partial = info.value.partial
    assert partial is not None and partial.text == "2 +"  # every segment's events


async def test_max_attempts_one_never_resumes() -> None:
    bg = server(("drop", 6))
    async with running(bg, attempts=1) as client:
        with pytest.raises(lb.StreamTruncatedError):
            await events_of(client, background=True)
    assert len(bg.seen) == 1


async def test_a_stream_without_background_is_not_resumed() -> None:
    bg = server(("drop", 6))
    async with running(bg) as client:
        with pytest.raises(lb.StreamTruncatedError) as info:
            await events_of(client)
    assert bg.requests() == ["POST /v1/responses"]  # no new request after an event
    assert info.value.partial is not None and info.value.partial.text == "2"
    assert "resum" not in str(info.value)


async def test_the_total_timeout_is_not_resumed() -> None:
    bg = server(("stall", 7))
    async with running(bg, read=5.0) as client:
        with anyio.fail_after(5), pytest.raises(lb.TimeoutError) as info:
            await events_of(client, background=True, timeout=0.5)
    assert len(bg.seen) == 1
    assert info.value.partial is not None and info.value.partial.text == "2 +"


async def test_complete_folds_every_segment() -> None:
    bg = server(("drop", 8), ("end", 2))
    async with running(bg) as client:
        response = await client.complete(MODEL, PROMPT, background=True)
    assert response.text == TEXT and response.finish_reason == "stop"
    assert response.usage is not None and response.usage.output_tokens == 9


# -- cancel_on_close ------------------------------------------------------------------------


async def test_breaking_out_cancels_the_response_once() -> None:
    bg = server()
    async with running(bg) as client:
        async with client.stream(MODEL, PROMPT, background=True, cancel_on_close=True) as stream:
            async for event in stream:
                if isinstance(event, lb.TextDelta):
                    break
    assert bg.cancelled
    assert bg.requests() == ["POST /v1/responses", f"POST /v1/responses/{RESPONSE_ID}/cancel"]
    assert bg.seen[1].headers["authorization"] == "Bearer sk-test"


async def test_a_cancelled_task_cancels_the_response() -> None:
    bg = server(("stall", 6))
    async with running(bg) as client:
        with anyio.move_on_after(0.5):
            await events_of(client, background=True, cancel_on_close=True)
    assert bg.requests()[-1] == f"POST /v1/responses/{RESPONSE_ID}/cancel"
    assert len(bg.seen) == 2


async def test_no_cancel_without_the_option_after_the_end_or_after_an_error() -> None:
    bg = server()
    async with running(bg) as client:
        async with client.stream(MODEL, PROMPT, background=True) as stream:
            async for _ in stream:
                break
        check_whole(await events_of(client, background=True, cancel_on_close=True))
        bg.refuse = 404
        bg.breaks = [("drop", 4)]
        with pytest.raises(lb.NotFoundError):
            await events_of(client, background=True, cancel_on_close=True)
    assert not bg.cancelled
    assert all("/cancel" not in r for r in bg.requests())


async def test_a_failing_cancel_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    bg = server()
    bg.response_id = "resp_other"  # the cancel's path is then unknown: 404
    async with running(bg) as client:
        async with client.stream(MODEL, PROMPT, background=True, cancel_on_close=True) as stream:
            async for _ in stream:
                break
    assert bg.requests()[-1] == f"POST /v1/responses/{RESPONSE_ID}/cancel"
    assert any("cancelling the response failed" in r.message for r in caplog.records)
    assert "sk-test" not in caplog.text


# -- Client.resume --------------------------------------------------------------------------


async def test_resume_continues_a_response_from_another_process() -> None:
    whole = await unbroken()
    bg = server()
    async with running(bg) as client:
        seen: list[lb.StreamEvent] = []
        async with client.resume(MODEL, RESPONSE_ID, after=6) as stream:
            async for event in stream:
                seen.append(event)
    assert bg.requests() == [f"GET /v1/responses/{RESPONSE_ID}?starting_after=6&stream=true"]
    assert isinstance(seen[0], lb.StreamStart) and seen[0].response_id == RESPONSE_ID
    assert "".join(e.text for e in seen if isinstance(e, lb.TextDelta)) == " 2 equals 4."
    assert seen[-1] == whole[-1]  # the same Finish, usage included
    assert [type(e) for e in seen].count(lb.Finish) == 1


async def test_resume_from_the_start_equals_the_stream_and_resumes_after_a_break() -> None:
    whole = await unbroken()
    bg = server(("drop", 9))
    async with running(bg) as client:
        seen = [e async for e in client.resume(MODEL, RESPONSE_ID)]
        acc = lb.Accumulator(provider="openai-responses")
        async for event in client.resume(MODEL, RESPONSE_ID, after=1):
            acc.add(event)
    assert seen == whole
    assert bg.requests()[:2] == [
        f"GET /v1/responses/{RESPONSE_ID}?stream=true",
        f"GET /v1/responses/{RESPONSE_ID}?starting_after=8&stream=true",
    ]
    response = acc.response()
    assert response.text == TEXT and response.finish_reason == "stop"


async def test_resume_of_an_unknown_response_names_the_resume() -> None:
    bg = server(refuse=404)
    async with running(bg) as client:
        with pytest.raises(lb.NotFoundError) as info:
            async for _ in client.resume(MODEL, RESPONSE_ID, after=3):
                pass
    assert f"while resuming response {RESPONSE_ID} after event 3" in str(info.value)
    assert len(bg.seen) == 1


async def test_after_a_failed_resume_the_stream_says_where_to_continue() -> None:
    bg = server(("drop", 9), refuse=503)
    async with running(bg, attempts=2) as client:
        stream = client.stream(MODEL, PROMPT, background=True)
        assert stream.resume_point is None  # nothing read yet
        with pytest.raises(lb.ServerError) as info:
            async with stream:
                async for _ in stream:
                    pass
        point = stream.resume_point
        assert point == lb.providers.base.ResumePoint(RESPONSE_ID, 8, complete=False)
        bg.refuse = None  # later, or in another process: the rest
        rest = [e async for e in client.resume(MODEL, point.response_id, after=point.after)]
        done = client.resume(MODEL, point.response_id, after=point.after)
        async for _ in done:
            pass
        assert done.resume_point is not None and done.resume_point.complete
        assert client.stream(MODEL, PROMPT).resume_point is None  # not a background stream
    assert info.value.partial is not None
    text = "".join(e.text for e in rest if isinstance(e, lb.TextDelta))
    assert info.value.partial.text + text == TEXT


@pytest.mark.parametrize("how", ["drop", "end"])
async def test_a_resumed_stream_records_as_the_one_stream_the_app_read(
    how: str, tmp_path: Path
) -> None:
    whole = await unbroken()
    events = recorded_events()
    bg = server((how, 5), resend=2)
    async with serve(bg) as url:
        fixture = await record_fixture(
            tmp_path / "resumed",
            MODEL,
            PROMPT,
            client_options={
                "providers": {"openai-responses": {"api_key": "sk-test", "base_url": f"{url}/v1"}},
                "retry": lb.RetryPolicy(max_attempts=3, initial_delay=0.0),
            },
            background=True,
        )
    assert fixture.events == whole
    assert len(bg.seen) == 2  # the stream and its resume
    # the first segment up to its last whole event (the reset's "data: {" left out), then the
    # resume's body, which sends two events again
    assert fixture.body == b"".join(events[:5] + events[3:])  # after 4, from 2 + 1
    assert sum(fixture.chunks) == len(fixture.body)
    assert fixture.http_request["method"] == "POST"
    async with replay_client(tmp_path / "resumed") as http:
        replay = {"api_key": "sk-r", "base_url": f"{url}/v1"}
        client = lb.Client(http_client=http, providers={"openai-responses": replay})
        replayed = [e async for e in client.stream(MODEL, PROMPT, background=True)]
    assert replayed == whole


@pytest.mark.parametrize("k", [3, 8, 12])
async def test_a_resume_answered_with_another_responses_events_is_refused(k: int) -> None:
    """Issue 49: a resume answered with ``resp_OTHER``'s stream ended OK with its text merged
    in ("2 + 2 INJECTED 4."): its ``response.created`` carries number 0, which the drop of
    repeated events hid. It is a ``MalformedStreamError``, with this response's events."""
    bg = server(("drop", k), imposter=other_response(RESPONSE_ID))
    seen: list[lb.StreamEvent] = []
    async with running(bg) as client:
        with anyio.fail_after(10), pytest.raises(lb.MalformedStreamError) as caught:
            async with client.stream(MODEL, PROMPT, background=True) as stream:
                async for event in stream:
                    seen.append(event)
    assert "resp_OTHER" in str(caught.value)
    text = "".join(e.text for e in seen if isinstance(e, lb.TextDelta))
    assert "INJECTED" not in text and TEXT.startswith(text)
    partial = caught.value.partial
    assert partial is not None and partial.text == text
    assert bg.requests()[1] == f"GET /v1/responses/{RESPONSE_ID}?starting_after={k - 1}&stream=true"
    assert len(bg.requests()) == 2  # not resumed again: the server would send the same
