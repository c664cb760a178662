"""Provider-run tool specs → Bedrock's system tools (pure): Amazon Nova 2's web grounding and
code interpreter.

Follows the Converse ``Tool.systemTool`` member and the Nova 2 user guide (``nova_grounding``,
``nova_code_interpreter``), as the recorded corpus requests send them. Rules:

* Only Nova 2 models run them (``NOVA_TOOLS``; ``Capabilities.hosted_tools`` says so, and the
  client refuses a spec elsewhere before sending). Each spec is one ``{"systemTool": {"name"}}``
  entry in ``toolConfig.tools`` after the function tools.
* ``WebSearch`` → ``nova_grounding``: it has no domain filter (``allowed_domains`` /
  ``blocked_domains``: a ``ConfigurationError``, they would change what runs) and no
  ``max_uses`` / ``user_location`` / ``context_size`` (warnings). ``CodeExecution`` →
  ``nova_code_interpreter``: no uploaded files (``file_ids``: refused).
* ``provider_options["bedrock"]`` is merged into the ``systemTool`` object last.
* The calls and results come back as ``server_tool_use`` / ``toolResult`` blocks: decoded as
  ``ProviderItem``s (and ``CodeOutput``, ``Citation``) by ``blocks.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...hosted import CodeExecution, HostedTool, WebSearch, options_for, unsupported
from ..hosts.aws import base_id

__all__ = ["NOVA_TOOLS", "encode_hosted", "hosted_kinds"]

NOVA_TOOLS = frozenset({"web_search", "code_execution"})


def hosted_kinds(model: str) -> frozenset[str]:
    """The spec kinds ``model`` runs (Nova 2 only)."""
    name = base_id(model)
    return NOVA_TOOLS if name.startswith("amazon.nova-2") else frozenset()


def _system_tool(name: str, tool: Any, provider: str) -> dict[str, Any]:
    return {"systemTool": {"name": name, **options_for(tool, provider)}}


def encode_hosted(
    tools: Sequence[HostedTool], *, provider: str
) -> tuple[list[dict[str, Any]], list[str]]:
    """(``toolConfig.tools`` entries, warnings) for the specs (already checked to run here)."""
    entries: list[dict[str, Any]] = []
    warnings: list[str] = []
    for tool in tools:
        if isinstance(tool, WebSearch):
            if tool.allowed_domains is not None or tool.blocked_domains is not None:
                raise unsupported(
                    tool, provider=provider, why="Nova web grounding has no domain filters"
                )
            for option in ("max_uses", "user_location", "context_size"):
                if getattr(tool, option) is not None:
                    warnings.append(
                        f"WebSearch {option}: Nova web grounding has no such option; ignored"
                    )
            entries.append(_system_tool("nova_grounding", tool, provider))
        elif isinstance(tool, CodeExecution):
            if tool.file_ids:
                raise unsupported(
                    tool, provider=provider, why="Nova's code interpreter takes no uploaded files"
                )
            entries.append(_system_tool("nova_code_interpreter", tool, provider))
        else:
            raise unsupported(tool, provider=provider)
    return entries, warnings
