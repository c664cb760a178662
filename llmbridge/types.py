"""The shared request models, in one place for apps: messages and their parts, tool specs,
tool choice, the request itself.

Rules: this module only re-exports. The shapes live on the ground floor, in
``llmbridge.messages`` (content parts, ``ChatMessage``) and ``llmbridge.request`` (``ToolSpec``,
``ToolChoice``, ``ResponseFormat``, ``ReasoningConfig``, ``ChatRequest``); neither imports
``llmbridge.tools``. Modules inside ``llmbridge.tools`` import those two directly, never this
one, so the tools package never reaches back into itself through here.
"""

from __future__ import annotations

from .messages import (
    ApprovalResponse,
    AudioPart,
    CachePoint,
    ChatMessage,
    ContentPart,
    DocumentPart,
    ImagePart,
    RawPart,
    ReasoningPart,
    Role,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from .request import (
    ChatRequest,
    FormatMode,
    ReasoningConfig,
    ResponseFormat,
    ToolChoice,
    ToolMode,
    ToolSpec,
)

__all__ = [
    "ApprovalResponse",
    "AudioPart",
    "CachePoint",
    "ChatMessage",
    "ChatRequest",
    "ContentPart",
    "DocumentPart",
    "FormatMode",
    "ImagePart",
    "RawPart",
    "ReasoningConfig",
    "ReasoningPart",
    "ResponseFormat",
    "Role",
    "TextPart",
    "ToolCallPart",
    "ToolChoice",
    "ToolMode",
    "ToolResultPart",
    "ToolSpec",
]
