"""llmbridge: one exact, fast, typed streaming API over many LLM providers.

Rules: every public name has one home, its defining module (or that module's package), and is
re-exported here. The errors and events load eagerly; everything else loads on first use from
``_LAZY``, the one table of lazy names (the ``TYPE_CHECKING`` block says the same for type
checkers, and ``tests/test_public_api.py`` holds the two equal). ``__all__`` is generated from
what this module binds plus that table, less the names that would shadow builtins on
``from llmbridge import *`` (``ConnectionError``, ``TimeoutError``: ``lb.ConnectionError``
still works).
"""

# ruff: noqa: I001  (one ``import x as x`` block per module: the explicit re-export type checkers read)
from types import ModuleType as _ModuleType
from typing import TYPE_CHECKING as _TYPE_CHECKING

from ._version import __version__ as __version__
from .errors import (
    APIError as APIError,
    AllModelsFailedError as AllModelsFailedError,
    AuthenticationError as AuthenticationError,
    CertificateError as CertificateError,
    ConfigurationError as ConfigurationError,
    ConnectionError as ConnectionError,
    ContextLengthError as ContextLengthError,
    EventOrderError as EventOrderError,
    InvalidRequestError as InvalidRequestError,
    LLMBridgeError as LLMBridgeError,
    MalformedStreamError as MalformedStreamError,
    NotFoundError as NotFoundError,
    OverloadedError as OverloadedError,
    PermissionDeniedError as PermissionDeniedError,
    RateLimitError as RateLimitError,
    ServerError as ServerError,
    StreamError as StreamError,
    StreamTruncatedError as StreamTruncatedError,
    StructuredOutputError as StructuredOutputError,
    TimeoutError as TimeoutError,
    ToolArgumentsError as ToolArgumentsError,
    TransportError as TransportError,
    UnsupportedFeatureError as UnsupportedFeatureError,
    UsageError as UsageError,
)
from .events import (
    ApprovalRequest as ApprovalRequest,
    Citation as Citation,
    CodeOutput as CodeOutput,
    Finish as Finish,
    GeneratedImage as GeneratedImage,
    ModelSwitch as ModelSwitch,
    PartialObject as PartialObject,
    ProviderItem as ProviderItem,
    RateLimit as RateLimit,
    ReasoningDelta as ReasoningDelta,
    StreamEvent as StreamEvent,
    StreamStart as StreamStart,
    TextDelta as TextDelta,
    TextPhase as TextPhase,
    ToolCallChunk as ToolCallChunk,
    ToolCallEnd as ToolCallEnd,
    ToolCallStart as ToolCallStart,
    ToolSearchCall as ToolSearchCall,
    Usage as Usage,
)

if _TYPE_CHECKING:
    from .batch import (
        BatchJob as BatchJob,
        BatchRequest as BatchRequest,
        BatchResult as BatchResult,
    )
    from .client import (
        Client as Client,
        EventStream as EventStream,
    )
    from .compaction import (
        Compaction as Compaction,
    )
    from .embedding_types import (
        EmbeddingResponse as EmbeddingResponse,
        RerankResponse as RerankResponse,
        RerankResult as RerankResult,
    )
    from .hosted import (
        CodeExecution as CodeExecution,
        FileSearch as FileSearch,
        HostedMCP as HostedMCP,
        ImageGeneration as ImageGeneration,
        ToolSearch as ToolSearch,
        UserLocation as UserLocation,
        WebFetch as WebFetch,
        WebSearch as WebSearch,
    )
    from .model_info import (
        ModelInfo as ModelInfo,
    )
    from .model_refs import (
        ModelOption as ModelOption,
    )
    from .providers import (
        Capabilities as Capabilities,
        HttpRequest as HttpRequest,
        Provider as Provider,
        ProviderConfig as ProviderConfig,
        register_provider as register_provider,
    )
    from .response import Accumulator as Accumulator, accumulate as accumulate
    from .stream import (
        RetryPolicy as RetryPolicy,
    )
    from .sync import (
        SyncClient as SyncClient,
    )
    from .sync_stream import (
        SyncEventStream as SyncEventStream,
    )
    from .telemetry import (
        Telemetry as Telemetry,
    )
    from .mcp import (
        ElicitationAnswer as ElicitationAnswer,
        ElicitationRequest as ElicitationRequest,
        MCPConfigError as MCPConfigError,
        MCPError as MCPError,
        ProgressUpdate as ProgressUpdate,
        connect_mcp_servers as connect_mcp_servers,
    )
    from .tools import (
        ApprovalDecision as ApprovalDecision,
        ToolApprovalError as ToolApprovalError,
        ToolApprovalRequest as ToolApprovalRequest,
        ToolLimitError as ToolLimitError,
        ToolRegistry as ToolRegistry,
        ToolTimeoutError as ToolTimeoutError,
        tool as tool,
    )
    from .specs.context import ToolContext as ToolContext
    from .specs.errors import (
        ToolSchemaError as ToolSchemaError,
        ToolSchemaWarning as ToolSchemaWarning,
    )
    from .tools.errors import (
        ToolNotFoundError as ToolNotFoundError,
    )
    from .tools.results import (
        ToolResult as ToolResult,
    )
    from .parts import (
        ApprovalResponse as ApprovalResponse,
        AudioPart as AudioPart,
        CachePoint as CachePoint,
        DocumentPart as DocumentPart,
        ImagePart as ImagePart,
        RawPart as RawPart,
        ReasoningPart as ReasoningPart,
        TextPart as TextPart,
        ToolCallPart as ToolCallPart,
        ToolResultPart as ToolResultPart,
    )
    from .messages import ChatMessage as ChatMessage, ChatResponse as ChatResponse
    from .request import (
        ChatRequest as ChatRequest,
        ReasoningConfig as ReasoningConfig,
        ResponseFormat as ResponseFormat,
        ToolChoice as ToolChoice,
    )
    from .tool_spec import ToolSpec as ToolSpec

_LAZY: dict[str, tuple[str, ...]] = {
    ".batch": ("BatchJob", "BatchRequest", "BatchResult"),
    ".client": (
        "Client",
        "EventStream",
    ),
    ".compaction": ("Compaction",),
    ".embedding_types": ("EmbeddingResponse", "RerankResponse", "RerankResult"),
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
    ".mcp": (
        "ElicitationAnswer",
        "ElicitationRequest",
        "MCPConfigError",
        "MCPError",
        "ProgressUpdate",
        "connect_mcp_servers",
    ),
    ".model_info": ("ModelInfo",),
    ".model_refs": ("ModelOption",),
    ".providers": (
        "Capabilities",
        "HttpRequest",
        "Provider",
        "ProviderConfig",
        "register_provider",
    ),
    ".response": ("Accumulator", "accumulate"),
    ".stream": ("RetryPolicy",),
    ".sync": ("SyncClient",),
    ".sync_stream": ("SyncEventStream",),
    ".telemetry": ("Telemetry",),
    ".tools": (
        "ApprovalDecision",
        "ToolApprovalError",
        "ToolApprovalRequest",
        "ToolLimitError",
        "ToolRegistry",
        "ToolTimeoutError",
        "tool",
    ),
    ".tools.errors": ("ToolNotFoundError",),
    ".tools.results": ("ToolResult",),
    ".parts": (
        "ApprovalResponse",
        "AudioPart",
        "CachePoint",
        "DocumentPart",
        "ImagePart",
        "RawPart",
        "ReasoningPart",
        "TextPart",
        "ToolCallPart",
        "ToolResultPart",
    ),
    ".messages": ("ChatMessage", "ChatResponse"),
    ".request": ("ChatRequest", "ReasoningConfig", "ResponseFormat", "ToolChoice"),
    ".specs.context": ("ToolContext",),
    ".specs.errors": ("ToolSchemaError", "ToolSchemaWarning"),
    ".tool_spec": ("ToolSpec",),
}
"""Names loaded on first use: ``import llmbridge`` costs its dependencies' import time plus
a little, not pydantic's model machinery (which the first ``ChatMessage`` or ``Client`` loads)."""
_WHERE = {name: module for module, names in _LAZY.items() for name in names}
_SHADOWS_BUILTINS = frozenset({"ConnectionError", "TimeoutError"})
"""Importable as ``lb.ConnectionError``, left out of ``*`` so they never hide Python's own."""

__all__ = sorted(  # generated: what this module binds, plus the lazy table
    {
        *(
            name
            for name, value in globals().items()
            if (not name.startswith("_") or name == "__version__")
            and not isinstance(value, _ModuleType)
        ),
        *_WHERE,
    }
    - _SHADOWS_BUILTINS
)


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
