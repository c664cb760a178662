"""Tool specs and tool choice → Converse ``toolConfig`` (pure).

Follows ``ToolConfiguration`` / ``ToolChoice`` of botocore's ``bedrock-runtime`` model. Rules:

* each ``ToolSpec`` → ``{"toolSpec": {name, description, inputSchema: {json}}}`` (``strict``
  when the spec asks for it; a description only when non-empty: the API refuses ``""``);
  ``tools_cache_point`` → a ``cachePoint`` entry after the tools.
* tool choice: auto → ``auto``, required → ``any``, a named tool → ``tool``; ``none`` has no
  Converse form: the tools are left out (or, when the history holds tool blocks, which need a
  ``toolConfig``, sent with ``auto`` and a warning). No choice given → no ``toolChoice`` at all
  (models without a choice setting, e.g. Llama, refuse one).
"""

from __future__ import annotations

from typing import Any

from ...parts import CachePoint
from ...request import ToolChoice
from ...tool_spec import ToolSpec
from .messages import cache_point

__all__ = ["encode_tool_choice", "encode_tools"]


def encode_tools(tools: list[ToolSpec], cache: CachePoint | None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for tool in tools:
        spec: dict[str, Any] = {"name": tool.name, "inputSchema": {"json": tool.parameters}}
        if tool.description:
            spec["description"] = tool.description
        if tool.strict:
            spec["strict"] = True
        out.append({"toolSpec": spec})
    if cache is not None:
        out.append(cache_point(cache))
    return out


def encode_tool_choice(choice: ToolChoice) -> dict[str, Any] | None:
    """The ``toolChoice`` union member, or ``None`` for ``auto`` / ``none`` (sent as nothing)."""
    if choice.mode == "required":
        return {"any": {}}
    if choice.mode == "tool":
        return {"tool": {"name": choice.name}}
    return None
