"""Provider-run tool specs ↔ the Messages API's server tools and MCP connector (pure).

Follows https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview (server tools),
https://platform.claude.com/docs/en/agents-and-tools/mcp-connector and the installed
``anthropic`` SDK's types: ``WebSearchTool20250305Param``, ``WebFetchTool20250910Param`` and
``CodeExecutionTool20250825Param`` (members of the GA ``ToolUnionParam``: no beta header), and
the beta ``BetaRequestMCPServerURLDefinitionParam`` (``mcp_servers``) and
``BetaMCPToolsetParam`` (``tools``, with ``BetaMCPToolDefaultConfigParam`` /
``BetaMCPToolConfigParam``), beta ``mcp-client-2025-11-20``. Rules:

* ``WebSearch`` → ``web_search_20250305`` (``allowed_domains`` / ``blocked_domains``,
  ``max_uses``, ``user_location`` ``approximate``); ``context_size`` has no field: a warning.
* ``WebFetch`` → ``web_fetch_20250910`` (domain filters, ``max_uses``).
* ``CodeExecution`` → ``code_execution_20250825``; files reach its container as
  ``container_upload`` blocks in a message, so ``file_ids`` is a ``ConfigurationError``.
* ``HostedMCP`` → the MCP connector, version ``mcp-client-2025-11-20`` (the beta flag, once
  per request): an ``mcp_servers`` entry that is the connection only (``type: url``, ``url``,
  ``name``, ``authorization_token``), and *always* one ``{"type": "mcp_toolset",
  "mcp_server_name": name}`` entry in ``tools``, in the spec's place among the server tools:
  the connector docs require every server to be named by exactly one toolset. No
  ``allowed_tools``: the toolset enables every tool; ``allowed_tools`` → the allowlist
  ``default_config: {enabled: false}`` + ``configs: {tool: {enabled: true}}`` (an empty list
  enables none); ``defer_loading`` → ``default_config.defer_loading``. The old
  ``tool_configuration`` (2025-04-04) is never sent. The connector
  runs every call without asking, so only ``approval="never"`` is accepted, and of the
  headers only ``Authorization: Bearer <token>`` (sent as ``authorization_token``);
  ``description`` has no field: dropped with a warning.
* ``provider_options["anthropic"]`` is merged into the entry last, as given (shallowly): for
  ``HostedMCP`` into its ``mcp_toolset`` entry (``defer_loading``, ``cache_control``,
  ``configs``...), since the server entry holds only what the spec already says. Newer tool
  versions (``web_search_20260209``...) are one ``provider_options`` away:
  ``{"anthropic": {"type": "web_search_20260209"}}``.
* Decoding (``BlockViews``): a kept ``code_execution_tool_result`` /
  ``bash_code_execution_tool_result`` block with a result (not an error) is a ``CodeOutput``
  (stdout, stderr, ``return_code``, the ``file_id`` of each output file, and as ``code`` the
  ``code`` / ``command`` of the ``server_tool_use`` it answers); a text block's
  ``web_search_result_location`` / ``search_result_location`` citation (with a URL) is a
  ``Citation`` (``cited_citation``). The connector's ``mcp_tool_use`` / ``mcp_tool_result``
  blocks (same shape under 2025-11-20) stay raw ``ProviderItem``s, sent back verbatim.
* ``ToolSearch`` → the BM25 / regex tool search tool, or a client search's own tool; its
  ``server_tool_use`` / ``tool_search_tool_result`` blocks → ``ToolSearchCall`` views
  (``tool_search.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...events import Citation, CodeOutput, StreamEvent
from ...hosted import (
    CodeExecution,
    FileSearch,
    HostedMCP,
    HostedTool,
    ImageGeneration,
    ToolSearch,
    WebFetch,
    WebSearch,
    options_for,
    unsupported,
)
from .tool_search import encode_tool_search, search_view

__all__ = [
    "HOSTED_TOOLS",
    "MCP_BETA",
    "BlockViews",
    "HostedRequest",
    "cited_citation",
    "encode_hosted",
]

PROVIDER = "anthropic"
HOSTED_TOOLS = frozenset({"web_search", "web_fetch", "code_execution", "mcp", "tool_search"})
MCP_BETA = "mcp-client-2025-11-20"
WEB_SEARCH = "web_search_20250305"
WEB_FETCH = "web_fetch_20250910"
CODE_EXECUTION = "code_execution_20250825"


@dataclass
class HostedRequest:
    """What the specs add to a Messages request."""

    tools: list[dict[str, Any]] = field(default_factory=list)
    mcp_servers: list[dict[str, Any]] = field(default_factory=list)
    betas: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _domains(tool: WebSearch | WebFetch, out: dict[str, Any]) -> None:
    if tool.allowed_domains is not None:
        out["allowed_domains"] = list(tool.allowed_domains)
    if tool.blocked_domains is not None:
        out["blocked_domains"] = list(tool.blocked_domains)
    if tool.max_uses is not None:
        out["max_uses"] = tool.max_uses


def _web_search(tool: WebSearch, into: HostedRequest) -> None:
    out: dict[str, Any] = {"type": WEB_SEARCH, "name": "web_search"}
    _domains(tool, out)
    if tool.user_location is not None:
        out["user_location"] = tool.user_location.wire()
    if tool.context_size is not None:
        into.warnings.append(
            f"WebSearch context_size={tool.context_size!r}: Anthropic's web search has no such "
            "setting; dropped"
        )
    into.tools.append({**out, **options_for(tool, PROVIDER)})


def _web_fetch(tool: WebFetch, into: HostedRequest) -> None:
    out: dict[str, Any] = {"type": WEB_FETCH, "name": "web_fetch"}
    _domains(tool, out)
    into.tools.append({**out, **options_for(tool, PROVIDER)})


def _code(tool: CodeExecution, into: HostedRequest) -> None:
    if tool.file_ids:
        raise unsupported(
            tool,
            provider=PROVIDER,
            why="file_ids: Anthropic's container takes files as container_upload content "
            "blocks in a message, not as tool options",
        )
    out = {"type": CODE_EXECUTION, "name": "code_execution"}
    into.tools.append({**out, **options_for(tool, PROVIDER)})


def _token(tool: HostedMCP) -> str | None:
    token = None
    for name, value in (tool.headers or {}).items():
        scheme, _, rest = value.partition(" ")
        if name.lower() != "authorization" or scheme.lower() != "bearer" or not rest:
            raise unsupported(
                tool,
                provider=PROVIDER,
                why=f"header {name!r}: the MCP connector sends only a bearer token "
                "(headers={'Authorization': 'Bearer <token>'})",
            )
        token = rest.strip()
    return token


def _mcp(tool: HostedMCP, into: HostedRequest) -> None:
    if tool.approval != "never":
        raise unsupported(
            tool,
            provider=PROVIDER,
            why="the MCP connector runs every call without asking the app: pass "
            "approval='never' to accept that (or use openai-responses for approvals)",
        )
    server: dict[str, Any] = {"type": "url", "url": tool.url, "name": tool.label}
    token = _token(tool)
    if token is not None:
        server["authorization_token"] = token
    toolset: dict[str, Any] = {"type": "mcp_toolset", "mcp_server_name": tool.label}
    if tool.allowed_tools is not None:  # an allowlist: all off, then each named tool on
        toolset["default_config"] = {"enabled": False}
        toolset["configs"] = {name: {"enabled": True} for name in tool.allowed_tools}
    if tool.defer_loading:  # its tools wait for a tool search
        toolset.setdefault("default_config", {})["defer_loading"] = True
    if tool.description:
        into.warnings.append(
            f"HostedMCP {tool.label!r} description: the MCP connector has no such field; dropped"
        )
    into.mcp_servers.append(server)
    into.tools.append({**toolset, **options_for(tool, PROVIDER)})
    if MCP_BETA not in into.betas:
        into.betas.append(MCP_BETA)


def _tool_search(tool: ToolSearch, into: HostedRequest) -> None:
    into.tools.append(encode_tool_search(tool))


def _refuse(tool: FileSearch | ImageGeneration, into: HostedRequest) -> None:
    raise unsupported(tool, provider=PROVIDER)


_ENCODERS: dict[type[Any], Callable[[Any, HostedRequest], None]] = {
    WebSearch: _web_search,
    WebFetch: _web_fetch,
    CodeExecution: _code,
    HostedMCP: _mcp,
    ToolSearch: _tool_search,
    FileSearch: _refuse,
    ImageGeneration: _refuse,
}


def encode_hosted(tools: Sequence[HostedTool]) -> HostedRequest:
    """The server tools (with one ``mcp_toolset`` per MCP server), MCP servers, beta flags
    and warnings for ``tools``."""
    out = HostedRequest()
    for tool in tools:
        _ENCODERS[type(tool)](tool, out)
    return out


# -- decoding ------------------------------------------------------------------------------
def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def cited_citation(citation: Any) -> Citation | None:
    """A text block's citation as a ``Citation`` when it names a URL (web search results,
    search result blocks), else ``None`` (document citations stay in the provider data)."""
    if not isinstance(citation, dict):
        return None
    url = _str(citation.get("url")) or _str(citation.get("source"))
    if url is None:
        return None
    return Citation(url, _str(citation.get("title")), _str(citation.get("cited_text")))


_CODE_RESULTS = frozenset({"code_execution_tool_result", "bash_code_execution_tool_result"})


class BlockViews:
    """Typed events of the provider-run blocks of one response (it remembers the code each
    ``server_tool_use`` ran, by id, for the result that answers it)."""

    __slots__ = ("_code",)

    def __init__(self) -> None:
        self._code: dict[str, str] = {}

    def events(self, block: dict[str, Any]) -> list[StreamEvent]:
        """The typed events of ``block`` (besides its ``ProviderItem``), if any."""
        search = search_view(block)
        if search is not None:
            return [search]
        kind = block.get("type")
        if kind == "server_tool_use":
            given = block.get("input")
            code = given.get("code") or given.get("command") if isinstance(given, dict) else None
            if isinstance(block.get("id"), str) and isinstance(code, str):
                self._code[block["id"]] = code
            return []
        if kind not in _CODE_RESULTS:
            return []
        result = block.get("content")
        if not isinstance(result, dict) or "error_code" in result:
            return []  # an error result: the raw block says which
        files = result.get("content")
        status = result.get("return_code")
        return [
            CodeOutput(
                stdout=_str(result.get("stdout")) or "",
                stderr=_str(result.get("stderr")) or "",
                exit_code=status if type(status) is int else None,
                files=[
                    f["file_id"]
                    for f in (files if isinstance(files, list) else ())
                    if isinstance(f, dict) and isinstance(f.get("file_id"), str)
                ],
                code=self._code.get(str(block.get("tool_use_id"))),
            )
        ]
