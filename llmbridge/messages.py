"""The conversation's shapes: content parts, ``ChatMessage``, and ``ChatResponse``.

Rules: these are the shapes provider encoders read and the accumulator builds. Provider-only
data rides in explicit ``provider_data`` fields (never widened shared fields), tagged with the
provider that made it, so a conversation round-trips to the same provider and other providers
can skip it. This module sits on the ground floor: it imports only ``llmbridge.response_data``
(``FinishReason``, ``Usage``, what a response keeps) and ``llmbridge.cost`` (a leaf that
prices token counts), so ``errors``, ``events`` and ``tools`` can name these shapes without an
import circle. ``llmbridge.types`` re-exports the message names.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from decimal import Decimal
from typing import Annotated, Any, ClassVar, Generic, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, model_validator
from typing_extensions import TypeVar

from .response_data import (
    ApprovalRequest,
    Citation,
    CodeOutput,
    FinishReason,
    GeneratedImage,
    RateLimit,
    ToolSearchCall,
    Usage,
)

__all__ = [
    "ApprovalResponse",
    "AudioPart",
    "CachePoint",
    "ChatMessage",
    "ChatResponse",
    "ContentPart",
    "DocumentPart",
    "ImagePart",
    "RawPart",
    "ReasoningPart",
    "Role",
    "TextPart",
    "ToolCallPart",
    "ToolResultPart",
    "UserPart",
]

Role: TypeAlias = Literal["system", "user", "assistant", "tool"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False, defer_build=True)


class TextPart(_Model):
    type: Literal["text"] = "text"
    text: str
    provider_data: dict[str, Any] | None = None
    """E.g. Anthropic ``cache_control`` or citations, a Responses message ``phase``; keyed by
    what the provider sends."""

    @property
    def phase(self) -> str | None:
        """``"commentary"`` or ``"final_answer"`` where the model said which this text is
        (Responses ``message.phase``, kept in ``provider_data["phase"]``); else ``None``."""
        data = self.provider_data
        phase = data.get("phase") if data else None
        return phase if isinstance(phase, str) else None


class _MediaPart(_Model):
    """Media given by URL, or by raw bytes plus media type (images, documents, audio)."""

    model_config = ConfigDict(
        extra="forbid", ser_json_bytes="base64", val_json_bytes="base64", defer_build=True
    )

    url: str | None = None
    data: bytes | None = None
    media_type: str | None = None

    @model_validator(mode="after")
    def _one_source(self) -> _MediaPart:
        kind = type(self).__name__
        if (self.url is None) == (self.data is None):
            raise ValueError(f"{kind}: give exactly one of url= or data=")
        if self.data is not None and not self.media_type:
            raise ValueError(f"{kind}: data= needs media_type= (e.g. {self._EXAMPLE!r})")
        self._check_media_type()
        return self

    _EXAMPLE: ClassVar[str] = "image/png"

    def _check_media_type(self) -> None:
        pass

    @property
    def base64_data(self) -> str:
        return base64.b64encode(self.data or b"").decode("ascii")

    @property
    def data_url(self) -> str:
        """The media as a URL: the given one, or a ``data:`` URL of the bytes."""
        if self.url is not None:
            return self.url
        return f"data:{self.media_type};base64,{self.base64_data}"


class ImagePart(_MediaPart):
    """An image given by URL, or by raw bytes plus an ``image/*`` media type."""

    type: Literal["image"] = "image"

    def _check_media_type(self) -> None:
        if self.media_type and not self.media_type.startswith("image/"):
            raise ValueError(
                f"an ImagePart holds an image, not {self.media_type!r}: use DocumentPart for "
                "PDFs and text files, AudioPart for audio"
            )


class DocumentPart(_MediaPart):
    """A document (PDF, plain text, ...) given by URL, or by bytes plus media type."""

    type: Literal["document"] = "document"
    name: str | None = None
    """A file name or title, where the provider takes one."""
    _EXAMPLE: ClassVar[str] = "application/pdf"


class AudioPart(_MediaPart):
    """Audio given by bytes plus media type (``audio/wav``, ``audio/mpeg``), or by URL."""

    type: Literal["audio"] = "audio"
    _EXAMPLE: ClassVar[str] = "audio/wav"

    def _check_media_type(self) -> None:
        if self.media_type and not self.media_type.startswith("audio/"):
            raise ValueError(f"an AudioPart holds audio, not {self.media_type!r}")


class CachePoint(_Model):
    """Marks the end of a reusable prompt prefix: providers with prompt caching cache the
    request up to here (Anthropic ``cache_control``, OpenAI ``prompt_cache_breakpoint``)."""

    type: Literal["cache_point"] = "cache_point"
    ttl: int | None = None
    """Seconds the cached prefix should live at least, rounded up to a lifetime the provider
    offers (Anthropic 5 min or 1 h, OpenAI 30 min or 12 h); ``None``: the provider's default."""


class ToolCallPart(_Model):
    """A call the assistant made to an app-executed tool."""

    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str | None = None
    """The arguments exactly as the model wrote them (kept for a faithful round trip)."""
    error: str | None = None
    """Why ``raw_arguments`` could not be used (malformed JSON, stream cut inside the call)."""
    provider_data: dict[str, Any] | None = None
    """E.g. Gemini ``thoughtSignature``, whether the id was generated, Responses item id."""


class ToolResultPart(_Model):
    """The app's answer to a tool call."""

    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    name: str | None = None
    content: list[TextPart | ImagePart | DocumentPart] = Field(default_factory=list)
    is_error: bool = False

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.content if isinstance(p, TextPart))


class ReasoningPart(_Model):
    """Model reasoning, kept so it can be sent back (signatures, encrypted or redacted data)."""

    type: Literal["reasoning"] = "reasoning"
    text: str = ""
    signature: str | None = None
    provider: str | None = None
    """Which provider format produced ``signature`` / ``provider_data`` (others drop it)."""
    provider_data: dict[str, Any] | None = None


class RawPart(_Model):
    """Provider-specific content with no shared shape (server tool use and results, ...)."""

    type: Literal["raw"] = "raw"
    provider: str
    data: dict[str, Any]

    @property
    def is_compaction(self) -> bool:
        """A compacted context (a Responses ``compaction`` item or an Anthropic
        ``compaction`` block, both ``{"type": "compaction", ...}``): only ``provider`` can
        read it, and it stands in for the conversation before it."""
        return self.data.get("type") == "compaction"


class ApprovalResponse(_Model):
    """The app's answer to an ``ApprovalRequest`` (a remote MCP tool call the provider holds),
    sent in the next user message: ``ChatMessage.user(ApprovalResponse(req.id, approve=True))``.

    Only the provider that asked reads it (Responses ``mcp_approval_response``); other
    providers' encoders skip it.
    """

    type: Literal["approval_response"] = "approval_response"
    id: str
    """The ``ApprovalRequest.id`` answered."""
    approve: bool
    reason: str | None = None
    """Why, if the app wants the model to know (sent when the provider takes it)."""

    def __init__(self, id: str | None = None, /, **data: Any) -> None:
        if id is not None:
            data["id"] = id
        super().__init__(**data)


ContentPart: TypeAlias = Annotated[
    TextPart
    | ImagePart
    | DocumentPart
    | AudioPart
    | CachePoint
    | ToolCallPart
    | ToolResultPart
    | ReasoningPart
    | RawPart
    | ApprovalResponse,
    Field(discriminator="type"),
]
UserPart: TypeAlias = TextPart | ImagePart | DocumentPart | AudioPart | CachePoint
"""What a user (or system) message holds besides tool results (and ``ApprovalResponse``s)."""


class ChatMessage(_Model):
    """One turn of a conversation."""

    role: Role
    content: list[ContentPart] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _coerce_content(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("content"), str):
            data = {**data, "content": [TextPart(text=data["content"])]}
        return data

    # -- constructors -------------------------------------------------------------------
    @classmethod
    def system(cls, text: str, *more: str | TextPart | CachePoint) -> ChatMessage:
        """A system message; a ``CachePoint`` after the text marks it for prompt caching."""
        return cls(role="system", content=[TextPart(text=text), *(_as_part(m) for m in more)])

    @classmethod
    def user(cls, *content: str | UserPart | ApprovalResponse) -> ChatMessage:
        return cls(role="user", content=[_as_part(c) for c in content])

    @classmethod
    def assistant(
        cls,
        text: str | None = None,
        *,
        tool_calls: list[ToolCallPart] | None = None,
        reasoning: list[ReasoningPart] | None = None,
    ) -> ChatMessage:
        parts: list[ContentPart] = [*(reasoning or [])]
        if text:
            parts.append(TextPart(text=text))
        parts.extend(tool_calls or [])
        return cls(role="assistant", content=parts)

    @classmethod
    def tool_result(
        cls,
        tool_call_id: str,
        content: str | Sequence[TextPart | ImagePart | DocumentPart],
        *,
        name: str | None = None,
        is_error: bool = False,
    ) -> ChatMessage:
        parts: list[TextPart | ImagePart | DocumentPart] = (
            [TextPart(text=content)] if isinstance(content, str) else list(content)
        )
        result = ToolResultPart(
            tool_call_id=tool_call_id, name=name, content=parts, is_error=is_error
        )
        return cls(role="tool", content=[result])

    # -- views --------------------------------------------------------------------------
    @property
    def text(self) -> str:
        return "".join(p.text for p in self.content if isinstance(p, TextPart))

    @property
    def final_text(self) -> str:
        """The final answer's text: the text parts of phase ``final_answer`` when the model
        marks phases (commentary left out; ``""`` if it has not answered yet), else ``text``."""
        texts = [p for p in self.content if isinstance(p, TextPart)]
        if not any(p.phase is not None for p in texts):
            return "".join(p.text for p in texts)
        return "".join(p.text for p in texts if p.phase == "final_answer")

    @property
    def compactions(self) -> list[RawPart]:
        """The compacted contexts this turn holds (``RawPart.is_compaction``), in order."""
        return [p for p in self.content if isinstance(p, RawPart) and p.is_compaction]

    @property
    def reasoning(self) -> str:
        return "".join(p.text for p in self.content if isinstance(p, ReasoningPart))

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        return [p for p in self.content if isinstance(p, ToolCallPart)]

    @property
    def tool_results(self) -> list[ToolResultPart]:
        return [p for p in self.content if isinstance(p, ToolResultPart)]


def _as_part(content: str | UserPart | ApprovalResponse) -> UserPart | ApprovalResponse:
    return TextPart(text=content) if isinstance(content, str) else content


ParsedT = TypeVar("ParsedT", default=Any)
"""What ``ChatResponse.parsed`` holds (``Any`` unless a ``response_format`` type says)."""


class ChatResponse(BaseModel, Generic[ParsedT]):
    """A whole (or, on errors, partial) assistant response.

    Generic in ``parsed`` for type checkers only: ``complete(..., response_format=Recipe)`` is
    typed ``ChatResponse[Recipe]``; plain ``ChatResponse`` is ``ChatResponse[Any]``. Responses
    are always built as plain ``ChatResponse`` (never a parametrized class), so pickling,
    equality and ``repr`` are those of one class."""

    model_config = ConfigDict(defer_build=True)

    message: ChatMessage
    """The assistant turn, ready to append to the conversation (tool calls included)."""
    finish_reason: FinishReason | None = None
    """``None`` only for a partial response whose stream never finished."""
    raw_finish_reason: str | None = None
    usage: Usage | None = None
    response_id: str | None = None
    model: str | None = None
    warnings: list[str] = Field(default_factory=list)
    request_id: str | None = None
    """The provider's id of the HTTP request (``StreamStart.request_id``)."""
    rate_limit: RateLimit | None = None
    """The response's rate-limit headers, read (``StreamStart.rate_limit``)."""
    parsed: ParsedT = None  # type: ignore[assignment]  # None until a response_format fills it
    """The validated structured output (``complete(..., response_format=...)``): a model
    instance for a model class, else the JSON value."""
    provider_data: dict[str, Any] | None = None
    provider: str | None = None
    """The llmbridge provider that answered (``openai``, ``anthropic``...), where known."""
    citations: list[Citation] = Field(default_factory=list)
    """Sources the answer cites (``Citation`` events, in stream order)."""
    approval_requests: list[ApprovalRequest] = Field(default_factory=list)
    """Remote MCP calls waiting for the app's ``ApprovalResponse`` (next user message)."""
    code_outputs: list[CodeOutput] = Field(default_factory=list)
    """What provider-run code printed and made, in order."""
    images: list[GeneratedImage] = Field(default_factory=list)
    """Images provider-run tools made, in order."""
    tool_searches: list[ToolSearchCall] = Field(default_factory=list)
    """Tool searches of this turn (deferred tools loaded), one per search, in order."""

    @property
    def text(self) -> str:
        return self.message.text

    @property
    def final_text(self) -> str:
        """The final answer without the model's commentary (``ChatMessage.final_text``)."""
        return self.message.final_text

    @property
    def compactions(self) -> list[RawPart]:
        """Compacted contexts the provider returned (``ChatMessage.compactions``)."""
        return self.message.compactions

    @property
    def cost(self) -> Decimal | None:
        """What this response cost in USD, from ``usage`` and genai-prices' table (the
        ``llmbridge[prices]`` extra); ``None`` without it, or for an unknown model or provider."""
        from .cost import cost_of

        return cost_of(self.usage, model=self.model, provider=self.provider)

    @property
    def reasoning(self) -> str:
        return self.message.reasoning

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        return self.message.tool_calls
