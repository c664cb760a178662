"""OpenTelemetry GenAI spans of ``embed``, ``embed_many`` (a span a window of requests) and
``rerank``: ``gen_ai.operation.name = embeddings``, the model, dimensions and input tokens; an
error ends the span with ERROR."""

from __future__ import annotations

from typing import Any

import httpx
import orjson
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
    """A Cohere client with telemetry on; ``answer``: a body, or a function of the request."""
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    handler = answer if callable(answer) else (lambda r: httpx.Response(status, json=answer))
    return lb.Client(
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)),
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


async def test_embed_many_makes_one_embeddings_span_a_window() -> None:
    spans = InMemorySpanExporter()

    def answer(request: httpx.Request) -> httpx.Response:
        texts = orjson.loads(request.content)["texts"]
        body = {
            "embeddings": {"float": [[0.5, 0.25]] * len(texts)},
            "meta": {"billed_units": {"input_tokens": len(texts)}},
        }
        return httpx.Response(200, json=body)

    async with client_with(answer, spans) as client:
        got = [
            i
            async for i, _ in client.embed_many(
                "cohere:embed-v4.0", map(str, range(200)), max_concurrency=1
            )
        ]
    assert got == list(range(200))
    windows = spans.get_finished_spans()  # 96 inputs a window with max_concurrency=1
    assert [s.name for s in windows] == ["embeddings embed-v4.0"] * 3
    tokens = [dict(s.attributes or {})["gen_ai.usage.input_tokens"] for s in windows]
    assert tokens == [96, 96, 8]


async def test_a_failed_call_ends_its_span_with_the_error() -> None:
    spans = InMemorySpanExporter()
    async with client_with({"message": "invalid"}, spans, status=400) as client:
        with pytest.raises(lb.APIError):
            await client.rerank("cohere:rerank-v3.5", "q", ["a"])
    (span,) = spans.get_finished_spans()
    assert span.name == "rerank rerank-v3.5" and span.status.status_code == StatusCode.ERROR
    assert dict(span.attributes or {})["error.type"] == "InvalidRequestError"
