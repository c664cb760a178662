"""``connect_mcp_servers``' options: checked once, then held in small frozen values.

Rules: the per-server options are checked against the config before any server starts
(``approval=`` and ``defer_loading=`` may name only enabled servers, ``MCPConfigError``; every
approval rule must be one ``check_rule`` takes). ``connect_mcp_servers`` builds one
``HubOptions`` from its keywords (``Timeouts``, ``SamplingOptions``, the ``Interaction``); the hub
and each ``MCPServer`` read that value and never change it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from ...tools.approval import ApprovalRule, Approver, check_rule
from ..connection.interact import Interaction
from ..oauth.flow import MCPOAuth
from ..sampling.context import ContextGrant
from ..sampling.policy import MCPSamplingPolicy
from .config import MCPConfigError

__all__ = ["HubOptions", "SamplingOptions", "ServerApproval", "Timeouts", "checked_options"]

ServerApproval: TypeAlias = "ApprovalRule | list[str] | Mapping[str, ApprovalRule]"
"""Which of a server's tools need approval (``connect_mcp_servers(approval={server: ...})``)."""


@dataclass(frozen=True, slots=True)
class Timeouts:
    """Seconds, app-wide (a config entry's own win): ``request`` per request, ``startup`` to
    answer ``initialize`` and list tools, ``tool`` per tool call (``None``: not given)."""

    request: float | None = None
    startup: float | None = None
    tool: float | None = None


@dataclass(frozen=True, slots=True)
class SamplingOptions:
    """How servers' sampling requests are answered: with ``client`` and ``model`` (or one of
    ``models``, by their preferences), adding context as ``grant`` allows, within ``policy``."""

    client: Any = None
    model: Any = None
    models: tuple[Any, ...] = ()
    grant: ContextGrant = "thisServer"
    policy: MCPSamplingPolicy | None = None

    @property
    def enabled(self) -> bool:
        """Whether sampling is offered (a client and at least one model)."""
        return self.client is not None and (self.model is not None or bool(self.models))


@dataclass(frozen=True, slots=True)
class HubOptions:
    """Everything ``connect_mcp_servers`` was told besides the config, checked."""

    approve: Approver | None = None
    approval: Mapping[str, ServerApproval] = field(default_factory=dict)
    defer_loading: bool | tuple[str, ...] | None = None
    """``True``: every server's tools are deferred; names: those servers'; ``None``: each
    entry's ``defer_loading``."""
    timeouts: Timeouts = Timeouts()
    sampling: SamplingOptions = SamplingOptions()
    interaction: Interaction = field(default_factory=Interaction)
    """``elicit``, ``roots``, ``on_progress``, ``log_level`` (``llmbridge.mcp.connection.interact``)."""
    oauth: MCPOAuth | None = None
    """How servers that ask for OAuth are authorized."""


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
