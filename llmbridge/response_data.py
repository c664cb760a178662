"""What a response carries both as stream events and on ``ChatResponse``: usage, rate limits,
the finish reason, citations, approval requests, code output, generated images and tool
searches.

Rules:

* These are the ground floor of the shapes: they import nothing of llmbridge, so
  ``llmbridge.messages`` (``ChatResponse``), ``llmbridge.errors`` and ``llmbridge.events``
  all stand on them without an import circle. ``llmbridge.events`` re-exports every name
  here; import them from there (or from ``llmbridge``).
* Same style as the events: small slotted dataclasses, no validation, no copying; the
  event-like ones have a class-level ``type``.
* ``Usage`` follows one convention for every provider: ``input_tokens`` counts *all* input
  (cache reads and writes included), ``output_tokens`` *all* output (reasoning included);
  the ``cached_input_tokens`` / ``cache_write_tokens`` / ``reasoning_tokens`` are parts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias

__all__ = [
    "FINISH_REASONS",
    "ApprovalRequest",
    "Citation",
    "CodeOutput",
    "FinishReason",
    "GeneratedImage",
    "RateLimit",
    "ToolSearchCall",
    "Usage",
]

FinishReason: TypeAlias = Literal[
    "stop", "length", "tool_calls", "content_filter", "error", "other"
]
FINISH_REASONS: tuple[FinishReason, ...] = (
    "stop",
    "length",
    "tool_calls",
    "content_filter",
    "error",
    "other",
)


@dataclass(slots=True)
class Usage:
    """Token counts, normalized (see module docstring for the convention)."""

    input_tokens: int = 0
    """All input tokens, cache reads and cache writes included."""
    output_tokens: int = 0
    """All output tokens, reasoning included."""
    cached_input_tokens: int = 0
    """Part of ``input_tokens`` read from the provider's prompt cache."""
    cache_write_tokens: int = 0
    """Part of ``input_tokens`` written to the provider's prompt cache."""
    reasoning_tokens: int = 0
    """Part of ``output_tokens`` spent on reasoning."""

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(slots=True)
class RateLimit:
    """What the provider's response headers say about the caller's rate limits."""

    requests_remaining: int | None = None
    tokens_remaining: int | None = None
    requests_reset: float | None = None
    """Seconds until the request budget is full again."""
    tokens_reset: float | None = None
    """Seconds until the token budget is full again."""
    raw: dict[str, str] = field(default_factory=dict)
    """The headers these came from."""


@dataclass(slots=True)
class Citation:
    """A source the answer cites (web search, fetched pages, search grounding), in stream order.

    Emitted where the provider says it (next to the text it backs); ``ChatResponse.citations``
    collects them. The provider's own citation data stays where it was (raw items, metadata).
    """

    type: ClassVar[Literal["citation"]] = "citation"
    url: str
    title: str | None = None
    cited_text: str | None = None
    """The answer's text (or the source's) the citation backs, where the provider gives it."""


@dataclass(slots=True)
class ApprovalRequest:
    """A remote MCP server's tool call that the provider holds until the app approves it.

    Answer it in the next user message with ``ApprovalResponse(id, approve=...)``; the request
    itself stays in the assistant message as a raw part, so history round-trips.
    """

    type: ClassVar[Literal["approval_request"]] = "approval_request"
    id: str
    server: str
    """The MCP server's label (``HostedMCP.name``)."""
    tool: str
    arguments: dict[str, Any]


@dataclass(slots=True)
class CodeOutput:
    """What provider-run code printed and made (code execution / code interpreter)."""

    type: ClassVar[Literal["code_output"]] = "code_output"
    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    """``None`` where the provider does not say (it may give only an outcome)."""
    files: list[str] = field(default_factory=list)
    """Ids (or URLs) of files the code wrote, to fetch with the provider's files API."""
    code: str | None = None
    """The code (or shell command) that ran: the item's own (Responses), or that of the call
    the result answers (Anthropic ``server_tool_use``, Gemini ``executableCode``)."""


@dataclass(slots=True)
class GeneratedImage:
    """An image a provider-run tool made: base64 bytes (``data``) or a ``url``."""

    type: ClassVar[Literal["generated_image"]] = "generated_image"
    b64: str | None = None
    """The image as the provider sent it, base64 (``data`` decodes it)."""
    url: str | None = None
    media_type: str | None = None
    revised_prompt: str | None = None

    @property
    def data(self) -> bytes | None:
        """The image's bytes (``None`` when only a URL was given)."""
        import base64

        return None if self.b64 is None else base64.b64decode(self.b64)


@dataclass(slots=True)
class ToolSearchCall:
    """A tool search the model ran (or asked the app to run) to load deferred tools.

    Decoders emit one when the model's search is done (``tools`` is ``None``) and one when its
    result arrives (same ``id``, ``tools`` filled; a provider that gives no id pairs the result
    with the search before it). ``ChatResponse.tool_searches`` holds one per search, merged.
    The provider's own items stay in the message as raw parts, so history round-trips.
    """

    type: ClassVar[Literal["tool_search_call"]] = "tool_search_call"
    id: str | None
    """The search's id (Responses ``call_id``, else the item id; Anthropic tool use id)."""
    query: str | None = None
    """What the model searched for, as text (the arguments' strings, joined)."""
    arguments: dict[str, Any] | None = None
    """The search's arguments as the model wrote them."""
    execution: Literal["server", "client"] = "server"
    """``client``: the app answers it (``client.run`` does, from its registry)."""
    tools: list[str] | None = None
    """Names of the tools the search loaded (``None``: no result yet)."""
    error: str | None = None
    """The provider's error code when the search failed."""
