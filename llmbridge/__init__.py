"""llmbridge: one exact, fast, typed streaming API over many LLM providers."""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from ._version import __version__
from .client import Client, EventStream
from .errors import *  # noqa: F403
from .errors import __all__ as _errors_all
from .events import (
    Finish,
    ProviderItem,
    ReasoningDelta,
    StreamEvent,
    StreamStart,
    TextDelta,
    ToolCallChunk,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from .providers import Capabilities, HttpRequest, Provider, ProviderConfig, register_provider
from .response import Accumulator, ChatResponse, accumulate
from .stream import RetryPolicy

if _TYPE_CHECKING:
    from .sync import SyncClient
from .tools import (
    ToolContext,
    ToolLimitError,
    ToolRegistry,
    ToolSchemaError,
    ToolSpec,
    ToolTimeoutError,
    tool,
)
from .types import (
    ChatMessage,
    ChatRequest,
    ImagePart,
    RawPart,
    ReasoningConfig,
    ReasoningPart,
    ResponseFormat,
    TextPart,
    ToolCallPart,
    ToolChoice,
    ToolResultPart,
)

__all__ = [
    "Accumulator",
    "Capabilities",
    "ChatMessage",
    "ChatRequest",
    "ChatResponse",
    "Client",
    "EventStream",
    "Finish",
    "HttpRequest",
    "ImagePart",
    "Provider",
    "ProviderConfig",
    "ProviderItem",
    "RawPart",
    "ReasoningConfig",
    "ReasoningDelta",
    "ReasoningPart",
    "ResponseFormat",
    "RetryPolicy",
    "StreamEvent",
    "StreamStart",
    "SyncClient",
    "TextDelta",
    "TextPart",
    "ToolCallChunk",
    "ToolCallEnd",
    "ToolCallPart",
    "ToolCallStart",
    "ToolChoice",
    "ToolContext",
    "ToolLimitError",
    "ToolRegistry",
    "ToolSchemaError",
    "ToolTimeoutError",
    "ToolResultPart",
    "ToolSpec",
    "Usage",
    "__version__",
    "accumulate",
    "register_provider",
    "tool",
    *_errors_all,
]


def __getattr__(name: str) -> object:
    if name == "SyncClient":  # loads anyio's thread portal only for scripts that use it
        from .sync import SyncClient

        return SyncClient
    raise AttributeError(f"module 'llmbridge' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), "SyncClient"})
