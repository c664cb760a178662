"""Tool search and deferred tools on the Responses API (pure).

Follows https://platform.openai.com/docs/guides/tools-tool-search and the openai SDK's
``ToolSearchToolParam``, ``FunctionToolParam.defer_loading``, ``ResponseToolSearchCall`` and
``ResponseToolSearchOutputItemParamParam``. Rules:

* ``ToolSearch(execution="server")`` → ``{"type": "tool_search"}``: OpenAI searches the
  ``defer_loading`` function tools itself. ``execution="client"`` → ``{"type": "tool_search",
  "execution": "client", "description", "parameters"}``: a ``query`` string (a regular
  expression with ``algorithm="regex"``), answered by the app. ``algorithm`` has no field
  here (OpenAI picks its own method): a warning when set. ``provider_options`` last.
* A deferred ``ToolSpec`` is its function (or custom) tool with ``defer_loading: true``.
  Specs with a ``namespace`` are grouped, in the place of the first, into one ``{"type":
  "namespace", "name", "description", "tools"}`` (the SDK's ``NamespaceToolParam``; the
  description is ``ToolSearch.namespaces[name]``, else the names of its tools), as OpenAI
  recommends for deferred tools (``encode_function_tools``).
* Decoding (``search_events``): a done ``tool_search_call`` item is a ``ToolSearchCall``
  (id: ``call_id``, else the item id; ``execution``; ``arguments``; ``query``: their strings
  joined), a ``tool_search_output`` item one with ``tools``: the names of the functions it
  loaded (a namespace's functions as ``namespace.name``; ``id``: its ``call_id``, which a
  server search leaves ``null``). The items themselves stay ``ProviderItem``s, sent back
  verbatim.
* ``answer_item``: the app's answer to a client search, the ``tool_search_output`` item
  (``call_id``, ``execution: client``, ``status: completed``, ``tools``: the found specs'
  function definitions, as OpenAI's own client examples send them: without
  ``defer_loading``; namespaced ones inside their namespace).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...events import StreamEvent, ToolSearchCall
from ...hosted import ToolSearch, options_for, search_query
from ...tool_spec import ToolSpec
from .tools import encode_tool

__all__ = [
    "answer_item",
    "encode_function_tools",
    "encode_tool_search",
    "search_events",
    "search_warnings",
]

PROVIDER_NAME = "openai-responses"


def _grouped(
    specs: Iterable[ToolSpec], descriptions: Mapping[str, str], *, defer: bool
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    spaces: dict[str, dict[str, Any]] = {}
    for spec in specs:
        entry = encode_tool(spec if defer else spec.deferred(False))
        if spec.namespace is None:
            out.append(entry)
            continue
        space = spaces.get(spec.namespace)
        if space is None:
            space = {"type": "namespace", "name": spec.namespace, "description": "", "tools": []}
            spaces[spec.namespace] = space
            out.append(space)
        space["tools"].append(entry)
    for name, space in spaces.items():
        names = ", ".join(t["name"] for t in space["tools"])
        space["description"] = descriptions.get(name) or f"Tools: {names}."
    return out


def encode_function_tools(specs: Sequence[ToolSpec], hosted: Sequence[Any]) -> list[dict[str, Any]]:
    """The app's tools, namespaced ones grouped (see module rules)."""
    search = next((t for t in hosted if isinstance(t, ToolSearch)), None)
    return _grouped(specs, search.namespaces if search else {}, defer=True)


def encode_tool_search(tool: ToolSearch) -> dict[str, Any]:
    """The ``tool_search`` tool entry for ``tool``."""
    out: dict[str, Any] = {"type": "tool_search"}
    if tool.execution == "client":
        out["execution"] = "client"
        out["description"] = tool.client_description()
        out["parameters"] = tool.client_parameters()
    return {**out, **options_for(tool, PROVIDER_NAME)}


def search_warnings(tools: Sequence[Any]) -> list[str]:
    return [
        f"ToolSearch algorithm={tool.algorithm!r}: the Responses tool_search picks its own "
        "method; dropped"
        for tool in tools
        if isinstance(tool, ToolSearch) and tool.execution == "server" and tool.algorithm
    ]


# -- decoding ------------------------------------------------------------------------------
def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _execution(item: dict[str, Any]) -> Any:
    return "client" if item.get("execution") == "client" else "server"


def _loaded(tools: Any) -> list[str]:
    names: list[str] = []
    for tool in tools if isinstance(tools, list) else ():
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "namespace":
            space = _str(tool.get("name")) or ""
            names.extend(f"{space}.{name}" for name in _loaded(tool.get("tools")))
        elif isinstance(tool.get("name"), str):
            names.append(tool["name"])
    return names


def search_events(item: dict[str, Any]) -> list[StreamEvent]:
    """The ``ToolSearchCall`` view of a done ``tool_search_call`` / ``tool_search_output``."""
    if item.get("type") == "tool_search_call":
        arguments = item.get("arguments")
        given = arguments if isinstance(arguments, dict) else None
        return [
            ToolSearchCall(
                id=_str(item.get("call_id")) or _str(item.get("id")),
                query=search_query(given),
                arguments=given,
                execution=_execution(item),
            )
        ]
    return [
        ToolSearchCall(
            id=_str(item.get("call_id")),
            execution=_execution(item),
            tools=_loaded(item.get("tools")),
        )
    ]


def answer_item(
    call: ToolSearchCall, found: Sequence[ToolSpec], namespaces: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The ``tool_search_output`` item answering the client search ``call``."""
    tools = _grouped(found, namespaces or {}, defer=False)
    return {
        "type": "tool_search_output",
        "call_id": call.id,
        "execution": "client",
        "status": "completed",
        "tools": tools,
    }
