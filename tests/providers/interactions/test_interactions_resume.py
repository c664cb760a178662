"""Resuming Interactions streams by event id, and the decoder's behaviour on the SDK's events.

Random streams come from the SDK's own event types (``streams.py``). Each is cut after every
event; the rest is served as a resumed stream (``GET ...?last_event_id=``) that may send the
last events again: the one decoder must give exactly the events of the uncut stream (none lost,
none repeated). Through the client, a background stream that drops is resumed with the
Interactions request, and ``Client.resume`` takes the event id as a string.
"""

from __future__ import annotations

from typing import Any

import httpx
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import llmbridge as lb
from llmbridge.providers.gemini_interactions import InteractionsDecoder
from llmbridge.response import accumulate
from llmbridge.testing import check_invariants, decode_collect
from tests.providers.interactions.streams import INTERACTION_ID, sdk_streams, sse

PROVIDER = "gemini-interactions"
MODEL = "gemini-interactions:gemini-3-flash-preview"


def _decoder() -> InteractionsDecoder:
    return InteractionsDecoder(provider=PROVIDER)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stream=sdk_streams(), again=st.integers(0, 3))
def test_a_stream_cut_at_every_event_and_resumed_loses_and_repeats_nothing(
    stream: list[dict[str, Any]], again: int
) -> None:
    whole, error = decode_collect(_decoder(), [sse(stream)])
    assert error is None
    check_invariants(whole)
    for cut in range(1, len(stream)):
        decoder = _decoder()
        first, error = decode_collect_open(decoder, stream[:cut])
        point = decoder.resume_point()
        assert point is not None and point.response_id == INTERACTION_ID
        assert point.after == f"evt_{cut - 1}" and not point.complete
        resent = stream[max(0, cut - again) :]  # a server may send the last few again
        rest, _ = decode_collect_open(decoder, resent)
        assert first + rest + decoder.close() == whole


def decode_collect_open(
    decoder: InteractionsDecoder, events: list[dict[str, Any]]
) -> tuple[list[lb.StreamEvent], None]:
    """Feed ``events`` without closing (the body of one segment)."""
    out: list[lb.StreamEvent] = []
    for event in events:
        out.extend(decoder.feed(event["event_type"], orjson.dumps(event).decode()))
    return out, None


@settings(max_examples=10, deadline=None)
@given(stream=sdk_streams())
def test_a_resume_from_elsewhere_starts_after_the_id_it_was_given(
    stream: list[dict[str, Any]],
) -> None:
    stops = [n for n, e in enumerate(stream) if e["event_type"] == "step.stop"]
    cut = stops[0] + 1
    whole, _ = decode_collect(_decoder(), [sse(stream)])
    head, _ = decode_collect_open(_decoder(), stream[:cut])
    fresh = InteractionsDecoder(
        provider=PROVIDER, response_id=INTERACTION_ID, after=f"evt_{cut - 1}"
    )
    rest, error = decode_collect(fresh, [sse(stream[cut - 1 :])])  # the last one sent again
    assert error is None
    start, *tail = rest
    assert isinstance(start, lb.StreamStart) and start.response_id == INTERACTION_ID
    got, want = accumulate(head + tail), accumulate(whole)  # a fresh decoder numbers its calls
    assert (got.text, got.reasoning, got.finish_reason, got.usage) == (
        want.text,
        want.reasoning,
        want.finish_reason,
        want.usage,
    )
    assert [(c.id, c.name, c.arguments) for c in got.tool_calls] == [
        (c.id, c.name, c.arguments) for c in want.tool_calls
    ]


def test_events_without_ids_cannot_be_resumed() -> None:
    decoder = _decoder()
    decoder.feed("", '{"event_type":"interaction.created","interaction":{"id":"v1_x"}}')
    assert decoder.resume_point() is None


def test_an_error_event_is_typed_and_refuses_more() -> None:
    decoder = _decoder()
    decoder.feed("", '{"event_type":"step.start","index":0,"step":{"type":"model_output"}}')
    error = '{"event_type":"error","error":{"code":"RESOURCE_EXHAUSTED","message":"slow down"}}'
    with pytest.raises(lb.RateLimitError, match="slow down"):
        decoder.feed("error", error)
    with pytest.raises(lb.RateLimitError):
        decoder.feed("", '{"event_type":"step.stop","index":0}')


def test_built_in_steps_are_items_with_their_views() -> None:
    events = [
        {"event_type": "step.start", "index": 0,
         "step": {"type": "code_execution_call", "id": "c", "arguments": {"code": "print(1)"}}},
        {"event_type": "step.stop", "index": 0},
        {"event_type": "step.start", "index": 1,
         "step": {"type": "code_execution_result", "call_id": "c", "result": "1\n"}},
        {"event_type": "step.stop", "index": 1},
        {"event_type": "step.start", "index": 2, "step": {"type": "model_output"}},
        {"event_type": "step.delta", "index": 2, "delta": {"type": "text", "text": "See docs."}},
        {"event_type": "step.delta", "index": 2, "delta": {"type": "text_annotation_delta",
         "annotations": [{"type": "url_citation", "url": "https://d.example", "title": "D",
                          "start_index": 4, "end_index": 8}]}},
        {"event_type": "step.stop", "index": 2},
        {"event_type": "interaction.completed", "interaction": {"id": "v1_y", "status": "completed"}},
    ]  # fmt: skip
    out, error = decode_collect(_decoder(), [sse(events)])
    assert error is None
    items = [e for e in out if isinstance(e, lb.ProviderItem)]
    assert [i.data["type"] for i in items] == ["code_execution_call", "code_execution_result"]
    code = next(e for e in out if isinstance(e, lb.CodeOutput))
    assert (code.stdout, code.code) == ("1\n", "print(1)")
    assert [(c.url, c.cited_text) for c in out if isinstance(c, lb.Citation)] == [
        ("https://d.example", "docs")
    ]
    assert out[-1] == lb.Finish("stop", "completed", None)


def test_a_call_without_id_gets_a_generated_one_and_the_finish_is_tool_calls() -> None:
    events = [
        {"event_type": "interaction.created", "interaction": {"id": "v1_z", "status": "in_progress"}},
        {"event_type": "step.start", "index": 0, "step": {"type": "function_call", "name": "f"}},
        {"event_type": "step.delta", "index": 0, "delta": {"type": "arguments_delta", "arguments": '{"a":'}},
        {"event_type": "step.delta", "index": 0, "delta": {"type": "arguments_delta", "arguments": "1}"}},
        {"event_type": "step.stop", "index": 0},
        {"event_type": "interaction.completed", "interaction": {"id": "v1_z", "status": "requires_action"}},
    ]  # fmt: skip
    out, error = decode_collect(_decoder(), [sse(events)])
    assert error is None
    check_invariants(out)
    end = next(e for e in out if isinstance(e, lb.ToolCallEnd))
    assert end.arguments == {"a": 1} and end.id.startswith("call_")
    assert out[-1].reason == "tool_calls"  # type: ignore[union-attr]


# -- through the client -------------------------------------------------------------------------


class Background:
    """An Interactions server on a ``MockTransport``: the create's body stops after ``cut``
    events; ``GET ...?last_event_id=evt_n`` streams the events after ``n``."""

    def __init__(self, events: list[dict[str, Any]], cut: int) -> None:
        self.events, self.cut = events, cut
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        events = self.events[: self.cut]
        if request.method == "GET":
            after = request.url.params.get("last_event_id")
            start = 0 if after is None else int(after.removeprefix("evt_")) + 1
            events = self.events[start:]
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=sse(events)
        )


def _text_stream() -> list[dict[str, Any]]:
    head = {"id": INTERACTION_ID, "status": "in_progress", "model": "gemini-3-flash-preview"}
    events: list[dict[str, Any]] = [
        {"event_type": "interaction.created", "interaction": head},
        {"event_type": "step.start", "index": 0, "step": {"type": "model_output"}},
        *({"event_type": "step.delta", "index": 0, "delta": {"type": "text", "text": w}}
          for w in ("One", " two", " three", " four")),
        {"event_type": "step.stop", "index": 0},
        {"event_type": "interaction.completed",
         "interaction": {"id": INTERACTION_ID, "status": "completed",
                         "usage": {"total_input_tokens": 3, "total_output_tokens": 4}}},
    ]  # fmt: skip
    return [{**e, "event_id": f"evt_{n}"} for n, e in enumerate(events)]


KEYS = {"gemini-interactions": {"api_key": "AIza-test"}}


@pytest.mark.anyio
async def test_a_background_stream_that_drops_is_resumed_after_its_last_event_id() -> None:
    server = Background(_text_stream(), cut=4)
    http = httpx.AsyncClient(transport=httpx.MockTransport(server))
    async with lb.Client(
        http_client=http, providers=KEYS, retry=lb.RetryPolicy(initial_delay=0)
    ) as client:
        response = await client.complete(MODEL, "Count.", background=True)
    assert response.text == "One two three four"
    assert response.usage == lb.Usage(input_tokens=3, output_tokens=4)
    post, get = server.requests
    assert orjson.loads(post.content)["background"] is True
    assert get.method == "GET" and get.url.params["last_event_id"] == "evt_3"
    assert get.headers["api-revision"] == "2026-05-20"


def test_client_resume_takes_the_interactions_event_id() -> None:
    server = Background(_text_stream(), cut=0)
    http = httpx.AsyncClient(transport=httpx.MockTransport(server))
    with lb.SyncClient(http_client=http, providers=KEYS) as client:
        events = list(client.resume(MODEL, INTERACTION_ID, after="evt_3"))
        with pytest.raises(lb.UsageError, match="event_id"):
            list(client.resume(MODEL, INTERACTION_ID, after=""))
    assert "".join(e.text for e in events if isinstance(e, lb.TextDelta)) == " three four"
    assert [type(e) for e in events].count(lb.Finish) == 1
    assert server.requests[0].url.params["last_event_id"] == "evt_3"


@pytest.mark.anyio
async def test_leaving_a_background_stream_early_cancels_the_interaction() -> None:
    server = Background(_text_stream(), cut=len(_text_stream()))
    http = httpx.AsyncClient(transport=httpx.MockTransport(server))
    async with lb.Client(http_client=http, providers=KEYS) as client:
        stream = client.stream(MODEL, "Count.", background=True, cancel_on_close=True)
        async with stream:
            async for event in stream:
                if isinstance(event, lb.TextDelta):
                    break
    cancel = server.requests[-1]
    assert (cancel.method, cancel.url.path) == ("POST", f"/v1/interactions/{INTERACTION_ID}/cancel")
    assert cancel.headers["x-goog-api-key"] == "AIza-test"
