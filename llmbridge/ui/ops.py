"""The protocol-neutral steps a UI stream is made of: what ``llmbridge.ui.walk`` makes of
llmbridge events, and what ``ai_sdk_chunks`` / ``ag_ui_events`` turn into each protocol's chunks.

Rules: every op is a small frozen slotted dataclass; ids are made by the walker, unique within
one stream; text, reasoning and tool calls are blocks (start, deltas, end) that never overlap
except a tool call's, which may sit inside a step beside others.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

from ..response_data import Usage

__all__ = [
    "DataOut",
    "Failed",
    "FileOut",
    "Op",
    "Raw",
    "ReasoningDeltaOp",
    "ReasoningEnd",
    "ReasoningStart",
    "RunEnd",
    "RunStart",
    "Source",
    "StateOut",
    "StepEnd",
    "StepStart",
    "Switched",
    "TextDeltaOp",
    "TextEnd",
    "TextStart",
    "ToolDelta",
    "ToolInput",
    "ToolOutput",
    "ToolStart",
    "TurnUsage",
]


@dataclass(frozen=True, slots=True)
class RunStart:
    message_id: str


@dataclass(frozen=True, slots=True)
class StepStart:
    number: int


@dataclass(frozen=True, slots=True)
class StepEnd:
    number: int


@dataclass(frozen=True, slots=True)
class TextStart:
    id: str


@dataclass(frozen=True, slots=True)
class TextDeltaOp:
    id: str
    delta: str


@dataclass(frozen=True, slots=True)
class TextEnd:
    id: str


@dataclass(frozen=True, slots=True)
class ReasoningStart:
    id: str


@dataclass(frozen=True, slots=True)
class ReasoningDeltaOp:
    id: str
    delta: str


@dataclass(frozen=True, slots=True)
class ReasoningEnd:
    id: str
    signature: str | None
    provider_data: dict[str, Any] | None
    provider: str | None
    """The provider format that made it (reasoning goes back only to its maker)."""


@dataclass(frozen=True, slots=True)
class ToolStart:
    id: str
    name: str
    parent_id: str
    """The assistant message the call belongs to (AG-UI ``parentMessageId``)."""


@dataclass(frozen=True, slots=True)
class ToolDelta:
    id: str
    delta: str


@dataclass(frozen=True, slots=True)
class ToolInput:
    id: str
    name: str
    arguments: dict[str, Any]
    raw_arguments: str
    error: str | None
    provider_data: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class ToolOutput:
    id: str
    name: str
    output: Any
    """A JSON value: the tool's return value, or the text the model read."""
    text: str
    """The text the model read (the error's text on errors)."""
    is_error: bool
    message_id: str


@dataclass(frozen=True, slots=True)
class Source:
    id: str
    url: str
    title: str | None
    cited_text: str | None


@dataclass(frozen=True, slots=True)
class FileOut:
    url: str
    media_type: str


@dataclass(frozen=True, slots=True)
class DataOut:
    name: str
    value: Any
    id: str | None
    transient: bool


@dataclass(frozen=True, slots=True)
class StateOut:
    value: Any


@dataclass(frozen=True, slots=True)
class Raw:
    provider: str | None
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Switched:
    from_model: str
    to_model: str
    message: str


@dataclass(frozen=True, slots=True)
class TurnUsage:
    usage: Usage
    model: str | None
    provider: str | None


@dataclass(frozen=True, slots=True)
class Failed:
    message: str
    code: str


@dataclass(frozen=True, slots=True)
class RunEnd:
    finish_reason: str | None
    """The last turn's llmbridge finish reason (``None``: no turn finished)."""
    usage: tuple[TurnUsage, ...]
    failed: bool


Op: TypeAlias = (
    RunStart
    | StepStart
    | StepEnd
    | TextStart
    | TextDeltaOp
    | TextEnd
    | ReasoningStart
    | ReasoningDeltaOp
    | ReasoningEnd
    | ToolStart
    | ToolDelta
    | ToolInput
    | ToolOutput
    | Source
    | FileOut
    | DataOut
    | StateOut
    | Raw
    | Switched
    | Failed
    | RunEnd
)
