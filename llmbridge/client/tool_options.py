"""What ``tools=`` accepts on ``stream`` / ``complete`` / ``run``, turned into ``ToolSpec``s.

Rules: ``ToolSpec`` objects as they are; ``@llmbridge.tool`` functions and objects carrying a
``tool_spec`` / ``spec``; dicts (validated as ``ToolSpec``); plain functions
(``ToolSpec.from_function``); a ``ToolRegistry`` (its specs). A ``CachePoint`` among them is
not a tool: it marks the tool definitions for prompt caching. Provider-run tool specs
(``llmbridge.hosted``: ``WebSearch``, ``HostedMCP``...) are not ``ToolSpec``s either:
``hosted_tools`` picks them out for ``ChatRequest.hosted_tools``. Anything else is a
``UsageError`` naming what was given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import UsageError
from ..hosted import HostedTool, is_hosted
from ..parts import CachePoint
from ..tool_spec import ToolSpec

__all__ = ["as_specs", "hosted_tools", "loop_tools", "tools_cache_point"]


def as_specs(tools: Any) -> list[ToolSpec]:
    """``tools=`` accepts ToolSpecs, ``@tool`` functions, dicts, or a ``ToolRegistry``; a
    ``CachePoint`` among them marks the tool definitions for prompt caching."""
    if tools is None:
        return []
    specs = getattr(tools, "specs", None)
    if callable(specs):
        return list(specs())
    return [_as_spec(t) for t in tools if not isinstance(t, CachePoint) and not is_hosted(t)]


def loop_tools(tools: Any) -> tuple[Any, list[HostedTool]]:
    """``run(tools=)`` as the tool loop's ``ToolRegistry`` and the provider-run specs sent every
    turn beside it: a registry as it is, or a list of tools (wrapped in a new registry), or one
    ``ToolRegistry`` beside provider-run specs (an MCP servers' registry and a ``ToolSearch``)."""
    from ..tools.registry import ToolRegistry

    hosted = hosted_tools(tools)
    if isinstance(tools, ToolRegistry):
        return tools, hosted
    own = [t for t in tools if not is_hosted(t)]
    registries = [t for t in own if isinstance(t, ToolRegistry)]
    if registries and len(own) > 1:
        raise UsageError(
            "run(tools=[...]) takes one ToolRegistry beside provider-run specs, or "
            "tools without a registry: register the other tools on the registry"
        )
    return (registries[0] if registries else ToolRegistry(own)), hosted


def hosted_tools(tools: Any) -> list[HostedTool]:
    """The provider-run tool specs among ``tools`` (``llmbridge.hosted``), in order."""
    if tools is None or callable(getattr(tools, "specs", None)):
        return []
    return [t for t in tools if is_hosted(t)]


def tools_cache_point(tools: Any) -> CachePoint | None:
    if tools is None or callable(getattr(tools, "specs", None)):
        return None
    return next((t for t in tools if isinstance(t, CachePoint)), None)


def _as_spec(tool: Any) -> ToolSpec:
    if isinstance(tool, ToolSpec):
        return tool
    spec = getattr(tool, "tool_spec", None) or getattr(tool, "spec", None)
    if isinstance(spec, ToolSpec):
        return spec
    if isinstance(tool, Mapping):
        return ToolSpec.model_validate(tool)
    if callable(tool):
        return ToolSpec.from_function(tool)
    raise UsageError(
        f"tools= takes ToolSpec objects (or @llmbridge.tool functions), got {type(tool).__name__}"
    )
