"""What ``tools=`` accepts, at its old address: it lives in ``llmbridge.client.tool_options``
(a re-export)."""

from .client.tool_options import as_specs, hosted_tools, tools_cache_point

__all__ = ["as_specs", "hosted_tools", "tools_cache_point"]
