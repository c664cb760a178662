"""Tool search and deferred tools on the Messages API (pure).

Follows https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool and the
installed ``anthropic`` SDK's GA types (no beta header): ``ToolSearchToolBm25_20251119Param``,
``ToolSearchToolRegex20251119Param``, ``ToolParam.defer_loading``,
``ToolSearchToolResultBlockParam`` and ``ToolReferenceBlockParam``. Rules:

* ``ToolSearch(execution="server")`` → ``{"type": "tool_search_tool_bm25_20251119", "name":
  "tool_search_tool_bm25"}`` (``algorithm="regex"``: the ``regex`` pair), after the app's
  tools; ``provider_options["anthropic"]`` last.
* ``execution="client"`` → the documented custom search: an ordinary tool (``ToolSearch.name``,
  a ``query`` string) whose ``tool_result`` holds ``tool_reference`` blocks naming the tools
  found (``answer_block``); Claude then loads those deferred definitions.
* A deferred ``ToolSpec`` is its tool with ``defer_loading: true``.
* Decoding (``search_view``): a ``server_tool_use`` block of a ``tool_search_tool_*`` tool is a
  ``ToolSearchCall`` (``query``: its input's strings), a ``tool_search_tool_result`` one with
  the ``tool_references``' names as ``tools`` (an error result: ``tools=[]`` and the
  ``error_code``). The blocks stay ``ProviderItem``s, sent back verbatim.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...events import ToolSearchCall
from ...hosted import ToolSearch, options_for, search_query
from ...messages import ChatMessage
from ...parts import RawPart
from ...tool_spec import ToolSpec

__all__ = [
    "SEARCH_TOOLS",
    "ToolSearchAnswers",
    "answer_block",
    "encode_tool_search",
    "search_view",
]

PROVIDER = "anthropic"
SEARCH_TOOLS = {
    "bm25": ("tool_search_tool_bm25_20251119", "tool_search_tool_bm25"),
    "regex": ("tool_search_tool_regex_20251119", "tool_search_tool_regex"),
}
"""``algorithm`` → (tool type, tool name)."""
_SERVER_PREFIX = "tool_search_tool_"


def encode_tool_search(tool: ToolSearch) -> dict[str, Any]:
    """The tool entry for ``tool``: the server search tool, or the client search's own tool."""
    if tool.execution == "client":
        out: dict[str, Any] = {
            "name": tool.name,
            "description": tool.client_description(),
            "input_schema": tool.client_parameters(),
        }
    else:
        kind, name = SEARCH_TOOLS[tool.algorithm or "bm25"]
        out = {"type": kind, "name": name}
    return {**out, **options_for(tool, PROVIDER)}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def search_view(block: dict[str, Any]) -> ToolSearchCall | None:
    """The ``ToolSearchCall`` of a kept block, if it is a tool search's use or result."""
    kind = block.get("type")
    if kind == "server_tool_use":
        name = _str(block.get("name")) or ""
        if not name.startswith(_SERVER_PREFIX):
            return None
        given = block.get("input")
        arguments = given if isinstance(given, dict) else None
        return ToolSearchCall(
            id=_str(block.get("id")), query=search_query(arguments), arguments=arguments
        )
    if kind != "tool_search_tool_result":
        return None
    content = block.get("content")
    result = content if isinstance(content, dict) else {}
    refs = result.get("tool_references")
    names = [
        r["tool_name"]
        for r in (refs if isinstance(refs, list) else ())
        if isinstance(r, dict) and isinstance(r.get("tool_name"), str)
    ]
    error = _str(result.get("error_code"))
    return ToolSearchCall(id=_str(block.get("tool_use_id")), tools=names, error=error)


def answer_block(call: ToolSearchCall, found: Sequence[ToolSpec]) -> dict[str, Any]:
    """The ``tool_result`` block answering the client search ``call``: ``tool_reference``
    blocks for ``found`` (a text saying so when nothing matched)."""
    content: list[dict[str, Any]] = [
        {"type": "tool_reference", "tool_name": spec.name} for spec in found
    ]
    if not content:
        content = [{"type": "text", "text": "No tools matched the search."}]
    return {"type": "tool_result", "tool_use_id": call.id, "content": content}


class ToolSearchAnswers:
    """``tool_search_answer`` for every host of the Messages API (the Claude API and the
    clouds): the answer is tagged with the host's own provider name, so it goes back there."""

    name: str

    def tool_search_answer(
        self,
        call: ToolSearchCall,
        found: Sequence[ToolSpec],
        *,
        namespaces: Mapping[str, str] | None = None,
    ) -> ChatMessage:
        """The app's answer to a client tool search: ``tool_reference`` blocks in a result."""
        block = answer_block(call, found)
        return ChatMessage(role="tool", content=[RawPart(provider=self.name, data=block)])
