"""GenAI spans and metrics, as the OpenTelemetry semantic conventions name them.

Names follow the GenAI conventions as published in ``opentelemetry-semantic-conventions``
(a test checks every name against that package): a ``chat {model}`` CLIENT span per stream
with ``gen_ai.operation.name``, ``gen_ai.provider.name``, ``gen_ai.request.*``,
``gen_ai.response.id`` / ``model`` / ``finish_reasons``, ``gen_ai.usage.*``, ``server.address``
/ ``port`` and ``error.type``; an ``execute_tool {name}`` INTERNAL span per tool call; the
``gen_ai.client.token.usage``, ``gen_ai.client.operation.duration`` and
``gen_ai.client.operation.time_to_first_chunk`` histograms.

Rules: spans are started without becoming the current span (a stream is an async generator,
whose context is not the caller's); an error ends the span with status ERROR, its
``error.type`` (the exception's class) and the usage the partial response had; a stream the
app closes early, or a cancelled one, ends the span without error and says so in
``llmbridge.stream.ended``. Anything that fails in here is logged and swallowed. Content
(``record_content=True``) is scrubbed of the request's credentials (secret-named headers and
query parameters, as recordings are): a server that echoes the key into the model's text
does not put it on the span.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import time
from collections.abc import Awaitable, Iterable, Iterator, Sequence
from typing import Any
from urllib.parse import urlsplit

import orjson
from opentelemetry import metrics, trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from .._version import __version__
from ..cost import cost_of
from ..errors import LLMBridgeError
from ..events import Finish, Usage
from ..messages import ChatMessage, ChatResponse
from ..parts import ReasoningPart, TextPart, ToolCallPart, ToolResultPart
from ..request import ChatRequest
from ..secrets import Scrub, scrub_json, secret_scrubber
from ..stream.record import Record
from . import Telemetry

__all__ = ["ChatObserver", "Instruments", "instruments", "tool_span", "traced_tool_call"]

log = logging.getLogger("llmbridge")

PROVIDER_NAMES = {
    "openai": "openai",
    "openai-responses": "openai",
    "azure": "azure.ai.openai",
    "anthropic": "anthropic",
    "gemini": "gcp.gemini",
    "vertex": "gcp.vertex_ai",
    "bedrock": "aws.bedrock",
    "azure-responses": "azure.ai.openai",
    "bedrock-mantle": "aws.bedrock",
    "bedrock-mantle-responses": "aws.bedrock",
    "anthropic-bedrock": "aws.bedrock",
    "anthropic-bedrock-mantle": "aws.bedrock",
    "anthropic-vertex": "gcp.vertex_ai",
    "anthropic-foundry": "anthropic",
    "anthropic-aws": "anthropic",
    "anthropic-google-cloud": "anthropic",
    "deepseek": "deepseek",
    "groq": "groq",
    "mistral": "mistral_ai",
    "xai": "x_ai",
}
"""llmbridge provider → ``gen_ai.provider.name`` where the conventions list one; the others
are named as llmbridge names them (``ollama``, ``llamacpp``, ``openrouter``...). Claude's clouds
take the name the ``anthropic`` SDK's client for that cloud reports (``_gen_ai_provider_name``)."""

_REQUEST_ATTRIBUTES = (
    ("max_tokens", "gen_ai.request.max_tokens"),
    ("temperature", "gen_ai.request.temperature"),
    ("top_p", "gen_ai.request.top_p"),
    ("top_k", "gen_ai.request.top_k"),
    ("seed", "gen_ai.request.seed"),
    ("presence_penalty", "gen_ai.request.presence_penalty"),
    ("frequency_penalty", "gen_ai.request.frequency_penalty"),
)
_TOKEN_BUCKETS = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304)
_SECOND_BUCKETS = (0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48)


class Instruments:
    """The tracer and the three histograms of one ``Telemetry`` setting."""

    def __init__(self, config: Telemetry) -> None:
        self.config = config
        tracers = config.tracer_provider or trace.get_tracer_provider()
        meters = config.meter_provider or metrics.get_meter_provider()
        self.tracer = tracers.get_tracer("llmbridge", __version__)
        meter = meters.get_meter("llmbridge", __version__)
        self.tokens = meter.create_histogram(
            "gen_ai.client.token.usage",
            unit="{token}",
            description="Number of input and output tokens used",
            explicit_bucket_boundaries_advisory=_TOKEN_BUCKETS,
        )
        self.duration = meter.create_histogram(
            "gen_ai.client.operation.duration",
            unit="s",
            description="GenAI operation duration",
            explicit_bucket_boundaries_advisory=_SECOND_BUCKETS,
        )
        self.first_chunk = meter.create_histogram(
            "gen_ai.client.operation.time_to_first_chunk",
            unit="s",
            description="Time to receive the first chunk of a streamed response",
            explicit_bucket_boundaries_advisory=_SECOND_BUCKETS,
        )


@functools.lru_cache(maxsize=32)
def instruments(config: Telemetry) -> Instruments:
    """The instruments of ``config``, made once (a bounded cache: clients come and go)."""
    return Instruments(config)


class ChatObserver:
    """One ``chat`` span and its metrics; ``stream_events`` calls ``start`` when the stream
    starts, ``first_event`` at its first event and ``end`` once, however it ends."""

    __slots__ = (
        "_attrs",
        "_first",
        "_inst",
        "_provider",
        "_request",
        "_scrub",
        "_span",
        "_start",
    )

    def __init__(
        self,
        inst: Instruments,
        *,
        provider: str,
        request: ChatRequest,
        url: str,
        secrets: Iterable[str] = (),
    ) -> None:
        self._inst = inst
        self._provider = provider
        self._request = request
        self._scrub: Scrub = secret_scrubber(secrets)
        """Removes the request's credentials from the content put on the span."""
        self._span: Any = None
        self._start = self._first = 0.0
        parts = urlsplit(url)
        self._attrs: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": PROVIDER_NAMES.get(provider, provider),
            "gen_ai.request.model": request.model,
        }
        if parts.hostname:
            self._attrs["server.address"] = parts.hostname
            self._attrs["server.port"] = parts.port or (443 if parts.scheme == "https" else 80)

    def start(self) -> None:
        try:
            self._start = time.perf_counter()
            attrs = dict(self._attrs)
            request = self._request
            for field, name in _REQUEST_ATTRIBUTES:
                value = getattr(request, field)
                if value is not None:
                    attrs[name] = value
            if request.stop:
                attrs["gen_ai.request.stop_sequences"] = list(request.stop)
            if request.response_format is not None:
                attrs["gen_ai.output.type"] = "json"
            if self._inst.config.record_content:
                attrs.update(_input_content(request.messages, self._scrub))
            self._span = self._inst.tracer.start_span(
                f"chat {request.model}", kind=SpanKind.CLIENT, attributes=attrs
            )
        except Exception:  # telemetry never breaks a stream
            log.exception("llmbridge: could not start the telemetry span")

    def first_event(self) -> None:
        self._first = time.perf_counter()

    def end(self, record: Record, error: BaseException | None) -> None:
        try:
            self._end(record, error)
        except Exception:
            log.exception("llmbridge: could not end the telemetry span")

    def _end(self, record: Record, error: BaseException | None) -> None:
        span, inst, now = self._span, self._inst, time.perf_counter()
        attrs = dict(self._attrs)
        start, last = record.ends()
        finish = last if isinstance(last, Finish) else None
        if start is not None and start.model:
            attrs["gen_ai.response.model"] = start.model
        partial = error.partial if isinstance(error, LLMBridgeError) else None
        if not isinstance(partial, ChatResponse):  # a stream's partial (not an embedding's)
            partial = None
        usage = finish.usage if finish is not None else (partial.usage if partial else None)
        failed = error is not None and not _closed(error)
        if failed:
            attrs["error.type"] = type(error).__name__
        self._metrics(dict(attrs), now, usage)  # no response id, usage or cost on metrics
        if span is None:
            return
        span_attrs = attrs
        if start is not None and start.response_id:
            span_attrs["gen_ai.response.id"] = start.response_id
        if finish is not None:
            span_attrs["gen_ai.response.finish_reasons"] = [finish.raw_reason or finish.reason]
        if usage is not None:
            self._usage_attrs(span_attrs, usage)
        if error is not None and _closed(error):
            span_attrs["llmbridge.stream.ended"] = "closed"
        if inst.config.record_content:
            response = partial if partial is not None else record.response() if record else None
            if response is not None:
                output = scrub_json([_output(response)], self._scrub)
                span_attrs["gen_ai.output.messages"] = _json(output)
        span.set_attributes(span_attrs)
        if failed:
            span.set_status(Status(StatusCode.ERROR, str(error)[:500]))
        span.end()

    def _metrics(self, metric: dict[str, Any], now: float, usage: Usage | None) -> None:
        """Duration, time to first chunk and token counts, on the metrics' attributes."""
        inst = self._inst
        inst.duration.record(now - self._start, metric)
        if self._first:
            inst.first_chunk.record(self._first - self._start, metric)
        if usage is not None:
            for kind, count in (("input", usage.input_tokens), ("output", usage.output_tokens)):
                inst.tokens.record(count, {**metric, "gen_ai.token.type": kind})

    def _usage_attrs(self, span_attrs: dict[str, Any], usage: Usage) -> None:
        """The usage on the span, and its cost when the ``prices`` extra prices it."""
        span_attrs.update(_usage(usage))
        if self._inst.config.cost:
            model = span_attrs.get("gen_ai.response.model") or self._request.model
            cost = cost_of(usage, model=model, provider=self._provider)
            if cost is not None:
                span_attrs["gen_ai.usage.cost"] = float(cost)


def _closed(error: BaseException) -> bool:
    """The app closed the stream early, or its task was cancelled: not a failure."""
    if isinstance(error, GeneratorExit):
        return True
    import anyio

    try:
        return isinstance(error, anyio.get_cancelled_exc_class())
    except RuntimeError:  # no running event loop: not a cancellation
        return False


def _usage(usage: Usage) -> dict[str, int]:
    out = {
        "gen_ai.usage.input_tokens": usage.input_tokens,
        "gen_ai.usage.output_tokens": usage.output_tokens,
    }
    if usage.cached_input_tokens:
        out["gen_ai.usage.cache_read.input_tokens"] = usage.cached_input_tokens
    if usage.cache_write_tokens:
        out["gen_ai.usage.cache_creation.input_tokens"] = usage.cache_write_tokens
    if usage.reasoning_tokens:
        out["gen_ai.usage.reasoning.output_tokens"] = usage.reasoning_tokens
    return out


def _json(value: Any) -> str:
    return orjson.dumps(value, default=str).decode()


def _parts(message: ChatMessage) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, TextPart):
            parts.append({"type": "text", "content": part.text})
        elif isinstance(part, ReasoningPart):
            parts.append({"type": "reasoning", "content": part.text})
        elif isinstance(part, ToolCallPart):
            call = {"type": "tool_call", "id": part.id, "name": part.name}
            parts.append({**call, "arguments": part.arguments})
        elif isinstance(part, ToolResultPart):
            response = {"type": "tool_call_response", "id": part.tool_call_id}
            parts.append({**response, "response": part.text})
        else:  # images, documents, audio, provider items: named, never their bytes
            parts.append({"type": part.type})
    return parts


def _input_content(messages: Sequence[ChatMessage], scrub: Scrub) -> dict[str, str]:
    system = [m for m in messages if m.role == "system"]
    others = [{"role": m.role, "parts": _parts(m)} for m in messages if m.role != "system"]
    out = {"gen_ai.input.messages": _json(scrub_json(others, scrub))}
    if system:
        instructions = [p for m in system for p in _parts(m)]
        out["gen_ai.system_instructions"] = _json(scrub_json(instructions, scrub))
    return out


def _output(response: ChatResponse) -> dict[str, Any]:
    message = {"role": "assistant", "parts": _parts(response.message)}
    return {**message, "finish_reason": response.raw_finish_reason or response.finish_reason}


@contextlib.contextmanager
def tool_span(inst: Instruments, call: ToolCallPart) -> Iterator[Any]:
    """An ``execute_tool {name}`` span around running one tool call; the caller marks a
    failed call with ``mark_tool_result``."""
    attrs: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": call.name,
        "gen_ai.tool.call.id": call.id,
        "gen_ai.tool.type": "function",
    }
    if inst.config.record_content:
        attrs["gen_ai.tool.call.arguments"] = _json(call.arguments)
    with inst.tracer.start_as_current_span(
        f"execute_tool {call.name}",
        kind=SpanKind.INTERNAL,
        attributes=attrs,
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        yield span


async def traced_tool_call(config: Telemetry, call: ToolCallPart, run: Awaitable[Any]) -> Any:
    """Await ``run`` (one tool loop call) inside its ``execute_tool`` span."""
    inst = instruments(config)
    with tool_span(inst, call) as span:
        result = await run
        mark_tool_result(inst, span, result)
    return result


def mark_tool_result(inst: Instruments, span: Any, result: Any) -> None:
    """Record a tool loop result on its span: ERROR with ``error.type`` when it failed."""
    try:
        if inst.config.record_content:
            text = "".join(p.text for p in result.message.content if isinstance(p, ToolResultPart))
            span.set_attribute("gen_ai.tool.call.result", text)
        if getattr(result, "is_error", False):
            exc = getattr(result, "exception", None)
            span.set_attribute("error.type", type(exc).__name__ if exc else "tool_error")
            span.set_status(Status(StatusCode.ERROR, str(exc or "tool failed")[:500]))
    except Exception:
        log.exception("llmbridge: could not record a tool result on its span")
