"""``connect_mcp_servers``' per-server options checked against the config, before any server
starts: ``approval=`` and ``defer_loading=`` may name only enabled servers
(``MCPConfigError``), and every approval rule must be one ``check_rule`` takes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...tools.approval import check_rule
from .config import MCPConfigError

__all__ = ["checked_options"]


def _named_only_enabled(option: str, names: Iterable[str], configs: Mapping[str, Any]) -> None:
    stray = set(names) - set(configs)
    if stray:
        raise MCPConfigError(
            f"{option}= names server(s) {sorted(stray)} that the config does not enable "
            f"(enabled: {sorted(configs)})"
        )


def checked_options(
    configs: Mapping[str, Any],
    *,
    approval: Mapping[str, Any] | None,
    defer_loading: bool | Iterable[str] | None,
) -> bool | list[str] | None:
    """Check ``approval`` and ``defer_loading``; the latter as ``connect_mcp_servers`` keeps
    it (a bool, ``None`` or a list of server names)."""
    _named_only_enabled("approval", approval or {}, configs)
    if defer_loading is not None and not isinstance(defer_loading, bool):
        defer_loading = [defer_loading] if isinstance(defer_loading, str) else list(defer_loading)
        _named_only_enabled("defer_loading", defer_loading, configs)
    for name, rule in (approval or {}).items():  # checked now, not once servers are up
        if isinstance(rule, Mapping):
            for tool, one in rule.items():
                check_rule(one, where=f"{name}/{tool}")
        elif not isinstance(rule, (list, tuple, set, frozenset)):
            check_rule(rule, where=f"MCP server {name!r}")
    return defer_loading
