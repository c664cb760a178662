"""llmbridge against a real llama.cpp server and a real model, through the public API, on every
event loop: text and usage, native tool calls and the tool loop's second turn, errors (API key,
context overflow, a server killed midway), and a real stream recorded and replayed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

import llmbridge as lb
from llmbridge.testing import check_invariants, load_fixture, record_fixture, replay_client
from llmbridge.tools import ToolOutput, ToolResult
from tests.live_local.server import Server, start_server

pytestmark = pytest.mark.anyio
MODEL_ONLY = pytest.mark.loops("asyncio")
"""What the model answers, not how the bytes arrive: once (the streams, the server's errors and
its death mid-stream run on every loop here; the IO path is the loopback suite's)."""

GREETING = [lb.ChatMessage.user("Hi")]


def client_for(server: Server, name: str = "llamacpp", **options: Any) -> lb.Client:
    """Two attempts, no wait: llama-server sometimes hangs up a keep-alive connection just as
    the next request goes out on it ("Server disconnected without sending a response"). The
    request was written, so llmbridge does not resend it behind the policy's back (issue 34,
    item 7); the policy's second attempt is what a user with the default policy gets too."""
    return lb.Client(
        providers={name: {"base_url": server.base_url, **options}},
        retry=lb.RetryPolicy(max_attempts=2, initial_delay=0.0, jitter=0.0),
    )


def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"Sunny in {city}"


def weather_history(question: str) -> list[lb.ChatMessage]:
    """A few example calls in the history: the base model then calls the tool itself."""
    messages: list[lb.ChatMessage] = []
    for i, city in enumerate(["Paris", "Rome", "Oslo"]):
        call = lb.ToolCallPart(id=f"call_{i}", name="get_weather", arguments={"city": city})
        messages += [
            lb.ChatMessage.user(f"Weather in {city}?"),
            lb.ChatMessage.assistant(tool_calls=[call]),
            lb.ChatMessage.tool_result(f"call_{i}", f"Sunny in {city}", name="get_weather"),
            lb.ChatMessage.assistant(f"Sunny in {city}."),
        ]
    return [*messages, lb.ChatMessage.user(question)]


@pytest.mark.parametrize("provider", ["llamacpp", "openai-compatible"])
async def test_text_streams_with_usage(llama: Server, provider: str) -> None:
    async with client_for(llama, provider) as client:
        events = [e async for e in client.stream(f"{provider}:gemma", GREETING, max_tokens=8)]
    check_invariants(events)
    finish = events[-1]
    assert isinstance(finish, lb.Finish) and finish.reason in ("length", "stop")
    assert finish.usage is not None and finish.usage.input_tokens > 0
    assert 0 < finish.usage.output_tokens <= 8
    text = "".join(e.text for e in events if isinstance(e, lb.TextDelta))
    assert text  # a base model's text: poor, but there


async def berlin_weather(server: Server, **options: Any) -> list[lb.StreamEvent]:
    """The events of asking for Berlin's weather with ``get_weather`` offered."""
    async with client_for(server) as client:
        stream = client.stream(
            "llamacpp:gemma",
            weather_history("Weather in Berlin?"),
            tools=[get_weather],
            temperature=0,
            **options,
        )
        return [e async for e in stream]


@MODEL_ONLY
async def test_native_tool_call_streams_start_chunks_end(llama: Server) -> None:
    events = await berlin_weather(llama, max_tokens=60)
    check_invariants(events)
    starts = [e for e in events if isinstance(e, lb.ToolCallStart)]
    ends = [e for e in events if isinstance(e, lb.ToolCallEnd)]
    assert len(starts) == len(ends) >= 1
    assert ends[0].name == "get_weather" and ends[0].arguments == {"city": "Berlin"}
    chunks = "".join(
        e.arguments_delta for e in events if isinstance(e, lb.ToolCallChunk) and e.id == ends[0].id
    )
    assert (
        chunks == ends[0].raw_arguments
        and len([e for e in events if isinstance(e, lb.ToolCallChunk)]) > 1
    )  # streamed in fragments, as the server sends them


@MODEL_ONLY
async def test_tool_loop_second_turn_is_accepted(llama: Server) -> None:
    async with client_for(llama) as client:
        loop = client.run(
            "llamacpp:gemma",
            weather_history("Weather in Berlin?"),
            tools=[get_weather],
            max_steps=2,
            max_tokens=40,
            temperature=0,
        )
        results = [e async for e in loop if isinstance(e, ToolResult)]
    assert results and results[0].value == "Sunny in Berlin"
    assert loop.messages[-1].role == "assistant"  # the second turn came back


async def test_api_key_is_required_and_sent() -> None:
    server = start_server("--api-key", "sk-local-test-key-123")
    try:
        async with client_for(server) as client:
            with pytest.raises(lb.AuthenticationError) as info:
                await client.complete("llamacpp:gemma", GREETING, max_tokens=4)
            assert info.value.status == 401
        async with client_for(server, api_key="sk-local-test-key-123") as client:
            assert (await client.complete("llamacpp:gemma", GREETING, max_tokens=4)).usage
    finally:
        server.kill()


async def test_context_overflow_is_a_context_length_error(llama: Server) -> None:
    async with client_for(llama) as client:
        with pytest.raises(lb.ContextLengthError) as info:
            await client.complete("llamacpp:gemma", [lb.ChatMessage.user("word " * 6000)])
    assert info.value.status == 400 and "context" in str(info.value)


async def test_server_killed_midway_is_truncation_with_the_partial() -> None:
    server = start_server()
    events: list[lb.StreamEvent] = []
    try:
        async with client_for(server) as client:
            with pytest.raises((lb.StreamTruncatedError, lb.ConnectionError)) as info:
                async for event in client.stream(
                    "llamacpp:gemma", [lb.ChatMessage.user("Tell a long story.")], max_tokens=400
                ):
                    events.append(event)
                    if sum(isinstance(e, lb.TextDelta) for e in events) == 3:
                        server.kill()
    finally:
        server.kill()
    assert isinstance(info.value, lb.StreamTruncatedError)
    text = "".join(e.text for e in events if isinstance(e, lb.TextDelta))
    assert info.value.partial is not None and info.value.partial.text == text != ""


@MODEL_ONLY
async def test_a_real_stream_records_and_replays_to_the_same_events(
    llama: Server, tmp_path: Path
) -> None:
    path = tmp_path / "llamacpp_text"
    fixture = await record_fixture(
        path,
        "llamacpp:gemma",
        GREETING,
        client_options={"providers": {"llamacpp": {"base_url": llama.base_url}}},
        max_tokens=12,
        temperature=0,
    )
    recorded = json.loads((path / "request.json").read_text())
    assert recorded["body"]["stream_options"] == {"include_usage": True}
    with anyio.fail_after(10):
        async with lb.Client(
            http_client=replay_client(path),
            providers={"llamacpp": {"base_url": llama.base_url}},
        ) as client:
            replayed = [
                e
                async for e in client.stream(
                    "llamacpp:gemma", GREETING, max_tokens=12, temperature=0
                )
            ]
    assert replayed == load_fixture(path).events == fixture.events


def screenshot(city: str) -> ToolOutput:
    """A picture of the weather in a city."""
    png = bytes.fromhex("89504e470d0a1a0a0000000d49484452")
    return ToolOutput(
        [lb.TextPart(text=f"photo of {city}"), lb.ImagePart(data=png, media_type="image/png")]
    )


@MODEL_ONLY
async def test_image_results_reach_a_text_only_server_as_a_note(llama: Server) -> None:
    """llama-server without a vision projector answers 500 to images: with ``images: False``
    the image result is a short note and the tool loop goes on to its second turn."""
    history = [
        m.model_copy(
            update={
                "content": [
                    p.model_copy(update={"name": "screenshot"})
                    if isinstance(p, lb.ToolCallPart)
                    else p
                    for p in m.content
                ]
            }
        )
        for m in weather_history("Weather in Berlin?")
    ]
    async with client_for(llama, images=False) as client:
        loop = client.run(
            "llamacpp:gemma", history, tools=[screenshot], max_steps=2, max_tokens=40, temperature=0
        )
        events = [e async for e in loop]
    starts = [e for e in events if isinstance(e, lb.StreamStart)]
    assert any("image(s) in tool results" in w for s in starts for w in s.warnings)
    assert sum(isinstance(e, lb.Finish) for e in events) == 2  # the second turn was answered


async def test_an_image_to_a_text_only_server_fails_at_once_with_its_reason(
    llama: Server,
) -> None:
    """llama-server answers an image it cannot read with a 500 that would repeat: the llamacpp
    preset does not retry it (a retry would wait 10 s here), and the error keeps its words."""
    png = bytes.fromhex("89504e470d0a1a0a0000000d49484452")
    photo = lb.ChatMessage.user("What is this?", lb.ImagePart(data=png, media_type="image/png"))
    slow_retries = lb.RetryPolicy(max_attempts=3, initial_delay=10.0, jitter=0.0)
    with anyio.fail_after(8):
        async with lb.Client(
            providers={"llamacpp": {"base_url": llama.base_url}}, retry=slow_retries
        ) as client:
            with pytest.raises(lb.ServerError) as caught:
                await client.complete("llamacpp:gemma", [photo], max_tokens=8)
    error = caught.value
    assert error.status == 500 and not error.retryable
    assert "image input is not supported" in (error.provider_message or "")


@MODEL_ONLY
async def test_prompt_prompt_tools_calls_a_tool_and_stops_before_a_made_up_result(
    llama: Server,
) -> None:
    """Examples in the history (written as <function_call> text by the fallback) make the base
    model call the tool in text; left to run on it then writes a result itself, which the
    fallback's stop sequence at ``<function_result`` cuts off."""
    events = await berlin_weather(llama, tool_mode="prompt", max_tokens=80)
    check_invariants(events)
    ends = [e for e in events if isinstance(e, lb.ToolCallEnd)]
    assert [(e.name, e.arguments) for e in ends] == [("get_weather", {"city": "Berlin"})]
    text = "".join(e.text for e in events if isinstance(e, lb.TextDelta))
    assert "<function_result" not in text and "Sunny in Berlin" not in text
    finish = events[-1]
    assert isinstance(finish, lb.Finish) and finish.reason == "tool_calls"


THINK_THEN_ANSWER = 'root ::= "<think>" [a-z ]{5,40} "</think>" [a-z ]{3,20}'
"""A GBNF grammar that makes the base model reason first (the Qwen3 template's <think>)."""


@MODEL_ONLY
async def test_reasoning_streams_apart_and_the_next_turn_is_accepted(llama: Server) -> None:
    messages = [lb.ChatMessage.user("What is two plus two?")]
    async with client_for(llama) as client:
        first = await client.complete(
            "llamacpp:gemma",
            messages,
            max_tokens=60,
            temperature=0,
            extra={"grammar": THINK_THEN_ANSWER},
        )
        assert first.reasoning.strip() and first.text.strip()
        assert "<think>" not in first.text and "</think>" not in first.reasoning
        messages += [first.message, lb.ChatMessage.user("And three plus three?")]
        second = await client.complete(
            "llamacpp:gemma",
            messages,
            max_tokens=60,
            temperature=0,
            extra={"grammar": THINK_THEN_ANSWER},
        )
    assert second.reasoning.strip() and second.finish_reason in ("stop", "length")


@MODEL_ONLY
async def test_reasoning_sent_back_within_a_tool_turn_is_accepted(llama: Server) -> None:
    call = lb.ToolCallPart(id="call_0", name="get_weather", arguments={"city": "Oslo"})
    thought = lb.ReasoningPart(text="the user wants the weather", provider="llamacpp")
    messages = [
        lb.ChatMessage.user("Weather in Oslo?"),
        lb.ChatMessage.assistant(tool_calls=[call], reasoning=[thought]),
        lb.ChatMessage.tool_result("call_0", "Sunny in Oslo", name="get_weather"),
    ]
    async with client_for(llama) as client:
        response = await client.complete(
            "llamacpp:gemma", messages, tools=[get_weather], max_tokens=12, temperature=0
        )
    assert response.finish_reason in ("stop", "length", "tool_calls")


@MODEL_ONLY
async def test_the_same_seed_gives_the_same_sampled_answer(llama: Server) -> None:
    """``seed`` and ``top_k`` reach llama-server (it takes both): hot sampling with one seed
    answers the same twice (its prompt cache off, whose reuse changes the numbers slightly),
    with no warning."""
    settings: dict[str, Any] = {"max_tokens": 16, "temperature": 1.5, "top_k": 200}
    async with client_for(llama) as client:
        answers = [
            await client.complete(
                "llamacpp:gemma", GREETING, seed=42, extra={"cache_prompt": False}, **settings
            )
            for _ in range(2)
        ]
    assert answers[0].text and answers[0].text == answers[1].text
    assert answers[0].warnings == []


async def test_the_server_lists_its_model_with_its_context_window(llama: Server) -> None:
    async with client_for(llama) as client:
        models = await client.list_models("llamacpp")
    assert len(models) == 1
    (model,) = models
    assert model.context_window == 4096  # `serve` starts it with -c 4096
    async with client_for(llama) as client:  # the listed id works as a model string
        response = await client.complete(model.model, GREETING, max_tokens=4)
    assert response.usage is not None and response.usage.output_tokens > 0


@MODEL_ONLY
async def test_a_typed_response_format_comes_back_validated(llama: Server) -> None:
    """llama-server turns the JSON schema into a grammar, which holds once the template's
    thinking is off (the llamacpp preset does that): even the tiny model's reply parses."""
    from pydantic import BaseModel

    class City(BaseModel):
        name: str
        country: str

    async with client_for(llama) as client:
        response = await client.complete(
            "llamacpp:gemma",
            [lb.ChatMessage.user("Name one city in France as JSON.")],
            response_format=City,
            max_tokens=80,
            temperature=0,
        )
    assert isinstance(response.parsed, City) and response.parsed.name


@MODEL_ONLY
async def test_partial_objects_stream_from_the_real_server(llama: Server) -> None:
    """Each partial value is a prefix-consistent shape of the final one, which is the reply's
    JSON; the last partial value and the validated value agree."""
    from pydantic import BaseModel

    from tests.test_partial_values import consistent

    class City(BaseModel):
        name: str
        country: str

    events = []
    async with client_for(llama) as client:
        async for event in client.stream(
            "llamacpp:gemma",
            [lb.ChatMessage.user("Name one city in Italy as JSON.")],
            response_format=City,
            max_tokens=80,
            temperature=0,
        ):
            events.append(event)
    text = "".join(e.text for e in events if isinstance(e, lb.TextDelta))
    partials = [e.value for e in events if isinstance(e, lb.PartialObject)]
    final = json.loads(text)
    assert len(partials) >= 2 and partials[-1] == final
    assert all(consistent(p, final) for p in partials)
    assert City.model_validate(final).name


@MODEL_ONLY
async def test_telemetry_on_a_real_stream(llama: Server) -> None:
    """The span and metrics of a real stream: the server's host and port, its model name,
    real token counts, a first chunk before the end; no cost for a self-hosted server."""
    sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    spans = InMemorySpanExporter()
    tracing = sdk_trace.TracerProvider()
    tracing.add_span_processor(SimpleSpanProcessor(spans))
    reader = InMemoryMetricReader()
    telemetry = lb.Telemetry(
        tracer_provider=tracing, meter_provider=MeterProvider(metric_readers=[reader])
    )
    async with lb.Client(
        providers={"llamacpp": {"base_url": llama.base_url}}, telemetry=telemetry
    ) as client:
        response = await client.complete("llamacpp:gemma", GREETING, max_tokens=8)
    (span,) = spans.get_finished_spans()
    attrs = span.attributes
    assert span.name == "chat gemma"
    assert attrs["server.address"] == "127.0.0.1"
    assert attrs["server.port"] == int(llama.base_url.rsplit(":", 1)[1].split("/")[0])
    assert attrs["gen_ai.provider.name"] == "llamacpp"
    assert attrs["gen_ai.response.model"] == response.model
    assert response.usage is not None and response.usage.output_tokens > 0
    assert attrs["gen_ai.usage.output_tokens"] == response.usage.output_tokens
    assert "gen_ai.usage.cost" not in attrs and response.cost is None
    names = {
        m.name
        for r in reader.get_metrics_data().resource_metrics
        for s in r.scope_metrics
        for m in s.metrics
    }
    assert names == {
        "gen_ai.client.token.usage",
        "gen_ai.client.operation.duration",
        "gen_ai.client.operation.time_to_first_chunk",
    }
