"""The shared request models under one name for apps: messages and their parts, tool specs,
tool choice, the request itself (``from llmbridge.types import ChatMessage, TextPart``).

Rules: this module defines nothing, so its ``__all__`` is empty (one home per public name,
issue 42): each name lives in its defining module (``llmbridge.parts``, ``llmbridge.messages``,
``llmbridge.tool_spec``, ``llmbridge.request``) and is exported by ``llmbridge``; here it stays
importable as an attribute (``import X as X``, which ``mypy --strict`` accepts). Code inside
``llmbridge`` imports the defining modules, never this one.
"""

from __future__ import annotations

from .messages import ChatMessage as ChatMessage
from .messages import Role as Role
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
from .request import ChatRequest as ChatRequest
from .request import FormatMode as FormatMode
from .request import ReasoningConfig as ReasoningConfig
from .request import ResponseFormat as ResponseFormat
from .request import ToolChoice as ToolChoice
from .request import ToolMode as ToolMode
from .tool_spec import ToolSpec as ToolSpec

__all__: list[str] = []
