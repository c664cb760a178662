"""Fallback models: ``stream`` / ``complete`` / ``run`` with a list of models (issue 23).

Over mock transports (no network), on asyncio and trio: the fake wire of ``tests/fakes.py``
for the rules, and recorded streams (``fixtures/``) for real providers: an Anthropic stream
that breaks with ``overloaded_error`` after its first text, answered by OpenAI instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

import llmbridge as lb
from llmbridge.events import event_from_dict, event_to_dict
from llmbridge.stream import RetryPolicy
from llmbridge.testing import check_invariants, load_fixture
from tests.fakes import ChunkedBody, mock_client, sse_body, sse_response

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("fake_registered")]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
USER = [lb.ChatMessage.user("hi")]
OK = sse_body({"text": "Hel"}, {"text": "lo"}, {"finish": "stop"})


def _error(status: int, kind: str) -> httpx.Response:
    return httpx.Response(status, json={"error": {"type": kind, "message": f"{kind}!"}})


SCRIPTS: dict[str, Any] = {
    "ok": lambda: sse_response(OK),
    "ok2": lambda: sse_response(sse_body({"text": "Again"}, {"finish": "stop"})),
    "busy": lambda: _error(429, "rate_limit_error"),
    "down": lambda: _error(500, "server_error"),
    "bad": lambda: _error(400, "invalid_request_error"),
    "long": lambda: _error(400, "context_length_exceeded"),
    "midway": lambda: sse_response(
        sse_body({"text": "part"}, {"error": {"type": "overloaded_error", "message": "x"}})
    ),
    "cut": lambda: sse_response(sse_body({"text": "par"})),  # no finish: truncated
}


class Server:
    """A mock HTTP server answering each fake model by its script; counts requests."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        model = orjson.loads(request.content)["model"]
        self.asked.append(model)
        response: httpx.Response = SCRIPTS[model]()
        return response

    def client(self, retries: int = 1) -> lb.Client:
        retry = RetryPolicy(max_attempts=retries, initial_delay=0.001, max_delay=0.002)
        return lb.Client(http_client=mock_client(self), retry=retry)


async def _events(client: lb.Client, models: Any, **options: Any) -> list[lb.StreamEvent]:
    async with client.stream(models, USER, **options) as stream:
        return [event async for event in stream]


async def test_a_retryable_failure_before_any_event_moves_on_silently() -> None:
    server = Server()
    async with server.client(retries=2) as client:
        events = await _events(client, ["fake:busy", "fake:ok"])
        response = await client.complete(["fake:busy", "fake:ok"], USER)
    assert server.asked == ["busy", "busy", "ok"] * 2  # its own retries first, then the next
    assert not any(isinstance(e, lb.ModelSwitch) for e in events)
    start = events[0]
    assert isinstance(start, lb.StreamStart) and start.provider == "fake"
    assert start.warnings == [
        "fallback: fake:busy failed (RateLimitError: rate_limit_error! (provider=fake, "
        "status=429)); fake:ok answers"
    ]
    assert [e.text for e in events if isinstance(e, lb.TextDelta)] == ["Hel", "lo"]
    check_invariants(events)
    assert response.text == "Hello" and response.warnings == start.warnings


async def test_an_error_that_another_model_would_not_fix_is_raised_as_it_is() -> None:
    server = Server()
    async with server.client() as client:
        with pytest.raises(lb.InvalidRequestError) as caught:
            await client.complete(["fake:bad", "fake:ok"], USER)
    assert not isinstance(caught.value, lb.AllModelsFailedError)
    assert server.asked == ["bad"]


@pytest.mark.parametrize(
    "fallback_on",
    [
        lb.ContextLengthError,
        (lb.NotFoundError, lb.ContextLengthError),
        [lb.NotFoundError, lb.ContextLengthError],  # "errors the caller lists" (issue 23)
        lambda error: "context" in str(error),
    ],
    ids=["class", "tuple", "list", "predicate"],
)
async def test_errors_the_caller_lists_move_on(fallback_on: Any) -> None:
    server = Server()
    async with server.client() as client:
        response = await client.complete(["fake:long", "fake:ok"], USER, fallback_on=fallback_on)
        with pytest.raises(lb.InvalidRequestError):  # listed: context length, not this one
            await client.complete(["fake:bad", "fake:ok"], USER, fallback_on=fallback_on)
    assert response.text == "Hello"


async def test_after_events_the_error_keeps_its_partial_by_default() -> None:
    server = Server()
    seen: list[lb.StreamEvent] = []
    async with server.client() as client:
        with pytest.raises(lb.OverloadedError) as caught:
            async with client.stream(["fake:midway", "fake:ok"], USER) as stream:
                async for event in stream:
                    seen.append(event)
    assert [type(e).__name__ for e in seen] == ["TextDelta"]
    assert caught.value.partial is not None and caught.value.partial.text == "part"
    assert server.asked == ["midway"]


@pytest.mark.parametrize("broken", ["midway", "cut"])
async def test_restart_yields_a_model_switch_and_complete_folds_the_last_model(
    broken: str,
) -> None:
    server = Server()
    models = [f"fake:{broken}", "fake:ok"]
    async with server.client() as client:
        events = await _events(client, models, restart=True)
        response = await client.complete(models, USER, restart=True)
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["TextDelta", "ModelSwitch", "StreamStart", "TextDelta", "TextDelta", "Finish"]
    switch = events[1]
    assert isinstance(switch, lb.ModelSwitch) and switch.type == "model_switch"
    assert (switch.from_model, switch.to_model) == (f"fake:{broken}", "fake:ok")
    assert isinstance(switch.error, lb.StreamError | lb.OverloadedError)
    assert switch.error.partial is not None and switch.error.partial.text.startswith("par")
    check_invariants(events)
    assert response.text == "Hello"  # the first model's "part" is gone


async def test_every_model_failing_is_one_error_carrying_each() -> None:
    server = Server()
    async with server.client() as client:
        with pytest.raises(lb.AllModelsFailedError) as caught:
            await client.complete(["fake:busy", "fake:down", "fake:bad"], USER)
    error = caught.value
    assert isinstance(error, lb.LLMBridgeError)
    assert [(m, type(e).__name__) for m, e in error.errors] == [
        ("fake:busy", "RateLimitError"),
        ("fake:down", "ServerError"),
        ("fake:bad", "InvalidRequestError"),
    ]
    assert "fake:busy" in str(error) and "fake:bad" in str(error)
    assert error.status == 400 and error.provider == "fake"
    assert error.partial is None
    assert not error.retryable  # a 400 is not worth a plain retry
    assert server.asked == ["busy", "down", "bad"]


async def test_restart_after_events_then_all_fail() -> None:
    server = Server()
    async with server.client() as client:
        seen: list[lb.StreamEvent] = []
        with pytest.raises(lb.AllModelsFailedError) as caught:
            async with client.stream(["fake:midway", "fake:busy"], USER, restart=True) as s:
                async for event in s:
                    seen.append(event)
    assert [type(e).__name__ for e in seen] == ["TextDelta"]  # no switch: nobody took over
    assert caught.value.retryable
    assert caught.value.partial is not None and caught.value.partial.text == "part"


def _recorded(name: str) -> bytes:
    return load_fixture(FIXTURES / name).body


async def test_recorded_anthropic_overload_falls_back_to_openai_with_its_options() -> None:
    bodies: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(orjson.loads(request.content))
        if request.url.host == "api.anthropic.com":
            return sse_response(_recorded("anthropic/overloaded_error"))
        return sse_response(_recorded("openai/plain_text"))

    providers = {"anthropic": {"api_key": "a"}, "openai": {"api_key": "o"}}
    chain = ["anthropic:claude-opus-4-7", lb.ModelOption("openai:gpt-4.1", max_tokens=64)]
    async with lb.Client(http_client=mock_client(handler), providers=providers) as client:
        events = await _events(client, chain, restart=True, max_tokens=1000)
        response = await client.complete(chain, USER, restart=True, max_tokens=1000)
    assert [b["max_tokens" if "max_tokens" in b else "max_completion_tokens"] for b in bodies] == [
        1000,
        64,
        1000,
        64,
    ]
    switch = next(e for e in events if isinstance(e, lb.ModelSwitch))
    assert switch.from_model == "anthropic:claude-opus-4-7" and switch.to_model == "openai:gpt-4.1"
    assert isinstance(switch.error, lb.OverloadedError)
    shown = events[: events.index(switch)]
    assert [type(e).__name__ for e in shown] == ["StreamStart", "TextDelta"]
    expected = load_fixture(FIXTURES / "openai/plain_text")
    assert response.text == "".join(e.text for e in expected.events if isinstance(e, lb.TextDelta))
    assert "Crisp leaves" not in response.text
    assert response.warnings[0].startswith("fallback: anthropic:claude-opus-4-7 failed")


async def test_a_stream_that_fails_right_after_its_start_counts_as_before_any_event() -> None:
    body = _recorded("anthropic/overloaded_error")
    start, _, rest = body.partition(b"\n\n")
    cut = start + b"\n\n" + rest[rest.index(b"event: error") :]  # message_start, then error

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "api.anthropic.com":
            return sse_response(cut)
        return sse_response(_recorded("openai/plain_text"))

    providers = {"anthropic": {"api_key": "a"}, "openai": {"api_key": "o"}}
    async with lb.Client(http_client=mock_client(handler), providers=providers) as client:
        stream = client.stream(["anthropic:claude-opus-4-7", "openai:gpt-4.1"], USER)
        assert stream.provider.name == "anthropic"
        async with stream:
            events = [event async for event in stream]
        assert stream.provider.name == "openai"  # the provider answering
    assert not any(isinstance(e, lb.ModelSwitch) for e in events)
    starts = [e for e in events if isinstance(e, lb.StreamStart)]
    assert len(starts) == 1 and starts[0].provider == "openai"  # anthropic's start held back
    check_invariants(events)


async def test_the_answering_provider_tags_reasoning_for_the_next_turn() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "fake.test":
            return _error(503, "server_error")
        return sse_response(_recorded("deepseek/tool_turn_sends_reasoning"))

    providers = {"deepseek": {"api_key": "d"}}
    async with lb.Client(
        http_client=mock_client(handler), providers=providers, retry=RetryPolicy(max_attempts=1)
    ) as client:
        response = await client.complete(["fake:x", "deepseek:deepseek-reasoner"], USER)
    reasoning = [p for p in response.message.content if isinstance(p, lb.ReasoningPart)]
    assert reasoning and all(p.provider == "deepseek" for p in reasoning)


async def test_run_takes_a_chain_each_turn() -> None:
    server = Server()

    def noop() -> str:
        """Does nothing."""
        return "ok"

    async with server.client() as client:
        loop = client.run(["fake:busy", "fake:ok"], USER, tools=[noop])
        events = [event async for event in loop]
    assert loop.messages[-1].text == "Hello"
    assert server.asked == ["busy", "ok"]
    assert any(isinstance(e, lb.StreamStart) and e.provider == "fake" for e in events)


async def test_closing_early_closes_the_answering_stream() -> None:
    bodies: list[ChunkedBody] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if orjson.loads(request.content)["model"] == "busy":
            return _error(429, "rate_limit_error")
        body = ChunkedBody([sse_body({"text": "a"}), sse_body({"text": "b"})], hang_after=1)
        bodies.append(body)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=body)

    client = lb.Client(http_client=mock_client(handler), retry=RetryPolicy(max_attempts=1))
    async with client, client.stream(["fake:busy", "fake:ok"], USER) as stream:
        async for event in stream:
            if isinstance(event, lb.TextDelta):
                break
    assert bodies and bodies[0].closed


async def test_a_failed_models_response_is_closed_before_the_switch() -> None:
    bodies: dict[str, ChunkedBody] = {}

    def handler(request: httpx.Request) -> httpx.Response:
        model = orjson.loads(request.content)["model"]
        chunks = [sse_body({"text": "half"}), b"data: {not json}\n\n"] if model == "bad" else [OK]
        body = bodies[model] = ChunkedBody(chunks)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=body)

    client = lb.Client(http_client=mock_client(handler), retry=RetryPolicy(max_attempts=1))
    seen_closed = []
    async with client, client.stream(["fake:bad", "fake:ok"], USER, restart=True) as stream:
        async for event in stream:
            if isinstance(event, lb.ModelSwitch):
                seen_closed.append(bodies["bad"].closed)
    assert seen_closed == [True]
    assert bodies["ok"].closed


async def test_chain_usage_errors() -> None:
    async with Server().client() as client:
        with pytest.raises(lb.UsageError, match="at least one"):
            client.stream([], USER)
        with pytest.raises(lb.UsageError, match="restart"):
            client.stream(["fake:ok", lb.ModelOption("fake:ok2", restart=True)], USER)
        with pytest.raises(lb.UsageError, match="unknown option"):
            client.stream(["fake:ok", lb.ModelOption("fake:ok2", max_tokenz=1)], USER)
        with pytest.raises(lb.UsageError, match="not chains"):
            client.stream([["fake:ok"]], USER)  # type: ignore[list-item]
        with pytest.raises(lb.UsageError, match="unknown option"):
            client.stream("fake:ok", USER, restart=True)
        with pytest.raises(lb.UsageError, match="one model"):  # not an AttributeError
            await client.count_tokens(["fake:ok", "fake:ok2"], USER)  # type: ignore[arg-type]
        for wrong in ("context_length", 3, (lb.ContextLengthError, "x"), [str]):
            with pytest.raises(lb.UsageError, match="fallback_on"):  # now, not at a failure
                client.stream(["fake:long", "fake:ok"], USER, fallback_on=wrong)


async def test_one_model_option_is_a_chain_of_one() -> None:
    server = Server()
    async with server.client() as client:
        response = await client.complete(lb.ModelOption("fake:ok", temperature=0.1), USER)
        with pytest.raises(lb.AllModelsFailedError):
            await client.complete(lb.ModelOption("fake:busy"), USER)
    assert response.text == "Hello"


def test_sync_client_twins() -> None:
    server = Server()
    retry = RetryPolicy(max_attempts=1)
    with lb.SyncClient(http_client=mock_client(server), retry=retry) as client:
        events = list(client.stream(["fake:midway", "fake:ok2"], USER, restart=True))
        response = client.complete(["fake:busy", "fake:ok"], USER)
        with pytest.raises(lb.AllModelsFailedError):
            client.complete(["fake:busy", "fake:down"], USER)
    assert [type(e).__name__ for e in events][:2] == ["TextDelta", "ModelSwitch"]
    assert response.text == "Hello"


def test_model_switch_is_an_event_like_the_others() -> None:
    error = lb.OverloadedError("Overloaded", provider="anthropic", status=529)
    switch = lb.ModelSwitch(from_model="anthropic:a", to_model="openai:b", error=error)
    data = event_to_dict(switch)
    assert data == {
        "type": "model_switch",
        "from_model": "anthropic:a",
        "to_model": "openai:b",
        "error": {"class": "OverloadedError", "message": "Overloaded"},
    }
    again = event_from_dict(orjson.loads(orjson.dumps(data)))
    assert isinstance(again, lb.ModelSwitch) and isinstance(again.error, lb.OverloadedError)
    # the accumulator folds only what follows a switch
    events: list[lb.StreamEvent] = [
        lb.TextDelta("old"),
        lb.ToolCallStart("c1", "f", 0),
        switch,
        lb.StreamStart(provider="openai"),
        lb.ReasoningDelta("why", signature="s"),
        lb.TextDelta("new"),
        lb.Finish("stop"),
    ]
    response = lb.accumulate(events, provider="anthropic")
    assert response.text == "new"
    (part,) = [p for p in response.message.content if isinstance(p, lb.ReasoningPart)]
    assert part.provider == "openai"
    check_invariants(events)


async def test_a_switch_skips_a_model_that_failed_silently() -> None:
    server = Server()
    async with server.client() as client:
        events = await _events(client, ["fake:midway", "fake:busy", "fake:ok"], restart=True)
    switches = [e for e in events if isinstance(e, lb.ModelSwitch)]
    assert [(s.from_model, s.to_model) for s in switches] == [("fake:midway", "fake:ok")]
    start = next(e for e in events if isinstance(e, lb.StreamStart))
    assert [w.split(" failed")[0] for w in start.warnings] == [
        "fallback: fake:midway",
        "fallback: fake:busy",
    ]
    assert lb.accumulate(events).text == "Hello"


@pytest.mark.parametrize(
    "hosted",
    [
        lb.HostedMCP("https://mcp.example/mcp"),  # Anthropic's connector cannot ask for approval
        lb.ImageGeneration(),  # Anthropic runs no image generation at all
    ],
    ids=["refused-option", "refused-kind"],
)
async def test_a_hosted_tool_a_fallback_model_cannot_run_fails_before_anything_is_sent(
    hosted: Any,
) -> None:
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.url.host)
        return _error(429, "rate_limit_error")

    providers = {"openai-responses": {"api_key": "o"}, "anthropic": {"api_key": "a"}}
    chain = ["openai-responses:gpt-5", "anthropic:claude-sonnet-4-5"]
    async with lb.Client(
        http_client=mock_client(handler), providers=providers, retry=RetryPolicy(max_attempts=1)
    ) as client:
        with pytest.raises(lb.ConfigurationError, match="anthropic") as caught:
            await client.complete(chain, USER, tools=[hosted])
    assert not isinstance(caught.value, lb.AllModelsFailedError)
    assert sent == []  # not only once the first model failed
