"""llmbridge: one exact, fast, typed streaming API over many LLM providers."""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from ._version import __version__
from .errors import *  # noqa: F403
from .errors import __all__ as _errors_all
from .events import (
    ApprovalRequest,
    Citation,
    CodeOutput,
    Finish,
    GeneratedImage,
    ModelSwitch,
    PartialObject,
    ProviderItem,
    RateLimit,
    ReasoningDelta,
    StreamEvent,
    StreamStart,
    TextDelta,
    TextPhase,
    ToolCallChunk,
    ToolCallEnd,
    ToolCallStart,
    ToolSearchCall,
    Usage,
)

if _TYPE_CHECKING:
    from .client import Client, EventStream
    from .compaction import Compaction
    from .embeddings import EmbeddingResponse, RerankResponse, RerankResult
    from .hosted import (
        CodeExecution,
        FileSearch,
        HostedMCP,
        ImageGeneration,
        ToolSearch,
        UserLocation,
        WebFetch,
        WebSearch,
    )
    from .model_info import ModelInfo
    from .model_refs import ModelOption
    from .providers import Capabilities, HttpRequest, Provider, ProviderConfig, register_provider
    from .response import Accumulator, ChatResponse, accumulate
    from .stream import RetryPolicy
    from .sync import SyncClient
    from .sync_stream import SyncEventStream
    from .telemetry import Telemetry
    from .tools import (
        ApprovalDecision,
        ElicitationAnswer,
        ElicitationRequest,
        MCPConfigError,
        MCPError,
        ProgressUpdate,
        ToolApprovalError,
        ToolApprovalRequest,
        ToolContext,
        ToolLimitError,
        ToolRegistry,
        ToolSchemaError,
        ToolSchemaWarning,
        ToolTimeoutError,
        connect_mcp_servers,
        tool,
    )
    from .types import (
        ApprovalResponse,
        AudioPart,
        CachePoint,
        ChatMessage,
        ChatRequest,
        DocumentPart,
        ImagePart,
        RawPart,
        ReasoningConfig,
        ReasoningPart,
        ResponseFormat,
        TextPart,
        ToolCallPart,
        ToolChoice,
        ToolResultPart,
        ToolSpec,
    )

_LAZY = {
    ".client": ("Client", "EventStream"),
    ".compaction": ("Compaction",),
    ".embeddings": ("EmbeddingResponse", "RerankResponse", "RerankResult"),
    ".hosted": (
        "CodeExecution",
        "FileSearch",
        "HostedMCP",
        "ImageGeneration",
        "ToolSearch",
        "UserLocation",
        "WebFetch",
        "WebSearch",
    ),
    ".model_refs": ("ModelOption",),
    ".model_info": ("ModelInfo",),
    ".providers": (
        "Capabilities",
        "HttpRequest",
        "Provider",
        "ProviderConfig",
        "register_provider",
    ),
    ".response": ("Accumulator", "ChatResponse", "accumulate"),
    ".stream": ("RetryPolicy",),
    ".sync": ("SyncClient",),
    ".sync_stream": ("SyncEventStream",),
    ".telemetry": ("Telemetry",),
    ".tools": (
        "ApprovalDecision",
        "ElicitationAnswer",
        "ElicitationRequest",
        "ProgressUpdate",
        "ToolApprovalRequest",
        "MCPConfigError",
        "MCPError",
        "ToolApprovalError",
        "ToolContext",
        "ToolLimitError",
        "ToolRegistry",
        "ToolSchemaError",
        "ToolSchemaWarning",
        "ToolTimeoutError",
        "connect_mcp_servers",
        "tool",
    ),
    ".types": (
        "ApprovalResponse",
        "AudioPart",
        "CachePoint",
        "DocumentPart",
        "ChatMessage",
        "ChatRequest",
        "ImagePart",
        "RawPart",
        "ReasoningConfig",
        "ReasoningPart",
        "ResponseFormat",
        "TextPart",
        "ToolCallPart",
        "ToolChoice",
        "ToolResultPart",
        "ToolSpec",
    ),
}
"""Names loaded on first use: ``import llmbridge`` costs its dependencies' import time plus
a little, not pydantic's model machinery (which the first ``ChatMessage`` or ``Client`` loads)."""
_WHERE = {name: module for module, names in _LAZY.items() for name in names}

__all__ = [
    "ApprovalRequest",
    "ApprovalResponse",
    "AudioPart",
    "Citation",
    "CodeExecution",
    "CodeOutput",
    "Compaction",
    "EmbeddingResponse",
    "RerankResponse",
    "RerankResult",
    "FileSearch",
    "GeneratedImage",
    "HostedMCP",
    "ImageGeneration",
    "ToolSearch",
    "ToolSearchCall",
    "UserLocation",
    "WebFetch",
    "WebSearch",
    "CachePoint",
    "DocumentPart",
    "Accumulator",
    "ApprovalDecision",
    "ElicitationAnswer",
    "ElicitationRequest",
    "ProgressUpdate",
    "ToolApprovalRequest",
    "Capabilities",
    "ChatMessage",
    "ChatRequest",
    "ChatResponse",
    "Client",
    "EventStream",
    "Finish",
    "PartialObject",
    "HttpRequest",
    "ImagePart",
    "MCPConfigError",
    "MCPError",
    "ModelInfo",
    "ModelOption",
    "ModelSwitch",
    "Provider",
    "ProviderConfig",
    "ProviderItem",
    "RawPart",
    "RateLimit",
    "ReasoningConfig",
    "ReasoningDelta",
    "ReasoningPart",
    "ResponseFormat",
    "RetryPolicy",
    "StreamEvent",
    "StreamStart",
    "SyncClient",
    "SyncEventStream",
    "Telemetry",
    "TextDelta",
    "TextPart",
    "TextPhase",
    "ToolCallChunk",
    "ToolCallEnd",
    "ToolCallPart",
    "ToolCallStart",
    "ToolChoice",
    "ToolContext",
    "ToolLimitError",
    "ToolRegistry",
    "ToolSchemaError",
    "ToolSchemaWarning",
    "ToolTimeoutError",
    "ToolApprovalError",
    "ToolResultPart",
    "ToolSpec",
    "Usage",
    "__version__",
    "accumulate",
    "connect_mcp_servers",
    "register_provider",
    "tool",
    *_errors_all,
]


def __getattr__(name: str) -> object:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'llmbridge' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})
