"""A replayed bedrock: stream is one GenAI span named as the conventions name Bedrock."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

import llmbridge as lb
from llmbridge.testing import ReplayTransport, load_fixture

pytest.importorskip("opentelemetry.sdk")
from opentelemetry.sdk import trace as sdk_trace
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)

pytestmark = pytest.mark.anyio
FIXTURE = Path(__file__).resolve().parents[3] / "fixtures" / "bedrock" / "reasoning_tool_call"


async def test_the_span_names_aws_bedrock_and_counts_cached_input() -> None:
    spans = InMemorySpanExporter()
    tracer = sdk_trace.TracerProvider()
    tracer.add_span_processor(SimpleSpanProcessor(spans))
    fx = load_fixture(FIXTURE)
    client = lb.Client(
        http_client=httpx.AsyncClient(transport=ReplayTransport(fx)),
        providers={"bedrock": {**fx.provider_config, "api_key": "k"}},
        telemetry=lb.Telemetry(tracer_provider=tracer),
    )
    options = fx.request.model_dump(exclude_defaults=True, exclude={"model", "messages"})
    async with client:
        resp = await client.complete(fx.model, fx.request.messages, **options)
    (span,) = [s for s in spans.get_finished_spans() if s.name.startswith("chat ")]
    attrs = dict(span.attributes or {})
    assert attrs["gen_ai.provider.name"] == "aws.bedrock"
    assert attrs["server.address"] == "bedrock-runtime.us-east-1.amazonaws.com"
    assert (
        resp.usage is not None
        and attrs["gen_ai.usage.input_tokens"] == resp.usage.input_tokens == 1231
    )
    assert attrs["gen_ai.response.finish_reasons"] == ("tool_use",)  # the raw reason, as for others
