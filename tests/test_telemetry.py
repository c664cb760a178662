"""OpenTelemetry GenAI spans and metrics over replayed streams, read back with the SDK's
in-memory exporters: a success, an error mid-stream, a stream closed early, the tool loop,
content only on request, the cost, and nothing at all (not even an import) when off."""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

import llmbridge as lb
from llmbridge.testing import ReplayTransport, load_fixture

sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)
from opentelemetry.trace import SpanKind, StatusCode  # noqa: E402

pytestmark = pytest.mark.anyio
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


class Otel:
    """A tracer and a meter provider that keep what they get."""

    def __init__(self, **options: Any) -> None:
        self.spans = InMemorySpanExporter()
        tracer_provider = sdk_trace.TracerProvider()
        tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans))
        self.reader = InMemoryMetricReader()
        meter_provider = MeterProvider(metric_readers=[self.reader])
        self.config = lb.Telemetry(
            tracer_provider=tracer_provider, meter_provider=meter_provider, **options
        )

    def span(self, name: str) -> Any:
        (span,) = [s for s in self.spans.get_finished_spans() if s.name == name]
        return span

    def points(self, metric: str) -> list[Any]:
        data = self.reader.get_metrics_data()
        return [
            point
            for resource in data.resource_metrics
            for scope in resource.scope_metrics
            for m in scope.metrics
            if m.name == metric
            for point in m.data.data_points
        ]


def options(fx: Any) -> dict[str, Any]:
    """The recorded request's options, as ``complete`` / ``stream`` take them."""
    return fx.request.model_dump(exclude_defaults=True, exclude={"model", "messages"})


def replaying(name: str, otel: Otel) -> tuple[lb.Client, Any]:
    fx = load_fixture(FIXTURES / name)
    transport = ReplayTransport(fx)
    client = lb.Client(
        http_client=httpx.AsyncClient(transport=transport),
        providers={fx.provider: {**fx.provider_config, "api_key": "k"}},
        retry=lb.RetryPolicy(max_attempts=1),
        telemetry=otel.config,
    )
    return client, fx


async def test_a_stream_is_one_chat_span_with_the_conventions_attributes() -> None:
    otel = Otel()
    client, fx = replaying("openai/plain_text", otel)
    async with client:
        response = await client.complete(fx.model, fx.request.messages, **options(fx))
    span = otel.span(f"chat {fx.request.model}")
    attrs = dict(span.attributes)
    assert span.kind == SpanKind.CLIENT and span.status.status_code == StatusCode.UNSET
    assert attrs["gen_ai.operation.name"] == "chat"
    assert attrs["gen_ai.provider.name"] == "openai"
    assert attrs["gen_ai.request.model"] == fx.request.model
    assert attrs["gen_ai.response.model"] == response.model
    assert attrs["gen_ai.response.id"] == response.response_id
    assert attrs["gen_ai.response.finish_reasons"] == ("stop",)
    assert response.usage is not None
    assert attrs["gen_ai.usage.input_tokens"] == response.usage.input_tokens == 24
    assert attrs["gen_ai.usage.output_tokens"] == 11
    assert attrs["server.address"] == "api.openai.com" and attrs["server.port"] == 443
    assert "gen_ai.input.messages" not in attrs and "gen_ai.output.messages" not in attrs
    tokens = {
        p.attributes["gen_ai.token.type"]: p.sum for p in otel.points("gen_ai.client.token.usage")
    }
    assert tokens == {"input": 24, "output": 11}
    (duration,) = otel.points("gen_ai.client.operation.duration")
    (first,) = otel.points("gen_ai.client.operation.time_to_first_chunk")
    assert 0 < first.sum <= duration.sum
    assert duration.attributes["gen_ai.provider.name"] == "openai"


async def test_a_stream_that_fails_midway_is_an_error_span_with_its_type() -> None:
    otel = Otel()
    client, fx = replaying("openai/mid_stream_error", otel)
    async with client:
        with pytest.raises(lb.ServerError):
            async for _ in client.stream(fx.model, fx.request.messages, **options(fx)):
                pass
    span = otel.span(f"chat {fx.request.model}")
    assert span.status.status_code == StatusCode.ERROR
    assert span.attributes["error.type"] == "ServerError"
    (duration,) = otel.points("gen_ai.client.operation.duration")
    assert duration.attributes["error.type"] == "ServerError"


async def test_a_stream_closed_early_ends_its_span_without_error() -> None:
    otel = Otel()
    client, fx = replaying("openai/plain_text", otel)
    async with client:
        async with client.stream(fx.model, fx.request.messages, **options(fx)) as stream:
            async for event in stream:
                if isinstance(event, lb.TextDelta):
                    break
    span = otel.span(f"chat {fx.request.model}")
    assert span.end_time is not None
    assert span.status.status_code == StatusCode.UNSET
    assert span.attributes["llmbridge.stream.ended"] == "closed"
    assert "gen_ai.usage.input_tokens" not in span.attributes  # none came


async def test_content_goes_on_the_span_only_when_asked() -> None:
    otel = Otel(record_content=True)
    client, fx = replaying("openai/plain_text", otel)
    async with client:
        response = await client.complete(fx.model, fx.request.messages, **options(fx))
    attrs = otel.span(f"chat {fx.request.model}").attributes
    sent = json.loads(attrs["gen_ai.input.messages"])
    assert sent[-1]["role"] == "user" and sent[-1]["parts"][0]["type"] == "text"
    (answer,) = json.loads(attrs["gen_ai.output.messages"])
    assert answer["parts"] == [{"type": "text", "content": response.text}]
    assert answer["finish_reason"] == "stop"


FINAL = (
    b'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,'
    b'"delta":{"content":"Cold in Oslo."},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
)


async def test_the_tool_loop_adds_an_execute_tool_span_per_call() -> None:
    calls = load_fixture(FIXTURES / "openai" / "parallel_tool_calls")
    bodies = [calls.body, FINAL]
    otel = Otel()

    def answer(request: httpx.Request) -> httpx.Response:
        body = bodies.pop(0)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    def get_weather(city: str, unit: str = "celsius") -> str:
        """Weather."""
        raise RuntimeError("no weather today")

    def get_time(city: str) -> str:
        """Time."""
        return "noon"

    async with lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(answer)),
        providers={"openai": {"api_key": "k"}},
        telemetry=otel.config,
    ) as client:
        loop = client.run(calls.model, calls.request.messages, tools=[get_weather, get_time])
        events = [event async for event in loop]
    assert loop.stop_reason == "final"
    results = [e for e in events if e.type == "tool_result"]
    spans = [s for s in otel.spans.get_finished_spans() if s.name.startswith("execute_tool ")]
    assert sorted(s.name for s in spans) == [
        "execute_tool get_time",
        "execute_tool get_weather",
        "execute_tool get_weather",
    ]
    assert len(results) == 3
    for span in spans:
        attrs = span.attributes
        assert attrs["gen_ai.operation.name"] == "execute_tool"
        assert attrs["gen_ai.tool.call.id"] in {r.id for r in results}
        failed = attrs["gen_ai.tool.name"] == "get_weather"
        assert span.status.status_code == (StatusCode.ERROR if failed else StatusCode.UNSET)
        assert attrs.get("error.type") == ("RuntimeError" if failed else None)
    chats = [s for s in otel.spans.get_finished_spans() if s.name.startswith("chat ")]
    assert len(chats) == 2


async def test_the_cost_of_a_response_and_on_its_span() -> None:
    pytest.importorskip("genai_prices")
    from genai_prices import Usage, calc_price

    otel = Otel()
    client, fx = replaying("openai/plain_text", otel)
    async with client:
        response = await client.complete(fx.model, fx.request.messages, **options(fx))
    assert response.provider == "openai" and response.model is not None
    expected = calc_price(
        Usage(input_tokens=24, output_tokens=11), response.model, provider_id="openai"
    )
    assert response.cost == Decimal(expected.total_price) > 0
    span = otel.span(f"chat {fx.request.model}")
    assert span.attributes["gen_ai.usage.cost"] == pytest.approx(float(expected.total_price))
    local = lb.ChatResponse(
        message=lb.ChatMessage.assistant("hi"),
        usage=response.usage,
        model="gemma-3-270m",
        provider="llamacpp",
    )
    assert local.cost is None  # a self-hosted server bills nothing we know of


def test_off_means_opentelemetry_is_never_imported() -> None:
    code = (
        "import sys, anyio, httpx, llmbridge as lb\n"
        "from llmbridge.testing import ReplayTransport, load_fixture\n"
        f"fx = load_fixture({str(FIXTURES / 'openai' / 'plain_text')!r})\n"
        "async def main():\n"
        "    async with lb.Client(http_client=httpx.AsyncClient(transport=ReplayTransport(fx)),\n"
        "                         providers={'openai': {'api_key': 'k'}}) as c:\n"
        "        provider, _ = c.resolve(fx.model)\n"
        "        [e async for e in c.stream_request(provider, fx.request)]\n"
        "anyio.run(main)\n"
        "print(sorted(m for m in sys.modules if m.startswith(('opentelemetry', 'genai_prices'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_every_attribute_and_metric_name_is_the_conventions() -> None:
    attributes = pytest.importorskip(
        "opentelemetry.semconv._incubating.attributes.gen_ai_attributes"
    )
    server = pytest.importorskip("opentelemetry.semconv.attributes.server_attributes")
    error = pytest.importorskip("opentelemetry.semconv.attributes.error_attributes")
    gen_ai_metrics = pytest.importorskip("opentelemetry.semconv._incubating.metrics.gen_ai_metrics")
    from llmbridge.telemetry import otel

    source = Path(otel.__file__).read_text()
    import re

    found = re.findall(r'"((?:gen_ai|server|error)\.[a-z_.]+)"', source)
    used = {name for name in found if not name.endswith(".")}
    known = {
        value
        for module in (attributes, server, error, gen_ai_metrics)
        for name, value in vars(module).items()
        if name.isupper() and isinstance(value, str)
    }
    not_in_conventions = used - known
    assert not_in_conventions == {"gen_ai.usage.cost"}  # no convention for it yet
    values = {v.value for v in attributes.GenAiProviderNameValues}
    assert set(otel.PROVIDER_NAMES.values()) <= values


async def test_a_cancelled_stream_ends_its_span_without_error() -> None:
    import anyio

    from tests.fakes import ChunkedBody

    fx = load_fixture(FIXTURES / "openai" / "plain_text")
    body = ChunkedBody([fx.body[: fx.body.index(b"\n\n") + 2], b""], hang_after=1)

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=body)

    otel = Otel()
    async with lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(answer)),
        providers={"openai": {"api_key": "k"}},
        telemetry=otel.config,
    ) as client:
        seen = []
        with anyio.move_on_after(0.2) as scope:
            async for event in client.stream(fx.model, fx.request.messages):
                seen.append(event)
    assert scope.cancelled_caught and seen  # the first event came, then the server hung
    span = otel.span(f"chat {fx.request.model}")
    assert span.status.status_code == StatusCode.UNSET
    assert span.attributes["llmbridge.stream.ended"] == "closed"
    (first,) = otel.points("gen_ai.client.operation.time_to_first_chunk")
    assert first.sum < 0.2
