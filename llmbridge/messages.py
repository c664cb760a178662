"""The conversation's shapes: ``ChatMessage`` and ``ChatResponse`` (content parts: ``llmbridge.parts``,
re-exported here).

Rules: these are the shapes provider encoders read and the accumulator builds. Provider-only
data rides in explicit ``provider_data`` fields (never widened shared fields), tagged with the
provider that made it, so a conversation round-trips to the same provider and other providers
can skip it. This module sits on the ground floor: it imports only ``llmbridge.response_data``
(``FinishReason``, ``Usage``, what a response keeps) and ``llmbridge.cost`` (a leaf that
prices token counts), so ``errors``, ``events`` and ``tools`` can name these shapes without an
import circle. ``llmbridge.types`` re-exports the message names.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any, Generic, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, model_validator
from typing_extensions import TypeVar

from .parts import ApprovalResponse as ApprovalResponse
from .parts import AudioPart as AudioPart
from .parts import CachePoint as CachePoint
from .parts import ContentPart as ContentPart
from .parts import DocumentPart as DocumentPart
from .parts import ImagePart as ImagePart
from .parts import RawPart as RawPart
from .parts import ReasoningPart as ReasoningPart
from .parts import TextPart as TextPart
from .parts import ToolCallPart as ToolCallPart
from .parts import ToolResultPart as ToolResultPart
from .parts import UserPart as UserPart
from .parts import _Model
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
    "ChatMessage",
    "ChatResponse",
    "Role",
]

Role: TypeAlias = Literal["system", "user", "assistant", "tool"]


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
