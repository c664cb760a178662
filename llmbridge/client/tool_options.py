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
    out: list[ToolSpec] = []
    for tool in tools:
        if isinstance(tool, CachePoint) or is_hosted(tool):
            continue
        listed = getattr(_registry_of(tool), "specs", None)  # a registry or an MCP hub among them
        out.extend(listed() if callable(listed) and not callable(tool) else [_as_spec(tool)])
    return out


def loop_tools(tools: Any) -> tuple[Any, list[HostedTool]]:
    """``run(tools=)`` as the tool loop's ``ToolRegistry`` and the provider-run specs sent every
    turn beside it: a registry as it is, or a list of any mix of functions, specs, registries
    and MCP hubs (``MCPServers``) beside provider-run specs, joined into one registry whose
    names stay unique (``llmbridge.tools.joined``)."""
    from ..tools.registry import ToolRegistry

    hosted = hosted_tools(tools)
    if isinstance(tools, ToolRegistry):
        return tools, hosted
    own = [_registry_of(t) for t in tools if not is_hosted(t)]
    registries = [t for t in own if isinstance(t, ToolRegistry)]
    if not registries:
        return ToolRegistry(own), hosted
    rest = [t for t in own if not isinstance(t, ToolRegistry)]
    if len(registries) == 1 and not rest:
        return registries[0], hosted
    from ..tools.joined import JoinedRegistry

    return JoinedRegistry(registries, rest), hosted


def _registry_of(tool: Any) -> Any:
    """An MCP hub (``connect_mcp_servers``'s ``MCPServers``) as its registry; else ``tool``."""
    from ..tools.registry import ToolRegistry

    registry = getattr(tool, "registry", None)
    return registry if isinstance(registry, ToolRegistry) and not callable(tool) else tool


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
