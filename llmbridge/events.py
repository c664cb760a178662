"""Normalized stream events: the contract every provider decoder emits.

Rules this module keeps (see DESIGN.md, "Normalized events"):

* Events are small slotted dataclasses, built once per streamed chunk: no validation, no
  copying. Their ``type`` is a class-level string, so it costs nothing per instance.
* Per tool call: one ``ToolCallStart``, any number of ``ToolCallChunk``, one ``ToolCallEnd``,
  sharing one ``id``; ``"".join(chunk.arguments_delta) == end.raw_arguments``.
* A completed stream ends with exactly one ``Finish``.
* What a response also keeps (``Usage``, ``RateLimit``, ``FinishReason``, ``Citation``,
  ``ApprovalRequest``, ``CodeOutput``, ``GeneratedImage``, ``ToolSearchCall``) is defined a floor down, in
  ``llmbridge.response_data`` (``ChatResponse`` holds them too), and re-exported here.
* Floors: this module stands on ``response_data`` and ``errors`` (a ``ModelSwitch`` carries the
  error that moved the chain on, and ``event_from_dict`` revives it); ``errors`` stands on
  ``messages`` (an error's ``partial``), which stands on ``response_data``. Nothing below
  imports this module back.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeAlias

from .response_data import (
    FINISH_REASONS,
    ApprovalRequest,
    Citation,
    CodeOutput,
    FinishReason,
    GeneratedImage,
    RateLimit,
    ToolSearchCall,
    Usage,
)

if TYPE_CHECKING:
    from .errors import LLMBridgeError

__all__ = [
    "FINISH_REASONS",
    "ApprovalRequest",
    "Citation",
    "CodeOutput",
    "Finish",
    "FinishReason",
    "GeneratedImage",
    "ModelSwitch",
    "PartialObject",
    "ProviderItem",
    "RateLimit",
    "ReasoningDelta",
    "StreamEvent",
    "StreamStart",
    "TextDelta",
    "TextPhase",
    "ToolCallChunk",
    "ToolCallEnd",
    "ToolCallStart",
    "ToolSearchCall",
    "Usage",
    "event_from_dict",
    "event_to_dict",
]


@dataclass(slots=True)
class StreamStart:
    """First event of a stream when the provider names the response (id, model)."""

    type: ClassVar[Literal["stream_start"]] = "stream_start"
    response_id: str | None = None
    model: str | None = None
    warnings: list[str] = field(default_factory=list)
    """Settings the provider could not honour and dropped (never silently)."""
    request_id: str | None = None
    """The provider's id of the HTTP request (its request-id header), for support tickets."""
    rate_limit: RateLimit | None = None
    """The rate-limit headers of the response, where the provider sends them."""
    provider: str | None = None
    """The provider answering, when a fallback chain says so (``None``: the one asked)."""


@dataclass(slots=True)
class TextDelta:
    """A piece of the assistant's visible text."""

    type: ClassVar[Literal["text_delta"]] = "text_delta"
    text: str


@dataclass(slots=True)
class TextPhase:
    """The text that follows (up to the next ``TextPhase``) is one message of this phase:
    ``"commentary"`` (what the model says while it works, e.g. before a tool call) or
    ``"final_answer"`` (Responses ``message.phase``, codex and agentic models). Sent only by
    streams that carry phases, once per message before its text; ``None``: no phase."""

    type: ClassVar[Literal["text_phase"]] = "text_phase"
    phase: str | None = None


@dataclass(slots=True)
class ReasoningDelta:
    """A piece of reasoning ("thinking") text, or opaque data needed to send it back."""

    type: ClassVar[Literal["reasoning_delta"]] = "reasoning_delta"
    text: str
    signature: str | None = None
    """Provider signature over the reasoning block (Anthropic, Gemini thought signatures)."""
    provider_data: dict[str, Any] | None = None
    """Opaque data (redacted thinking, encrypted content, item ids) for the round trip."""


@dataclass(slots=True)
class ToolCallStart:
    """The model starts calling a tool the app executes."""

    type: ClassVar[Literal["tool_call_start"]] = "tool_call_start"
    id: str
    name: str
    index: int
    """Position of the call among this response's tool calls (0-based)."""


@dataclass(slots=True)
class ToolCallChunk:
    """A fragment of a tool call's JSON arguments, raw text as streamed."""

    type: ClassVar[Literal["tool_call_chunk"]] = "tool_call_chunk"
    id: str
    index: int
    arguments_delta: str
    partial_arguments: dict[str, Any] | None = None
    """The arguments so far as a best-effort partial value (``stream(...,
    partial_tool_arguments=True)``; ``None`` otherwise). Never run a tool on them."""


@dataclass(slots=True)
class ToolCallEnd:
    """A tool call closed by the provider, with its arguments parsed."""

    type: ClassVar[Literal["tool_call_end"]] = "tool_call_end"
    id: str
    index: int
    name: str
    arguments: dict[str, Any]
    raw_arguments: str
    error: str | None = None
    """Set when ``raw_arguments`` is not a JSON object: ``arguments`` is then ``{}``."""
    provider_data: dict[str, Any] | None = None
    """Provider data for the round trip (e.g. Gemini ``thoughtSignature``)."""


@dataclass(slots=True)
class ProviderItem:
    """Provider content with no shared shape, kept in stream order so history round-trips.

    For things the provider ran itself (Anthropic server tools and their results, Responses
    built-in tool calls, Gemini code execution): not tool calls for the app, never dropped.
    The accumulator places each one in the assistant message as a ``RawPart``.
    """

    type: ClassVar[Literal["provider_item"]] = "provider_item"
    data: dict[str, Any]
    provider: str | None = None
    """The provider format ``data`` is in; ``None`` means the stream's own provider."""


@dataclass(slots=True)
class PartialObject:
    """The structured reply so far (``stream(..., response_format=...)``), yielded when it changed.

    ``value`` is the best-effort partial JSON value of the text so far: objects and arrays
    closed where the text stops, an unfinished string cut off, a key without its value and an
    unfinished number left out; a new object each time (see ``llmbridge.structured.partial_json``).
    """

    type: ClassVar[Literal["partial_object"]] = "partial_object"
    value: Any


@dataclass(slots=True)
class ModelSwitch:
    """A fallback model takes over after the previous one's events were yielded
    (``stream([...], restart=True)``): discard what was shown; the next model starts afresh."""

    type: ClassVar[Literal["model_switch"]] = "model_switch"
    from_model: str
    """The model that failed (``"provider:model"``)."""
    to_model: str
    """The model whose events follow."""
    error: LLMBridgeError
    """Why ``from_model`` failed (its ``partial`` holds what it had produced)."""


@dataclass(slots=True)
class Finish:
    """The one terminal event of a completed stream."""

    type: ClassVar[Literal["finish"]] = "finish"
    reason: FinishReason
    raw_reason: str | None = None
    usage: Usage | None = None
    provider_data: dict[str, Any] | None = None
    """Provider-specific data with no shared field (server tool blocks, response ids, ...)."""


StreamEvent: TypeAlias = (
    StreamStart
    | TextDelta
    | TextPhase
    | ReasoningDelta
    | ToolCallStart
    | ToolCallChunk
    | ToolCallEnd
    | ProviderItem
    | Citation
    | ApprovalRequest
    | CodeOutput
    | GeneratedImage
    | ToolSearchCall
    | PartialObject
    | ModelSwitch
    | Finish
)

_BY_TYPE: dict[str, type[StreamEvent]] = {
    cls.type: cls
    for cls in (
        StreamStart,
        TextDelta,
        TextPhase,
        ReasoningDelta,
        ToolCallStart,
        ToolCallChunk,
        ToolCallEnd,
        ProviderItem,
        Citation,
        ApprovalRequest,
        CodeOutput,
        GeneratedImage,
        ToolSearchCall,
        PartialObject,
        ModelSwitch,
        Finish,
    )
}


def event_to_dict(event: StreamEvent) -> dict[str, Any]:
    """JSON-ready dict of an event, ``type`` first; ``None`` fields left out."""
    out: dict[str, Any] = {"type": event.type}
    for f in fields(event):
        value = getattr(event, f.name)
        if value is None:
            continue
        if isinstance(value, Usage | RateLimit):
            value = {u.name: getattr(value, u.name) for u in fields(value)}
        elif isinstance(value, BaseException):  # ModelSwitch.error
            value = {"class": type(value).__name__, "message": getattr(value, "message", "")}
        out[f.name] = value
    return out


def event_from_dict(data: dict[str, Any]) -> StreamEvent:
    """Inverse of :func:`event_to_dict`."""
    kwargs = dict(data)
    cls = _BY_TYPE[kwargs.pop("type")]
    usage = kwargs.get("usage")
    if isinstance(usage, dict):
        kwargs["usage"] = Usage(**usage)
    limit = kwargs.get("rate_limit")
    if isinstance(limit, dict):
        kwargs["rate_limit"] = RateLimit(**limit)
    error = kwargs.get("error")
    if isinstance(error, dict):  # ModelSwitch.error: the class by name, with its message
        from . import errors

        kind = getattr(errors, str(error.get("class")), None)
        if not (isinstance(kind, type) and issubclass(kind, errors.LLMBridgeError)):
            kind = errors.LLMBridgeError
        message = str(error.get("message", ""))
        try:
            kwargs["error"] = kind(message)
        except TypeError:  # a class that needs more than a message
            kwargs["error"] = errors.LLMBridgeError(message)
    return cls(**kwargs)
