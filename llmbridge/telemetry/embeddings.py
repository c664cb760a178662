"""GenAI spans of embedding and rerank calls: ``embeddings {model}`` (and ``rerank {model}``).

Rules: one CLIENT span per call (its pieces and retries inside), with
``gen_ai.operation.name`` (``embeddings``; ``rerank``, which the conventions do not name yet),
``gen_ai.provider.name``, ``gen_ai.request.model``, ``gen_ai.response.model``,
``gen_ai.embeddings.dimension.count``, ``gen_ai.usage.input_tokens`` (and the
``gen_ai.client.token.usage`` / ``operation.duration`` histograms, as chat's); an error ends
the span with status ERROR and ``error.type``. Telemetry never breaks a call: a failure in here
is logged and swallowed.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable
from typing import Any, TypeVar

from opentelemetry.trace import SpanKind, Status, StatusCode

from . import Telemetry
from .otel import PROVIDER_NAMES, instruments

__all__ = ["traced_call"]

log = logging.getLogger("llmbridge")
T = TypeVar("T")


async def traced_call(
    config: Telemetry, *, operation: str, provider: str, model: str, work: Awaitable[T]
) -> T:
    """``await work`` inside an ``{operation} {model}`` span."""
    attrs: dict[str, Any] = {
        "gen_ai.operation.name": operation,
        "gen_ai.provider.name": PROVIDER_NAMES.get(provider, provider),
        "gen_ai.request.model": model,
    }
    span: Any = None
    try:
        inst = instruments(config)
        span = inst.tracer.start_span(
            f"{operation} {model}", kind=SpanKind.CLIENT, attributes=attrs
        )
    except Exception:
        log.exception("llmbridge: could not start the telemetry span")
    start = time.perf_counter()
    try:
        result = await work
    except BaseException as exc:
        _end(config, span, attrs, start, result=None, error=exc)
        raise
    _end(config, span, attrs, start, result=result, error=None)
    return result


def _end(
    config: Telemetry,
    span: Any,
    attrs: dict[str, Any],
    start: float,
    *,
    result: Any,
    error: BaseException | None,
) -> None:
    try:
        inst = instruments(config)
        if error is not None:
            attrs["error.type"] = type(error).__name__
        inst.duration.record(time.perf_counter() - start, dict(attrs))
        usage = getattr(result, "usage", None)
        if usage is not None:
            inst.tokens.record(usage.input_tokens, {**attrs, "gen_ai.token.type": "input"})
        if span is None:
            return
        if result is not None:
            if getattr(result, "model", None):
                attrs["gen_ai.response.model"] = result.model
            if getattr(result, "dimensions", None):
                attrs["gen_ai.embeddings.dimension.count"] = result.dimensions
            if usage is not None:
                attrs["gen_ai.usage.input_tokens"] = usage.input_tokens
        span.set_attributes(attrs)
        if error is not None:
            span.set_status(Status(StatusCode.ERROR, str(error)[:500]))
        span.end()
    except Exception:
        log.exception("llmbridge: could not end the telemetry span")
