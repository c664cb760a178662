"""Human approval of tool calls: which calls need it, and asking the app.

Rules:

* A tool's *rule* says whether a call needs approval: ``"always"``, ``"never"`` (the default
  when no rule is set), or a callable taking the call's arguments and returning ``True`` when
  this call needs approval (``lambda args: args["amount"] > 100``). Rules come from
  ``@tool(approval=...)``, ``ToolRegistry.register(..., approval=...)`` or an MCP server's
  ``approval`` in the config (``"always"``, ``"never"`` or a list of its tool names).
* The *approver* is the app's callback: it receives an ``ToolApprovalRequest`` and returns ``True``
  (go ahead), ``False`` (denied) or an ``ApprovalDecision`` carrying a reason the model reads.
  Sync callbacks run in a worker thread (they may block on ``input()``; a cancelled loop does
  not wait for them); async ones are awaited.
* Only calls the *model* makes are gated (the tool loop, ``ToolRegistry.execute``); an app that
  calls ``registry.acall`` itself has already decided. A call that needs approval when no
  approver was given is denied: the gate fails closed.
* A denied call never runs; it becomes an ``is_error`` result (``ToolApprovalError``'s text)
  the model reads and can work around. An approver that raises propagates: the app's bug is
  not the model's problem.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

import anyio.to_thread

from ..errors import LLMBridgeError, UsageError

__all__ = [
    "ApprovalDecision",
    "ApprovalRule",
    "Approver",
    "ToolApprovalError",
    "ToolApprovalRequest",
    "ask_approval",
    "check_rule",
    "denial",
    "needs_approval",
]

ApprovalRule: TypeAlias = Literal["always", "never"] | Callable[[Mapping[str, Any]], bool]
"""When a tool's calls need approval (see module rules)."""


@dataclass(frozen=True, slots=True)
class ToolApprovalRequest:
    """What the app's approver is asked about."""

    kind: Literal["tool_call", "sampling"]
    """``tool_call``: the model wants to run a tool; ``sampling``: an MCP server wants to ask
    the app's model (``arguments`` then holds the server's ``messages`` and settings)."""
    name: str
    """The tool's name as the model sees it (for sampling: the sampling model)."""
    arguments: Mapping[str, Any] = field(default_factory=dict)
    server: str | None = None
    """The MCP server the tool belongs to (or that asks to sample); ``None`` for app tools."""
    call_id: str | None = None
    """The id of the model's tool call."""


@dataclass(frozen=True, slots=True)
class ApprovalDecision:
    """An approver's answer with a reason (a plain ``bool`` works too)."""

    approved: bool
    reason: str | None = None
    """For a denial: told to the model (or to the server, for sampling)."""


Approver: TypeAlias = Callable[
    [ToolApprovalRequest], "bool | ApprovalDecision | Awaitable[bool | ApprovalDecision]"
]
"""The app's callback, sync or async."""


class ToolApprovalError(LLMBridgeError):
    """A call that needed approval was denied (or no approver was there to ask)."""

    def __init__(self, message: str, *, tool_name: str) -> None:
        super().__init__(message)
        self.tool_name = tool_name


def check_rule(rule: Any, *, where: str) -> ApprovalRule | None:
    """``rule`` if it is a valid approval rule (``None`` passes), else ``UsageError``."""
    if inspect.iscoroutinefunction(rule):  # its coroutine is truthy: every call would ask
        raise UsageError(
            f"approval= for {where} must be a plain function returning a bool, not an async "
            "one (the approver may be async)"
        )
    if rule is None or rule in ("always", "never") or callable(rule):
        return rule  # type: ignore[no-any-return]
    raise UsageError(
        f"approval= for {where} must be 'always', 'never' or a callable taking the call's "
        f"arguments, got {rule!r}"
    )


def needs_approval(rule: ApprovalRule | None, arguments: Mapping[str, Any]) -> bool:
    if rule is None or rule == "never":
        return False
    if rule == "always":
        return True
    return bool(rule(arguments))


async def ask_approval(approver: Approver | None, request: ToolApprovalRequest) -> ApprovalDecision:
    """Ask the app; no approver means denied."""
    if approver is None:
        return ApprovalDecision(False, "it needs approval and this app gave no approver")
    if inspect.iscoroutinefunction(approver) or inspect.iscoroutinefunction(
        getattr(approver, "__call__", None)  # noqa: B004 - an object with an async __call__
    ):
        answer: Any = await approver(request)  # type: ignore[misc]
    else:
        # abandoned on cancellation: a user who never answers input() must not hold it up
        answer = await anyio.to_thread.run_sync(approver, request, abandon_on_cancel=True)
        if inspect.isawaitable(answer):
            answer = await answer
    if isinstance(answer, ApprovalDecision):
        return answer
    if isinstance(answer, bool):
        return ApprovalDecision(answer)
    raise UsageError(f"the approver must return True, False or an ApprovalDecision, got {answer!r}")


def denial(request: ToolApprovalRequest, decision: ApprovalDecision) -> ToolApprovalError:
    """The error the model reads for a denied call."""
    why = f": {decision.reason}" if decision.reason else ""
    return ToolApprovalError(
        f"The call of tool {request.name!r} was not approved{why}. Do not retry it unchanged; "
        "continue without it or ask the user.",
        tool_name=request.name,
    )
