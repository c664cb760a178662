"""Several tool registries as one: ``run(tools=[servers.registry, my_function])``.

Rules: a ``JoinedRegistry`` reads the registries it joins live, every time it is asked (an MCP
hub's list changes when a server's does), then its own tools (the functions and specs given
beside them), in that order. Tool names stay unique: two tools of one name (an app function
named like an MCP tool) are a ``UsageError`` naming both, when the list is joined and whenever
it is read again. Its bounds and timeout are the first registry's; its approver the first one
given.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..errors import UsageError
from .entry import ToolEntry
from .registry import ToolRegistry

__all__ = ["JoinedRegistry"]


class JoinedRegistry(ToolRegistry):
    """The tools of ``registries`` and of ``tools`` as one registry (see the module rules)."""

    def __init__(self, registries: Sequence[ToolRegistry], tools: Iterable[Any] = ()) -> None:
        first = registries[0]
        super().__init__(
            timeout=first.timeout,
            max_invocations=first.max_invocations,
            max_exceptions=first.max_exceptions,
            run_sync_in_thread=first.run_sync_in_thread,
            approve=next((r.approve for r in registries if r.approve is not None), None),
            max_parallel_tools=first.max_parallel_tools,
            max_tool_calls=first.max_tool_calls,
        )
        self._sources = tuple(registries)
        for tool in tools:
            self.register(tool)
        _ = self._entries  # a clash is said now, not at the first turn

    @property
    def _entries(self) -> dict[str, ToolEntry]:
        merged: dict[str, ToolEntry] = {}
        for source in (*self._sources, None):
            entries = self._own if source is None else source._entries
            for name, entry in entries.items():
                if name in merged and merged[name] is not entry:
                    raise UsageError(
                        f"two tools are named {name!r} in tools=: rename one (an MCP server's "
                        "tools are named by the server's config name, llmbridge.mcp)"
                    )
                merged[name] = entry
        return merged
