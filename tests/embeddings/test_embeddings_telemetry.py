"""OpenTelemetry GenAI spans of ``embed`` and ``rerank``: ``gen_ai.operation.name =
embeddings``, the model, dimensions and input tokens; an error ends the span with ERROR."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import llmbridge as lb

sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)
from opentelemetry.trace import StatusCode  # noqa: E402

pytestmark = pytest.mark.anyio


def client_with(answer: Any, spans: InMemorySpanExporter, status: int = 200) -> lb.Client:
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    return lb.Client(
        http_client=httpx.AsyncClient(
            transport=httpx.MockTransport(lambda r: httpx.Response(status, json=answer))
        ),
        providers={"cohere": {"api_key": "k"}},
        retry=lb.RetryPolicy(max_attempts=1),
        telemetry=lb.Telemetry(tracer_provider=provider),
    )


async def test_an_embedding_call_is_one_embeddings_span() -> None:
    spans = InMemorySpanExporter()
    answer = {
        "embeddings": {"float": [[0.5, 0.25, 1.0]]},
        "meta": {"billed_units": {"input_tokens": 3}},
    }
    async with client_with(answer, spans) as client:
        await client.embed("cohere:embed-v4.0", "hello")
    (span,) = spans.get_finished_spans()
    assert span.name == "embeddings embed-v4.0"
    attrs = dict(span.attributes or {})
    assert attrs["gen_ai.operation.name"] == "embeddings"
    assert attrs["gen_ai.provider.name"] == "cohere"
    assert attrs["gen_ai.embeddings.dimension.count"] == 3
    assert attrs["gen_ai.usage.input_tokens"] == 3
    names = pytest.importorskip("opentelemetry.semconv._incubating.attributes.gen_ai_attributes")
    assert names.GenAiOperationNameValues.EMBEDDINGS.value == "embeddings"
    assert names.GEN_AI_EMBEDDINGS_DIMENSION_COUNT in attrs


async def test_a_failed_call_ends_its_span_with_the_error() -> None:
    spans = InMemorySpanExporter()
    async with client_with({"message": "invalid"}, spans, status=400) as client:
        with pytest.raises(lb.APIError):
            await client.rerank("cohere:rerank-v3.5", "q", ["a"])
    (span,) = spans.get_finished_spans()
    assert span.name == "rerank rerank-v3.5" and span.status.status_code == StatusCode.ERROR
    assert dict(span.attributes or {})["error.type"] == "InvalidRequestError"
