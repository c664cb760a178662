"""Provider-run tool specs ↔ the Responses API's built-in tools (pure).

Follows https://platform.openai.com/docs/guides/tools and the openai SDK's ``ToolParam``
members (``WebSearchToolParam``, ``FileSearchToolParam``, ``tool_param.CodeInterpreter`` /
``ImageGeneration`` / ``Mcp``), ``ResponseIncludable`` and ``McpApprovalResponse``. Rules:

* ``WebSearch`` → ``{"type": "web_search"}`` (``filters.allowed_domains``, ``user_location``
  ``approximate``, ``search_context_size``) and ``include`` ``web_search_call.action.sources``;
  ``blocked_domains`` has no Responses field: a ``ConfigurationError``; ``max_uses`` neither:
  a warning.
* ``CodeExecution`` → ``code_interpreter`` in an ``auto`` container (``file_ids``), and
  ``include`` ``code_interpreter_call.outputs`` so the logs come back.
* ``FileSearch`` → ``file_search`` (``vector_store_ids``, ``max_num_results``);
  ``ImageGeneration`` → ``image_generation`` (``size``, ``quality``, ``output_format``,
  ``background``); ``HostedMCP`` → ``mcp`` (``server_label``, ``server_url``,
  ``allowed_tools``, ``require_approval`` ``always`` / ``never`` / ``{"always" | "never":
  {"tool_names": [...]}}``, ``headers``, ``server_description``, ``defer_loading``).
* ``WebFetch`` is not a Responses tool (the client refuses it before this runs).
* ``provider_options["openai-responses"]`` is merged into the tool entry last.
* Decoding (``item_events``): besides the ``ProviderItem`` the decoder keeps, a done
  ``mcp_approval_request`` item is an ``ApprovalRequest``, a ``code_interpreter_call`` a
  ``CodeOutput`` (its ``logs`` as stdout, image outputs' URLs as files), an
  ``image_generation_call`` with a ``result`` a ``GeneratedImage``. A ``url_citation``
  annotation is a ``Citation`` whose ``cited_text`` is the text it spans.
* ``ToolSearch`` → ``tool_search`` (server or client), and ``tool_search_call`` /
  ``tool_search_output`` items → ``ToolSearchCall`` views (``tool_search.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...events import ApprovalRequest, Citation, CodeOutput, GeneratedImage, StreamEvent
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
from ...parts import ApprovalResponse
from ...tool_calls import parse_arguments
from .tool_search import encode_tool_search, search_events, search_warnings

PROVIDER_NAME = "openai-responses"
"""(``messages.PROVIDER_NAME``, which imports this module.)"""

__all__ = [
    "CODE_OUTPUTS",
    "HOSTED_TOOLS",
    "SEARCH_SOURCES",
    "approval_item",
    "citation",
    "encode_hosted",
    "hosted_warnings",
    "item_events",
]

HOSTED_TOOLS = frozenset(
    {"web_search", "code_execution", "file_search", "image_generation", "mcp", "tool_search"}
)
"""The ``llmbridge.hosted`` spec types this API runs (every model; the API answers for a model
that lacks one)."""
SEARCH_SOURCES = "web_search_call.action.sources"
CODE_OUTPUTS = "code_interpreter_call.outputs"


def _web_search(tool: WebSearch) -> tuple[dict[str, Any], str | None]:
    if tool.blocked_domains is not None:
        raise unsupported(
            tool,
            provider=PROVIDER_NAME,
            why="its web_search tool has no blocked-domains filter (allowed_domains= works)",
        )
    out: dict[str, Any] = {"type": "web_search"}
    if tool.allowed_domains is not None:
        out["filters"] = {"allowed_domains": list(tool.allowed_domains)}
    if tool.user_location is not None:
        out["user_location"] = tool.user_location.wire()
    if tool.context_size is not None:
        out["search_context_size"] = tool.context_size
    return out, SEARCH_SOURCES


def _code(tool: CodeExecution) -> tuple[dict[str, Any], str | None]:
    container: dict[str, Any] = {"type": "auto"}
    if tool.file_ids:
        container["file_ids"] = list(tool.file_ids)
    return {"type": "code_interpreter", "container": container}, CODE_OUTPUTS


def _file_search(tool: FileSearch) -> tuple[dict[str, Any], str | None]:
    out: dict[str, Any] = {"type": "file_search", "vector_store_ids": list(tool.vector_store_ids)}
    if tool.max_results is not None:
        out["max_num_results"] = tool.max_results
    return out, None


def _image(tool: ImageGeneration) -> tuple[dict[str, Any], str | None]:
    out: dict[str, Any] = {"type": "image_generation"}
    for name in ("size", "quality", "output_format", "background"):
        value = getattr(tool, name)
        if value is not None:
            out[name] = value
    return out, None


def _mcp(tool: HostedMCP) -> tuple[dict[str, Any], str | None]:
    out: dict[str, Any] = {"type": "mcp", "server_label": tool.label, "server_url": tool.url}
    if tool.allowed_tools is not None:
        out["allowed_tools"] = list(tool.allowed_tools)
    if isinstance(tool.approval, str):
        out["require_approval"] = tool.approval
    else:
        out["require_approval"] = {
            rule: {"tool_names": list(names)} for rule, names in tool.approval.items()
        }
    if tool.headers:
        out["headers"] = dict(tool.headers)
    if tool.description:
        out["server_description"] = tool.description
    if tool.defer_loading:
        out["defer_loading"] = True
    return out, None


def _tool_search(tool: ToolSearch) -> tuple[dict[str, Any], str | None]:
    return encode_tool_search(tool), None


def _refuse(tool: WebFetch) -> tuple[dict[str, Any], str | None]:
    raise unsupported(tool, provider=PROVIDER_NAME)


_ENCODERS: dict[type[Any], Callable[[Any], tuple[dict[str, Any], str | None]]] = {
    WebSearch: _web_search,
    CodeExecution: _code,
    FileSearch: _file_search,
    ImageGeneration: _image,
    HostedMCP: _mcp,
    ToolSearch: _tool_search,
    WebFetch: _refuse,
}


def encode_hosted(tools: Sequence[HostedTool]) -> tuple[list[dict[str, Any]], list[str]]:
    """The built-in tool entries for ``tools`` and what ``include`` must add for them."""
    entries: list[dict[str, Any]] = []
    include: list[str] = []
    for tool in tools:
        entry, wanted = _ENCODERS[type(tool)](tool)
        if not isinstance(tool, ToolSearch):  # (its encoder merges them itself)
            entry.update(options_for(tool, PROVIDER_NAME))
        entries.append(entry)
        if wanted is not None and wanted not in include:
            include.append(wanted)
    return entries, include


def hosted_warnings(tools: Sequence[HostedTool]) -> list[str]:
    """Options of ``tools`` the Responses API has no field for (dropped)."""
    return [
        f"WebSearch max_uses={tool.max_uses}: the Responses web_search tool has no per-tool "
        "limit (the body's max_tool_calls caps all built-in tool calls); dropped"
        for tool in tools
        if isinstance(tool, WebSearch) and tool.max_uses is not None
    ] + search_warnings(tools)


def approval_item(part: ApprovalResponse) -> dict[str, Any]:
    """An ``ApprovalResponse`` part as the ``mcp_approval_response`` input item."""
    item: dict[str, Any] = {
        "type": "mcp_approval_response",
        "approval_request_id": part.id,
        "approve": part.approve,
    }
    if part.reason is not None:
        item["reason"] = part.reason
    return item


# -- decoding ------------------------------------------------------------------------------
def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def citation(annotation: Any, text: str) -> Citation | None:
    """A ``url_citation`` annotation of ``text`` (the output text part) as a ``Citation``."""
    if not isinstance(annotation, dict) or annotation.get("type") != "url_citation":
        return None
    url = _str(annotation.get("url"))
    if url is None:
        return None
    start, end = annotation.get("start_index"), annotation.get("end_index")
    cited = None
    if type(start) is int and type(end) is int and 0 <= start < end <= len(text):
        cited = text[start:end]
    return Citation(url, _str(annotation.get("title")), cited)


def _approval(item: dict[str, Any]) -> list[StreamEvent]:
    rid, tool = _str(item.get("id")), _str(item.get("name"))
    if rid is None or tool is None:
        return []
    raw = item.get("arguments")
    arguments, _ = parse_arguments(raw) if isinstance(raw, str) else ({}, None)
    return [ApprovalRequest(rid, _str(item.get("server_label")) or "", tool, arguments)]


def _code_output(item: dict[str, Any]) -> list[StreamEvent]:
    outputs = item.get("outputs")
    if not isinstance(outputs, list):
        return []
    logs = [o["logs"] for o in outputs if isinstance(o, dict) and isinstance(o.get("logs"), str)]
    files = [o["url"] for o in outputs if isinstance(o, dict) and isinstance(o.get("url"), str)]
    if not logs and not files:
        return []
    return [CodeOutput(stdout="".join(logs), files=files, code=_str(item.get("code")))]


def _image_output(item: dict[str, Any]) -> list[StreamEvent]:
    result = _str(item.get("result"))
    if not result:
        return []
    fmt = _str(item.get("output_format"))
    return [
        GeneratedImage(
            b64=result,
            media_type=f"image/{fmt}" if fmt else None,
            revised_prompt=_str(item.get("revised_prompt")),
        )
    ]


_ITEMS: dict[str, Callable[[dict[str, Any]], list[StreamEvent]]] = {
    "mcp_approval_request": _approval,
    "code_interpreter_call": _code_output,
    "image_generation_call": _image_output,
    "tool_search_call": search_events,
    "tool_search_output": search_events,
}


def item_events(item: dict[str, Any]) -> list[StreamEvent]:
    """The typed events of a provider-run item (besides its ``ProviderItem``), if any."""
    kind = item.get("type")
    reader = _ITEMS.get(kind) if isinstance(kind, str) else None
    return reader(item) if reader is not None else []
