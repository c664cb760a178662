"""The tool loop's answer to a client-executed ``ToolSearch``: find the tools, send them back.

Rules:

* A turn's pending searches are its ``ToolSearchCall``s with ``execution == "client"`` and no
  result yet (Responses ``tool_search_call`` items), plus its calls of the search's own tool
  (``ToolSearch.name``, where the API has no search item: Anthropic) that the registry does
  not hold; those calls are the search's, not the registry's.
* The query (the arguments' strings, joined) goes to ``ToolSearch.search`` when the app gave
  one (names or specs back, sync or async; unknown names are skipped), else to
  ``rank_tools`` (``tools/search.py``: BM25 or regex by ``algorithm``); either searches the
  deferred tools (every tool when none is deferred); at most ``max_results`` tools.
* The answer's wire shape is the provider's (``Provider.tool_search_answer(call, found,
  namespaces=...)``: a
  message holding its raw answer, e.g. a ``tool_search_output`` item or a ``tool_result`` of
  ``tool_reference`` blocks). The loop appends it and yields a ``ToolResult`` whose
  ``value`` is the names found. The searches of a turn past its ``max_tool_calls`` (the tool
  loop's bound, ``llmbridge.tools.batch``) are answered as finding nothing, without running
  the search (the app's own search function may be costly). A provider with no such method
  cannot have been asked (the request refused the ``ToolSearch``), so it is a ``UsageError``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import UsageError
from ..events import ToolSearchCall
from ..hosted import ToolSearch, search_query
from ..messages import ChatMessage, ChatResponse
from ..parts import ToolCallPart
from ..tool_spec import ToolSpec
from .results import ToolResult
from .search import rank_tools

__all__ = ["Answerer", "ClientSearch"]

Answerer = Callable[[str | None], Any]
"""Gives the provider object of a provider name (its ``tool_search_answer`` builds answers)."""


class ClientSearch:
    """Answers the client searches of one loop's turns (see module rules)."""

    def __init__(self, spec: ToolSearch, *, provider_of: Answerer) -> None:
        self.spec = spec
        self._provider_of = provider_of

    def split(
        self, response: ChatResponse, specs: Sequence[ToolSpec]
    ) -> tuple[list[ToolSearchCall], list[ToolCallPart]]:
        """The turn's pending searches, and the tool calls left for the tools (``specs``)."""
        names = {s.name for s in specs}
        searches = [
            s
            for s in response.tool_searches
            if s.execution == "client" and s.tools is None and s.error is None
        ]
        calls: list[ToolCallPart] = []
        for call in response.tool_calls:
            if call.name == self.spec.name and call.name not in names:
                searches.append(
                    ToolSearchCall(
                        id=call.id,
                        query=search_query(call.arguments),
                        arguments=call.arguments,
                        execution="client",
                    )
                )
            else:
                calls.append(call)
        return searches, calls

    async def find(self, query: str, specs: Sequence[ToolSpec]) -> list[ToolSpec]:
        """The tools ``query`` finds among ``specs``' deferred ones, best first."""
        spec = self.spec
        deferred = [s for s in specs if s.defer_loading] or list(specs)
        if spec.search is None:
            algorithm = spec.algorithm or "bm25"
            return rank_tools(query, deferred, limit=spec.max_results, algorithm=algorithm)
        found = spec.search(query, deferred)
        if inspect.isawaitable(found):
            found = await found
        by_name = {s.name: s for s in specs}
        out: list[ToolSpec] = []
        for item in found or ():
            hit = item if isinstance(item, ToolSpec) else by_name.get(str(item))
            if hit is not None and hit not in out:
                out.append(hit)
        return out[: spec.max_results]

    async def answer(
        self,
        search: ToolSearchCall,
        specs: Sequence[ToolSpec],
        *,
        provider: str | None,
        run: bool = True,
    ) -> ToolResult:
        """Run ``search`` over ``specs`` and build its answer message (``run=False``: a search
        past the turn's cap, answered as finding nothing without searching)."""
        found = await self.find(search.query or "", specs) if run else []
        target = self._provider_of(provider)
        build = getattr(target, "tool_search_answer", None)
        if build is None:
            raise UsageError(
                f"provider {provider!r} has no client tool search answer: use "
                "openai-responses or anthropic"
            )
        message: ChatMessage = build(search, found, namespaces=self.spec.namespaces)
        names = [s.name for s in found]
        return ToolResult(id=search.id or "", name=self.spec.name, message=message, value=names)
