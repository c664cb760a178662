"""Provider-run ("hosted") tools as neutral specs, passed in ``tools=`` beside function tools.

Rules this module keeps (docs/hosted-tools.md):

* A spec says *what* to run, never how one provider spells it: ``WebSearch``, ``WebFetch``,
  ``CodeExecution``, ``FileSearch``, ``ImageGeneration``, ``HostedMCP``, ``ToolSearch`` (the
  search that loads the app's ``defer_loading`` tools; ``execution="client"``: the model asks
  and ``client.run`` answers from the registry). Each provider maps the
  specs it can run to its own current tool type (``providers/<name>/hosted.py``); the mapping
  is pure and lives beside the provider's other encoders.
* Options the providers share are fields; an option a provider cannot honour is a
  ``ConfigurationError`` when it would widen or change what runs (a domain filter, an approval
  rule, files) and a warning when it is only a hint (a location, a context size).
* ``provider_options`` is the escape hatch: ``{"<provider>": {...}}`` is merged last, as
  given, into that provider's tool entry (keys are llmbridge provider names, e.g.
  ``openai-responses``, ``anthropic``, ``gemini``, ``vertex``).
* A provider (or model) that cannot run a spec is a ``ConfigurationError`` before anything is
  sent, naming the tool and the built-in providers that can (``unsupported``); so are two
  ``HostedMCP`` servers with one label (the APIs name a server by it in its calls and approval
  requests, and it defaults to the URL's host).
* These are plain data on the ground floor: they import ``llmbridge.messages`` and
  ``llmbridge.errors`` only, so ``ChatRequest`` can hold them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Annotated, Any, ClassVar, Literal, TypeAlias

from pydantic import (
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from .errors import ConfigurationError
from .parts import _Model

__all__ = [
    "RUNS_ON",
    "CodeExecution",
    "FileSearch",
    "HostedMCP",
    "HostedTool",
    "ImageGeneration",
    "ToolSearch",
    "UserLocation",
    "WebFetch",
    "WebSearch",
    "check_runs_on",
    "is_hosted",
    "options_for",
    "search_query",
    "unsupported",
]


class _Hosted(_Model):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    LABEL: ClassVar[str] = ""
    provider_options: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Fields merged last, as given, into one provider's tool entry: ``{"anthropic":
    {"type": "web_search_20260209"}}``. Keys are llmbridge provider names."""

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        return {"type": getattr(self, "type"), **data}  # noqa: B009 - the discriminator, kept


class UserLocation(_Model):
    """Where the user is, roughly, for local search results (all fields optional)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    city: str | None = None
    region: str | None = None
    country: str | None = None
    """Two-letter ISO country code, e.g. ``"PT"``."""
    timezone: str | None = None
    """IANA time zone, e.g. ``"Europe/Lisbon"``."""

    def wire(self) -> dict[str, Any]:
        """The ``{"type": "approximate", ...}`` shape OpenAI and Anthropic share."""
        return {"type": "approximate", **self.model_dump(exclude_none=True)}


class WebSearch(_Hosted):
    """The provider searches the web (Responses ``web_search``, Anthropic
    ``web_search_20250305``, Gemini ``googleSearch``)."""

    LABEL: ClassVar[str] = "WebSearch"
    type: Literal["web_search"] = "web_search"
    allowed_domains: list[str] | None = None
    """Only results from these domains (and their subdomains)."""
    blocked_domains: list[str] | None = None
    """Never results from these domains."""
    max_uses: int | None = Field(default=None, ge=1)
    """At most this many searches in one response."""
    user_location: UserLocation | None = None
    context_size: Literal["low", "medium", "high"] | None = None
    """How much search context the model gets (Responses ``search_context_size``)."""

    @model_validator(mode="after")
    def _one_filter(self) -> WebSearch:
        if self.allowed_domains is not None and self.blocked_domains is not None:
            raise ValueError("WebSearch: give allowed_domains= or blocked_domains=, not both")
        return self


class WebFetch(_Hosted):
    """The provider fetches pages the conversation names (Anthropic ``web_fetch_20250910``,
    Gemini ``urlContext``)."""

    LABEL: ClassVar[str] = "WebFetch"
    type: Literal["web_fetch"] = "web_fetch"
    allowed_domains: list[str] | None = None
    blocked_domains: list[str] | None = None
    max_uses: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _one_filter(self) -> WebFetch:
        if self.allowed_domains is not None and self.blocked_domains is not None:
            raise ValueError("WebFetch: give allowed_domains= or blocked_domains=, not both")
        return self


class CodeExecution(_Hosted):
    """The provider runs code the model writes in its sandbox (Responses
    ``code_interpreter``, Anthropic ``code_execution_20250825``, Gemini ``codeExecution``)."""

    LABEL: ClassVar[str] = "CodeExecution"
    type: Literal["code_execution"] = "code_execution"
    file_ids: list[str] = Field(default_factory=list)
    """Uploaded files the code may read (Responses container ``file_ids``)."""


class FileSearch(_Hosted):
    """The provider searches the app's vector stores (Responses ``file_search``, Gemini
    ``fileSearch`` stores)."""

    LABEL: ClassVar[str] = "FileSearch"
    type: Literal["file_search"] = "file_search"
    vector_store_ids: list[str] = Field(min_length=1)
    """The stores to search (Gemini: file search store names)."""
    max_results: int | None = Field(default=None, ge=1)


class ImageGeneration(_Hosted):
    """The model makes images with the provider's image model (Responses ``image_generation``)."""

    LABEL: ClassVar[str] = "ImageGeneration"
    type: Literal["image_generation"] = "image_generation"
    size: str | None = None
    """E.g. ``"1024x1024"`` or ``"auto"``."""
    quality: Literal["low", "medium", "high", "auto"] | None = None
    output_format: Literal["png", "webp", "jpeg"] | None = None
    background: Literal["transparent", "opaque", "auto"] | None = None


ApprovalRule: TypeAlias = Literal["always", "never"]


class HostedMCP(_Hosted):
    """A remote MCP server the *provider* calls (Responses ``mcp``, Anthropic's MCP connector).

    ``approval``: ``"always"`` (the default: every call waits for the app's
    ``ApprovalResponse``), ``"never"``, or ``{"never": [names]}`` / ``{"always": [names]}``
    for per-tool rules. ``headers`` go to the MCP server (an ``Authorization: Bearer`` one is
    the only header Anthropic's connector takes).
    """

    LABEL: ClassVar[str] = "HostedMCP"
    type: Literal["mcp"] = "mcp"
    url: str
    name: str | None = None
    """The server's label (default: the URL's host, made a name)."""
    allowed_tools: list[str] | None = None
    approval: ApprovalRule | dict[ApprovalRule, list[str]] = "always"
    headers: dict[str, str] | None = Field(default=None, repr=False)
    description: str | None = None
    defer_loading: bool = False
    """The server's tools wait for a ``ToolSearch`` (Responses ``mcp.defer_loading``,
    Anthropic ``mcp_toolset.default_config.defer_loading``)."""

    def __init__(self, url: str | None = None, /, **data: Any) -> None:
        if url is not None:
            data["url"] = url
        super().__init__(**data)

    @property
    def label(self) -> str:
        """``name``, else the URL's host with every other character made ``_``."""
        if self.name:
            return self.name
        host = self.url.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0]
        return "".join(c if c.isalnum() or c in "-_" else "_" for c in host) or "mcp"


class ToolSearch(_Hosted):
    """A search that loads the app's deferred tools (``ToolSpec(defer_loading=True)``) when the
    model needs them, so a catalog of hundreds of tools costs a few in the prompt (Responses
    ``tool_search``, Anthropic ``tool_search_tool_bm25`` / ``tool_search_tool_regex``).

    ``execution="server"``: the provider searches the deferred tools' names and descriptions.
    ``execution="client"``: the model asks and the app answers; ``client.run`` does it with a
    search over the registry (``ToolRegistry.search``: BM25 over names and descriptions, or
    the regular expression the model wrote with ``algorithm="regex"``), or with ``search``:
    ``search(query, specs) -> names or specs`` (sync or async), ``specs`` being the deferred
    tools. ``max_results`` caps what one client search returns.
    """

    LABEL: ClassVar[str] = "ToolSearch"
    type: Literal["tool_search"] = "tool_search"
    algorithm: Literal["bm25", "regex"] | None = None
    """How the query matches (Anthropic: its BM25 or regex tool; OpenAI: its own method, so
    a warning; a client search: BM25 unless ``"regex"``). ``None``: BM25."""
    execution: Literal["server", "client"] = "server"
    name: str = Field(default="tool_search", pattern=r"^[a-zA-Z0-9_-]{1,64}$")
    """The tool the model calls for a client search where the API has no client search item
    (Anthropic: an ordinary tool whose result holds ``tool_reference`` blocks)."""
    description: str | None = None
    """What the model reads about a client search (default: a short note on what it finds)."""
    max_results: int = Field(default=5, ge=1, le=50)
    """At most this many tools per client search."""
    namespaces: dict[str, str] = Field(default_factory=dict)
    """Descriptions of the ``ToolSpec.namespace`` groups (Responses ``namespace`` tools: the
    model reads a group's description until a search loads its functions; default: the
    names of its tools)."""
    search: Callable[..., Any] | None = Field(default=None, exclude=True, repr=False)
    """The app's own client search: ``search(query, specs)`` returning tool names or specs,
    best first (sync or async)."""

    def client_description(self) -> str:
        """What the model reads about a client search."""
        if self.description:
            return self.description
        how = (
            "a regular expression (Python syntax, case-insensitive) matched against tool "
            "names and descriptions"
            if self.algorithm == "regex"
            else "words likely to appear in the name or description of the tool you need"
        )
        return (
            "Finds tools that are not loaded yet. When you need a capability none of your "
            f"visible tools has, search with {how}; the tools found become callable. If "
            "nothing is found, no such tool exists: do not search again for it."
        )

    def client_parameters(self) -> dict[str, Any]:
        """The JSON schema of a client search's arguments: one ``query`` string."""
        what = (
            "A regular expression matched against tool names and descriptions."
            if self.algorithm == "regex"
            else "Words likely to appear in the names or descriptions of the tools you need."
        )
        return {
            "type": "object",
            "properties": {"query": {"type": "string", "description": what}},
            "required": ["query"],
            "additionalProperties": False,
        }


HostedTool: TypeAlias = Annotated[
    WebSearch | WebFetch | CodeExecution | FileSearch | ImageGeneration | HostedMCP | ToolSearch,
    Field(discriminator="type"),
]
_KINDS = (WebSearch, WebFetch, CodeExecution, FileSearch, ImageGeneration, HostedMCP, ToolSearch)

RUNS_ON: dict[str, tuple[str, ...]] = {
    "web_search": (
        "openai-responses",
        "anthropic",
        "gemini",
        "vertex",
        "openai (search models)",
        "openrouter",
        "bedrock (Nova 2)",
    ),
    "web_fetch": ("anthropic", "gemini", "vertex"),
    "code_execution": ("openai-responses", "anthropic", "gemini", "vertex", "bedrock (Nova 2)"),
    "file_search": ("openai-responses", "gemini"),
    "image_generation": ("openai-responses",),
    "mcp": ("openai-responses", "anthropic"),
    "tool_search": (
        "openai-responses",
        "anthropic",
        "anthropic-vertex",
        "anthropic-foundry",
        "azure-responses (hosted_tools option)",
        "anthropic-bedrock (hosted_tools option, with its beta flag)",
    ),
}
"""Which built-in providers run each spec (for error messages and docs)."""


def is_hosted(value: object) -> bool:
    return isinstance(value, _KINDS)


def unsupported(
    tool: Any, *, provider: str, model: str | None = None, why: str | None = None
) -> ConfigurationError:
    """The error for a spec ``provider`` (or its ``model``) cannot run."""
    where = f"{provider}:{model}" if model else provider
    can = ", ".join(RUNS_ON.get(tool.type, ())) or "none"
    reason = f": {why}" if why else ""
    return ConfigurationError(
        f"{tool.LABEL} ({tool.type}) cannot run on {where}{reason}. "
        f"Providers that can run it: {can}",
        provider=provider,
    )


def check_runs_on(
    tools: Iterable[Any], *, provider: str, model: str, kinds: frozenset[str]
) -> None:
    """``ConfigurationError`` for the first spec whose kind is not in ``kinds``, for a
    ``HostedMCP`` label two servers share, or for two ``ToolSearch`` specs."""
    labels: set[str] = set()
    searches = 0
    for tool in tools:
        if isinstance(tool, ToolSearch):
            searches += 1
            if searches > 1:
                raise ConfigurationError(
                    "two ToolSearch specs: one search loads every deferred tool; give one",
                    provider=provider,
                )
        if tool.type not in kinds:
            raise unsupported(tool, provider=provider, model=model)
        if isinstance(tool, HostedMCP):
            if tool.label in labels:
                raise ConfigurationError(
                    f"two HostedMCP servers are labelled {tool.label!r} ({tool.url} is the "
                    "second): give each its own name=",
                    provider=provider,
                )
            labels.add(tool.label)


def options_for(tool: Any, *names: str) -> dict[str, Any]:
    """The ``provider_options`` given for the first of ``names`` present (empty if none)."""
    for name in names:
        found = tool.provider_options.get(name)
        if found is not None:
            return dict(found)
    return {}


def search_query(arguments: Any) -> str | None:
    """A tool search's arguments as one query text: every string in them (``query``,
    ``keywords``, a list of ``queries``, a ``goal``...), in order, joined by spaces."""
    found: list[str] = []
    stack = [arguments]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if value.strip():
                found.append(value.strip())
        elif isinstance(value, dict):
            stack.extend(reversed(list(value.values())))
        elif isinstance(value, list | tuple):
            stack.extend(reversed(value))
    return " ".join(found) if found else None
