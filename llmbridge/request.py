"""What the app asks for: tool choice, response format, reasoning, ``ChatRequest``.

Rules: these are plain data on the ground floor (they import only ``llmbridge.messages``,
``llmbridge.parts``, ``llmbridge.hosted`` (the provider-run tool specs),
``llmbridge.compaction`` (the compaction spec) and ``llmbridge.tool_spec``). ``ToolSpec`` and
what a spec keeps beside it (``ToolBinding``) live in ``llmbridge.tool_spec`` and are
re-exported here; their builders, schemas and argument validation live in
``llmbridge.specs``, loaded through function-local imports only when a spec is built from a
function, model or schema, or validates arguments.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from pydantic import (
    ConfigDict,
    Field,
    PrivateAttr,
    model_validator,
)

from .compaction import Compaction
from .hosted import HostedTool
from .messages import ChatMessage
from .parts import CachePoint, _Model
from .tool_spec import CUSTOM_INPUT as CUSTOM_INPUT
from .tool_spec import TOOL_NAME_PATTERN as TOOL_NAME_PATTERN
from .tool_spec import CustomToolFormat as CustomToolFormat
from .tool_spec import ToolBinding as ToolBinding
from .tool_spec import ToolSpec as ToolSpec
from .tool_spec import custom_parameters as custom_parameters

__all__ = [
    "ChatRequest",
    "FormatMode",
    "ReasoningConfig",
    "ResponseFormat",
    "ToolChoice",
    "ToolMode",
]

ToolMode: TypeAlias = Literal["auto", "native", "prompt"]
FormatMode: TypeAlias = Literal["auto", "native", "prompt"]
"""How a ``response_format`` is asked for: the API's JSON mode, the prompt, or ``auto``
(the API's when it enforces schemas, else the prompt too; ``llmbridge.structured.prompt``)."""


class ToolChoice(_Model):
    """How the model may use tools: ``auto``, ``none``, ``required`` or one named ``tool``."""

    mode: Literal["auto", "none", "required", "tool"] = "auto"
    name: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, data: Any) -> Any:
        if isinstance(data, str):
            return (
                {"mode": data}
                if data in ("auto", "none", "required")
                else {"mode": "tool", "name": data}
            )
        return data

    @model_validator(mode="after")
    def _named(self) -> ToolChoice:
        if (self.mode == "tool") != (self.name is not None):
            raise ValueError("ToolChoice(mode='tool') needs name=, and only that mode takes one")
        return self

    @classmethod
    def tool(cls, name: str) -> ToolChoice:
        return cls(mode="tool", name=name)


class ResponseFormat(_Model):
    """Structured output: the reply must be JSON matching ``json_schema``."""

    name: str = "response"
    json_schema: dict[str, Any] = Field(alias="schema")
    strict: bool = True

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)
    _target: Any = PrivateAttr(default=None)
    """The model class or ``TypeAdapter`` replies are validated with (``None``: plain JSON)."""

    @classmethod
    def json_object(cls) -> ResponseFormat:
        """Any JSON object (OpenAI's "JSON mode"): ``response_format="json"`` or
        ``{"type": "json_object"}``. Sent as the API's JSON mode where it has one."""
        return cls(name="json_object", schema={"type": "object"}, strict=False)

    @property
    def any_object(self) -> bool:
        """Whether this asks for any JSON object, no schema (what ``json_object()`` builds:
        that name and schema, not strict; a strict ``{"type": "object"}`` stays a schema)."""
        return (
            self.name == "json_object"
            and self.json_schema == {"type": "object"}
            and not self.strict
            and self._target is None
        )


class ReasoningConfig(_Model):
    """Ask for reasoning: an effort level, a token budget, or both (each provider maps it)."""

    effort: Literal["minimal", "low", "medium", "high"] | None = None
    budget_tokens: int | None = None
    include_thoughts: bool = True
    """Stream reasoning text (summaries where that is all the provider gives)."""


class ChatRequest(_Model):
    """Everything an encoder needs to build one provider request."""

    model: str
    """The provider's model name (without the ``provider:`` prefix)."""
    messages: list[ChatMessage]
    tools: list[ToolSpec] = Field(default_factory=list)
    hosted_tools: list[HostedTool] = Field(default_factory=list)
    """Tools the provider runs itself (``llmbridge.hosted``: web search, code execution, ...)."""
    tool_choice: ToolChoice | None = None
    tool_mode: ToolMode = "auto"
    parallel_tool_calls: bool | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    top_p: float | None = None
    stop: list[str] | None = None
    seed: int | None = None
    """Sampling seed, for repeatable output where the provider offers it."""
    top_k: int | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    response_format: ResponseFormat | None = None
    format_mode: FormatMode = "auto"
    reasoning: ReasoningConfig | None = None
    tools_cache_point: CachePoint | None = None
    """Cache the tool definitions too (a ``CachePoint`` given in ``tools=``)."""
    background: bool | None = None
    """``True``: run the response in the background on the server, which keeps it (OpenAI
    Responses background mode): a stream that breaks is resumed (docs/long-running.md).
    Providers without it refuse it before sending (``ConfigurationError``). ``None`` (left
    out of recorded fixtures) and ``False``: an ordinary response."""
    stream: bool | None = None
    """``False``: the provider's whole (non-streaming) request, its answer read whole and
    decoded into the same events (docs/whole-responses.md); a provider without one refuses it
    before sending (``ConfigurationError``). ``None`` (left out of recorded fixtures) and
    ``True``: streamed."""
    compaction: Compaction | None = None
    """Server-side compaction, where the provider has it (``llmbridge.compaction``)."""
    extra: dict[str, Any] = Field(default_factory=dict)
    """Provider-specific body parameters, merged into the request body as given."""

    @model_validator(mode="before")
    @classmethod
    def _coerce(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("stop"), str):
            data = {**data, "stop": [data["stop"]]}
        return data
