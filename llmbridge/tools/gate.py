"""The checks a model's tool call passes before it runs: readable arguments, a known tool,
and (where the tool's rule asks for it) the app's approval. Each failure is the ``is_error``
result the model reads; ``None`` means the call may run. Used by ``ToolRegistry.execute*``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ToolArgumentsError
from ..parts import ToolCallPart
from ..tool_spec import ToolSpec
from .approval import (
    ApprovalRule,
    Approver,
    ToolApprovalRequest,
    ask_approval,
    denial,
    needs_approval,
)
from .results import ToolResult, result_message

__all__ = ["gate", "refusal"]


def refusal(entries: Mapping[str, Any], call: ToolCallPart) -> ToolResult | None:
    """The error result for a call that cannot run at all (bad JSON, unknown tool)."""
    if call.error is not None:
        exc: Exception = ToolArgumentsError(
            f"Could not read the arguments of tool {call.name!r}: {call.error}. "
            "Call the tool again with a valid JSON object.",
            tool_name=call.name,
        )
        return result_message(call_id=call.id, name=call.name, exception=exc)
    if call.name not in entries:
        known = ", ".join(entries) or "none"
        exc = ToolArgumentsError(
            f"Unknown tool {call.name!r}. Available tools: {known}.", tool_name=call.name
        )
        return result_message(call_id=call.id, name=call.name, exception=exc)
    return None


async def gate(
    spec: ToolSpec,
    rule: ApprovalRule | None,
    server: str | None,
    call: ToolCallPart,
    approve: Approver | None,
) -> ToolResult | None:
    """Ask for approval when ``rule`` wants it; the denial's result, or ``None``."""
    if rule is None or rule == "never":
        return None
    try:
        arguments = spec.validate_arguments(call.arguments)
        if not needs_approval(rule, arguments):
            return None
    except Exception as exc:  # bad arguments (or a rule that chokes on them)
        return result_message(call_id=call.id, name=call.name, exception=exc)
    request = ToolApprovalRequest(
        "tool_call", call.name, dict(call.arguments), server=server, call_id=call.id
    )
    decision = await ask_approval(approve, request)
    if decision.approved:
        return None
    return result_message(call_id=call.id, name=call.name, exception=denial(request, decision))
