"""Responses background mode (issue 36, item 1): the body, the resume and cancel requests
against the openai SDK's, the corpus's background recordings decoded, the decoder's resume
point, the option refused elsewhere, the sync twin, record and replay.

The resumption itself over real sockets: tests/reliability/test_resume_background.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.providers.base import ProviderConfig, Resumable, ResumePoint
from llmbridge.providers.openai_responses.decode import ResponsesDecoder
from llmbridge.providers.openai_responses.provider import OpenAIResponsesProvider
from llmbridge.providers.openai_responses.resume import BackgroundDecoder
from llmbridge.testing.record import record_fixture
from llmbridge.testing.replay import replay_client
from tests.corpus import CORPUS, needed, params
from tests.sdk_requests import check_body

MODEL = "openai-responses:gpt-4o"
PROMPT = [lb.ChatMessage.user("What is 2 + 2?")]
TEXT = "2 + 2 equals 4."
RESPONSE_ID = "resp_0da443d9ee8333600069950a0635d88196b2d9243b08e8cc01"
BACKGROUND = sorted((CORPUS / "B_openai").glob("test_background_mode_streaming_*.sse"))
VCR = CORPUS / "B_openai" / "test_background_mode_streaming_vcr__i0.sse"
corpus_present = needed


def sse_events(path: Path) -> list[tuple[str, str]]:
    """``(event name, data)`` of each event of a recorded SSE file."""
    out = []
    for block in path.read_text().replace("\r\n", "\n").split("\n\n"):
        lines = block.strip().splitlines()
        if not lines:
            continue
        name = next((x[7:] for x in lines if x.startswith("event: ")), "")
        data = "\n".join(x[6:] for x in lines if x.startswith("data: "))
        out.append((name, data))
    return out


def decode(decoder: Any, events: list[tuple[str, str]]) -> list[lb.StreamEvent]:
    out: list[lb.StreamEvent] = []
    for name, data in events:
        out.extend(decoder.feed(name, data))
    out.extend(decoder.close())
    return out


def provider(**options: Any) -> OpenAIResponsesProvider:
    config = ProviderConfig.from_mapping({"api_key": "sk-test", **options})
    return OpenAIResponsesProvider(config)


# -- the request ----------------------------------------------------------------------------


def test_background_sends_background_and_store_true_as_the_sdk_types_them() -> None:
    client = lb.Client(providers={"openai-responses": {"api_key": "sk-test"}})
    request = client.build_request("gpt-4o", PROMPT, background=True)
    body = provider().build_request(request).json
    assert body is not None
    assert body["background"] is True and body["store"] is True and body["stream"] is True
    check_body("responses", body)
    plain = provider().build_request(client.build_request("gpt-4o", PROMPT)).json
    assert plain is not None and "background" not in plain and plain["store"] is False


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("azure-responses", {"base_url": "https://x.openai.azure.com/openai/v1"}),
        ("bedrock-mantle-responses", {"region": "us-east-1"}),
    ],
)
def test_the_responses_presets_have_background_mode(name: str, options: dict[str, Any]) -> None:
    client = lb.Client(providers={name: {"api_key": "k-test", **options}})
    found = client.provider(name)
    assert isinstance(found, Resumable)
    request = client.build_request("gpt-4o", PROMPT, background=True)
    body = found.build_request(request).json
    assert body is not None and body["background"] is True and body["store"] is True
    resume = found.resume_request("resp_1", after=3)
    base = found.build_request(request).url.removesuffix("/responses")
    assert resume.url == f"{base}/responses/resp_1?starting_after=3&stream=true"
    assert found.cancel_request("resp_1").url == f"{base}/responses/resp_1/cancel"


@pytest.mark.anyio
@pytest.mark.parametrize("model", ["anthropic:claude-sonnet-4-5", "openai:gpt-4o", "gemini:g"])
async def test_background_elsewhere_is_refused_before_sending_naming_who_has_it(
    model: str,
) -> None:
    sent: list[httpx.Request] = []
    http = httpx.AsyncClient(transport=httpx.MockTransport(lambda r: sent.append(r)))  # type: ignore[arg-type,return-value]
    keys = {n: {"api_key": "k"} for n in ("anthropic", "openai", "gemini")}
    client = lb.Client(http_client=http, providers=keys)
    with pytest.raises(lb.ConfigurationError) as info:
        await client.complete(model, PROMPT, background=True)
    message = str(info.value)
    assert "background=" in message and "openai-responses" in message
    assert "azure-responses" in message and "bedrock-mantle-responses" in message
    with pytest.raises(lb.ConfigurationError, match="resuming a response"):
        client.resume(model, "resp_1")
    assert sent == []


def test_cancel_on_close_without_background_is_a_usage_error() -> None:
    client = lb.Client(providers={"openai-responses": {"api_key": "k"}})
    with pytest.raises(lb.UsageError, match="cancel_on_close"):
        client.stream(MODEL, PROMPT, cancel_on_close=True)
    with pytest.raises(lb.UsageError, match="cancel_on_close"):
        client.stream(MODEL, PROMPT, background=True, cancel_on_close="yes")  # type: ignore[typeddict-item]
    with pytest.raises(lb.UsageError, match="after="):
        client.resume(MODEL, "resp_1", after=-1)
    with pytest.raises(lb.UsageError, match="unknown option"):
        client.resume(MODEL, "resp_1", temperature=0.5)  # type: ignore[call-arg]


# -- the resume and cancel requests equal the openai SDK's ------------------------------------


def _sdk_request(call: Any) -> httpx.Request:
    openai = pytest.importorskip("openai")
    captured: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        captured.append(request)
        if request.method == "GET":
            return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=b"")
        return httpx.Response(200, json={"id": "resp_1", "object": "response"})

    sdk = openai.OpenAI(
        api_key="sk-test",
        organization="org-1",
        project="proj-1",
        http_client=httpx.Client(transport=httpx.MockTransport(handler)),
    )
    result = call(sdk)
    if hasattr(result, "__iter__"):
        list(result)
    return captured[0]


_OWN = ("user-agent", "x-stainless-", "accept-encoding", "connection", "host", "content-length")
"""The SDK's telemetry headers and httpx's own (``accept``: see below)."""


def _headers(request: httpx.Request) -> dict[str, str]:
    return {k: v for k, v in request.headers.items() if not k.startswith(_OWN)}


def _events(first: int) -> bytes:
    """A whole background stream numbered from ``first``."""
    created = {"type": "response.created", "sequence_number": first, "response": {"id": "resp_1"}}
    done = {"type": "response.completed", "sequence_number": first + 1, "response": {}}
    return b"".join(b"data: " + orjson.dumps(e) + b"\n\n" for e in (created, done))


async def _sent(work: Any) -> list[httpx.Request]:
    """The requests an ``lb.Client`` sends through a ``MockTransport`` for ``work(client)``."""
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        if request.url.path.endswith("/cancel"):
            return httpx.Response(200, json={"id": "resp_1", "status": "cancelled"})
        after = int(request.url.params.get("starting_after", "-1"))
        body = (
            _events(0)[: _events(0).index(b"\n\n") + 2]
            if request.method == "POST"
            else _events(after + 1)
        )
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    options = {"api_key": "sk-test", "organization": "org-1", "project": "proj-1"}
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        client = lb.Client(http_client=http, providers={"openai-responses": options})
        await work(client)
    return sent


@pytest.mark.anyio
@pytest.mark.parametrize("after", [None, 0, 5, 1234])
async def test_the_resume_request_is_the_sdks_retrieve_stream_starting_after(
    after: int | None,
) -> None:
    sdk = _sdk_request(
        lambda c: c.responses.retrieve(
            "resp_1", stream=True, **({} if after is None else {"starting_after": after})
        )
    )

    async def resume(client: lb.Client) -> None:
        async for _ in client.resume(MODEL, "resp_1", after=after):
            pass

    (ours,) = await _sent(resume)
    assert (ours.method, str(ours.url)) == (sdk.method, str(sdk.url))
    assert ours.url.params == sdk.url.params and ours.content == sdk.content == b""
    sdk_headers, our_headers = _headers(sdk), _headers(ours)
    # the SDK asks for JSON even for a stream; llmbridge asks for what it reads, as for every
    # stream (the server streams on stream=true either way)
    assert sdk_headers.pop("accept") == "application/json"
    assert our_headers.pop("accept") == "text/event-stream"
    assert our_headers == sdk_headers


@pytest.mark.anyio
async def test_the_cancel_request_is_the_sdks_cancel() -> None:
    sdk = _sdk_request(lambda c: c.responses.cancel("resp_1"))

    async def leave_early(client: lb.Client) -> None:
        async with client.stream(MODEL, PROMPT, background=True, cancel_on_close=True) as s:
            async for _ in s:
                break

    post, ours = await _sent(leave_early)
    assert (post.method, post.url.path) == ("POST", "/v1/responses")
    assert (ours.method, str(ours.url), ours.content) == (sdk.method, str(sdk.url), sdk.content)
    assert _headers(ours) == _headers(sdk)


# -- the corpus's background recordings --------------------------------------------------------


@corpus_present
@pytest.mark.parametrize("path", params([pytest.param(p, id=p.name) for p in BACKGROUND]))
def test_every_background_recording_decodes(path: Path) -> None:
    events = sse_events(path)
    decoder = BackgroundDecoder()
    out = decode(decoder, events)
    assert out == decode(ResponsesDecoder(), events)  # background mode changes no event
    starts = [e for e in out if isinstance(e, lb.StreamStart)]
    assert len(starts) == 1 and starts[0].response_id and starts[0].response_id.startswith("resp_")
    assert "".join(e.text for e in out if isinstance(e, lb.TextDelta)) == TEXT
    finish = out[-1]
    assert isinstance(finish, lb.Finish) and finish.reason == "stop"
    assert finish.usage is not None and finish.usage.input_tokens == 15
    assert finish.usage.output_tokens == 9
    point = decoder.resume_point()
    assert point == ResumePoint(starts[0].response_id, 16, complete=True)
    first = orjson.loads(events[0][1])
    if "starting_after" in path.name and first["type"] == "response.queued":
        assert first["sequence_number"] == 1  # a resumed stream: it starts after event 0


@corpus_present
def test_the_resume_point_follows_the_stream_and_repeats_are_dropped() -> None:
    events = sse_events(VCR)
    decoder = BackgroundDecoder()
    assert decoder.resume_point() is None
    whole: list[lb.StreamEvent] = []
    for n, (name, data) in enumerate(events[:9]):
        whole.extend(decoder.feed(name, data))
        point = decoder.resume_point()
        assert point is not None and point.after == n and not point.complete
    for name, data in events[4:9]:  # a server sending them again: nothing new
        assert decoder.feed(name, data) == []
    for name, data in events[9:]:
        whole.extend(decoder.feed(name, data))
    whole.extend(decoder.close())
    assert whole == decode(ResponsesDecoder(), events)


@corpus_present
def test_a_resume_decoder_starts_anywhere_with_the_known_id() -> None:
    events = sse_events(VCR)
    decoder = provider().resume_decoder(response_id=RESPONSE_ID, after=6)
    out = decode(decoder, events[5:])  # the server may send a few before starting_after
    start = out[0]
    assert isinstance(start, lb.StreamStart) and start.response_id == RESPONSE_ID
    assert "".join(e.text for e in out if isinstance(e, lb.TextDelta)) == " 2 equals 4."
    assert [type(e) for e in out].count(lb.Finish) == 1


def _other_response(events: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The recording as another response's stream: its id and its text changed."""
    return [
        (name, data.replace(RESPONSE_ID, "resp_OTHER").replace(" equals", " INJECTED"))
        for name, data in events
    ]


@corpus_present
@pytest.mark.parametrize("after", [None, 0, 4, 8, 12])
def test_another_responses_events_are_refused_not_merged(after: int | None) -> None:
    """A resume answered with another response's stream (from its start: its
    ``response.created`` carries number 0, below where this one stands)."""
    events = sse_events(VCR)
    decoder = BackgroundDecoder()
    seen: list[lb.StreamEvent] = []
    for name, data in events[: 0 if after is None else after + 1]:
        seen.extend(decoder.feed(name, data))
    if after is None:  # Client.resume: the id is given, no event read yet
        decoder = provider().resume_decoder(response_id=RESPONSE_ID, after=None)
    with pytest.raises(lb.MalformedStreamError, match="resp_OTHER") as caught:
        for name, data in _other_response(events):
            seen.extend(decoder.feed(name, data))
    assert "another response" in str(caught.value)
    assert "INJECTED" not in "".join(e.text for e in seen if isinstance(e, lb.TextDelta))
    with pytest.raises(lb.MalformedStreamError):  # refused from then on
        decoder.feed(*events[-1])


@corpus_present
def test_another_responses_events_after_the_resume_point_are_refused_at_its_end() -> None:
    """A server that honours ``starting_after`` with another response's events: the deltas
    carry no response id, the terminal event does: the stream never ends OK."""
    events = sse_events(VCR)
    decoder = BackgroundDecoder()
    for name, data in events[:6]:
        decoder.feed(name, data)
    with pytest.raises(lb.MalformedStreamError, match="resp_OTHER"):
        for name, data in _other_response(events)[6:]:
            decoder.feed(name, data)
        decoder.close()
    assert decoder.resume_point() == ResumePoint(RESPONSE_ID, 15, complete=False)


def test_a_body_that_ends_early_is_truncated_and_its_point_incomplete() -> None:
    decoder = BackgroundDecoder()
    decoder.feed("", '{"type":"response.queued","sequence_number":1,"response":{"id":"r9"}}')
    assert decoder.resume_point() == ResumePoint("r9", 1)
    with pytest.raises(lb.StreamTruncatedError):
        decoder.close()
    assert provider().resume_decoder(response_id="r9", after=None).resume_point() == ResumePoint(
        "r9", None
    )  # Client.resume from the start, before its first event
    old = BackgroundDecoder()  # an older server: no numbers, so no resuming (it would repeat)
    assert old.feed("", '{"type":"response.created","response":{"id":"r9"}}')
    assert old.resume_point() is None


# -- through the client, on an httpx MockTransport ---------------------------------------------


class Background:
    """Background mode on a ``MockTransport``: the POST's body ends after ``cut`` events (no
    terminal event), a resume serves the events after ``starting_after``."""

    def __init__(self, cut: int) -> None:
        self.events = VCR.read_bytes().split(b"\n\n")
        self.events = [e + b"\n\n" for e in self.events if e.strip()]
        self.cut = cut
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        events = self.events
        if request.method == "GET":
            after = int(request.url.params.get("starting_after", "-1"))
            events = events[after + 1 :]
        elif self.cut:
            events = events[: self.cut]
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=b"".join(events)
        )


@corpus_present
def test_the_sync_client_resumes_and_resumes_from_elsewhere() -> None:
    server = Background(cut=7)
    http = httpx.AsyncClient(transport=httpx.MockTransport(server))
    keys = {"openai-responses": {"api_key": "sk-test"}}
    with lb.SyncClient(
        http_client=http, providers=keys, retry=lb.RetryPolicy(initial_delay=0)
    ) as c:
        events = list(c.stream(MODEL, PROMPT, background=True))
        again = list(c.resume(MODEL, RESPONSE_ID, after=6))
    assert "".join(e.text for e in events if isinstance(e, lb.TextDelta)) == TEXT
    assert [type(e) for e in events].count(lb.Finish) == 1
    assert "".join(e.text for e in again if isinstance(e, lb.TextDelta)) == " 2 equals 4."
    assert [r.method for r in server.requests] == ["POST", "GET", "GET"]
    assert server.requests[1].url.params["starting_after"] == "6"


@corpus_present
def test_the_sync_stream_says_where_it_stands_and_closes_with_its_block() -> None:
    server = Background(cut=7)
    http = httpx.AsyncClient(transport=httpx.MockTransport(server))
    keys = {"openai-responses": {"api_key": "sk-test"}}
    with lb.SyncClient(http_client=http, providers=keys, retry=lb.RetryPolicy(max_attempts=1)) as c:
        stream = c.stream(MODEL, PROMPT, background=True)
        assert stream.resume_point is None  # nothing read yet
        with pytest.raises(lb.StreamTruncatedError), stream:
            for _ in stream:
                pass
        point = stream.resume_point
        assert point is not None and (point.after, point.complete) == (6, False)
        assert list(stream) == []  # closed
        rest = list(c.resume(MODEL, point.response_id, after=point.after))
    assert "".join(e.text for e in rest if isinstance(e, lb.TextDelta)) == " 2 equals 4."
    assert server.requests[-1].url.params["starting_after"] == "6"


@corpus_present
@pytest.mark.anyio
async def test_prompt_mode_tools_resume_too() -> None:
    server = Background(cut=9)
    http = httpx.AsyncClient(transport=httpx.MockTransport(server))
    client = lb.Client(
        http_client=http,
        providers={"openai-responses": {"api_key": "sk-test"}},
        retry=lb.RetryPolicy(initial_delay=0),
    )

    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    response = await client.complete(
        MODEL, PROMPT, tools=[add], tool_mode="prompt", background=True
    )
    assert response.text == TEXT
    assert [r.method for r in server.requests] == ["POST", "GET"]


@corpus_present
@pytest.mark.anyio
async def test_a_background_recording_replays(tmp_path: Path) -> None:
    transport = httpx.MockTransport(Background(cut=0))
    fixture = await record_fixture(
        tmp_path / "background",
        MODEL,
        PROMPT,
        client_options={"providers": {"openai-responses": {"api_key": "sk-test"}}},
        transport=transport,
        background=True,
    )
    assert fixture.http_request["body"]["background"] is True
    async with replay_client(tmp_path / "background") as http:
        client = lb.Client(
            http_client=http, providers={"openai-responses": {"api_key": "sk-replay"}}
        )
        events = [e async for e in client.stream(MODEL, PROMPT, background=True)]
    assert events == fixture.events
    assert "".join(e.text for e in events if isinstance(e, lb.TextDelta)) == TEXT


@pytest.mark.anyio
async def test_a_stream_without_event_numbers_is_not_resumed() -> None:
    events = [
        {"type": "response.created", "response": {"id": "resp_old"}},
        {"type": "response.output_text.delta", "delta": "half"},
    ]
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        body = b"".join(b"data: " + orjson.dumps(e) + b"\n\n" for e in events)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        client = lb.Client(http_client=http, providers={"openai-responses": {"api_key": "k"}})
        with pytest.raises(lb.StreamTruncatedError) as info:
            await client.complete(MODEL, PROMPT, background=True)
    assert len(sent) == 1 and info.value.partial is not None
    assert info.value.partial.text == "half"


@corpus_present
@pytest.mark.anyio
async def test_run_resumes_each_turn_in_the_background() -> None:
    server = Background(cut=6)
    http = httpx.AsyncClient(transport=httpx.MockTransport(server))
    client = lb.Client(
        http_client=http,
        providers={"openai-responses": {"api_key": "sk-test"}},
        retry=lb.RetryPolicy(initial_delay=0),
    )

    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    loop = client.run(MODEL, PROMPT, tools=[add], background=True)
    events = [e async for e in loop]
    assert "".join(e.text for e in events if isinstance(e, lb.TextDelta)) == TEXT
    assert [r.method for r in server.requests] == ["POST", "GET"]
    assert orjson.loads(server.requests[0].content)["background"] is True


@corpus_present
@pytest.mark.anyio
async def test_a_resumed_stream_is_one_chat_span_with_the_whole_usage() -> None:
    sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    spans = InMemorySpanExporter()
    tracer_provider = sdk_trace.TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    server = Background(cut=8)
    client = lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),
        providers={"openai-responses": {"api_key": "sk-test"}},
        retry=lb.RetryPolicy(initial_delay=0),
        telemetry=lb.Telemetry(tracer_provider=tracer_provider),
    )
    async with client:
        response = await client.complete(MODEL, PROMPT, background=True)
        async for _ in client.resume(MODEL, RESPONSE_ID, after=10):
            pass
    assert response.text == TEXT and len(server.requests) == 3
    first, second = spans.get_finished_spans()
    attrs = dict(first.attributes or {})
    assert attrs["gen_ai.usage.output_tokens"] == 9
    assert attrs["gen_ai.response.finish_reasons"] == ("completed",)
    assert dict(second.attributes or {})["gen_ai.response.id"] == RESPONSE_ID
