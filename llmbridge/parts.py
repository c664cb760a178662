"""Content parts: what a ``ChatMessage`` holds (text, media, cache points, tool calls and
results, reasoning, provider items, approval answers).

Rules: provider-only data rides in explicit ``provider_data`` fields (never widened shared
fields), tagged with the provider that made it; media parts hold one source (a URL or bytes)
and check their media type; ``ContentPart`` is the union discriminated by ``type``. A ground-floor
leaf: it imports nothing of llmbridge, so ``messages`` (and ``hosted``, for ``_Model``) build on it.
``llmbridge.messages`` re-exports every name.
"""

from __future__ import annotations

import base64
from typing import Annotated, Any, ClassVar, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "ApprovalResponse",
    "AudioPart",
    "CachePoint",
    "ContentPart",
    "DocumentPart",
    "ImagePart",
    "RawPart",
    "ReasoningPart",
    "TextPart",
    "ToolCallPart",
    "ToolResultPart",
    "UserPart",
]


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
