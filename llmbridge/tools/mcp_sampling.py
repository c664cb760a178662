"""MCP sampling: a server's ``sampling/createMessage`` answered by a model the app names.

Rules: only when the app passed ``sampling_model="provider:model"`` and a ``Client`` to
``connect_mcp_servers``; otherwise the SDK's default answer (sampling not supported) stands.
Each request asks the app's approver first (``ToolApprovalRequest(kind="sampling")`` with the
server's messages, system prompt and ``max_tokens``) when there is one; a denial is a JSON-RPC
error the server sees. The request becomes one ``client.complete`` call: ``systemPrompt`` →
system message, messages → ``ChatMessage``s (text, images, audio), ``maxTokens``,
``temperature`` and ``stopSequences`` kept. The answer is the reply's text, the model name,
and the stop reason mapped (``stop`` → ``endTurn``, ``length`` → ``maxTokens``). A model error
is an error result for the server, never an exception in the app.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..errors import LLMBridgeError
from ..messages import ChatMessage
from ..model_refs import first_model, is_chain
from .approval import Approver, ToolApprovalRequest, ask_approval
from .mcp_content import field_of, prompt_messages

__all__ = ["sampling_callback"]

_STOP = {"stop": "endTurn", "length": "maxTokens", "tool_calls": "toolUse"}


def _label(model: Any) -> str:
    """How approvals and answers name ``model`` (a fallback chain: by its first model)."""
    if is_chain(model):
        model = first_model(model)
    if isinstance(model, str):
        return model
    if isinstance(model, tuple):
        return str(model[1])
    return str(getattr(model, "model", None) or getattr(model, "name", None) or model)


def sampling_callback(
    *, server: str, client: Any, model: Any, approve: Approver | None
) -> Callable[[Any, Any], Awaitable[Any]]:
    """The SDK's ``sampling_callback`` for ``server`` (``model``: any ``ModelRef``)."""
    import mcp.types as types

    label = _label(model)

    async def answer(context: Any, params: Any) -> Any:
        messages = prompt_messages(params)
        system = field_of(params, "systemPrompt", "system_prompt")
        max_tokens = field_of(params, "maxTokens", "max_tokens")
        if approve is not None:
            request = ToolApprovalRequest(
                "sampling",
                label,
                {
                    "system_prompt": system,
                    "messages": [m.model_dump(mode="json") for m in messages],
                    "max_tokens": max_tokens,
                },
                server=server,
            )
            decision = await ask_approval(approve, request)
            if not decision.approved:
                why = f": {decision.reason}" if decision.reason else ""
                return types.ErrorData(code=-1, message=f"sampling request denied by the user{why}")
        if system:
            messages.insert(0, ChatMessage.system(str(system)))
        stop = field_of(params, "stopSequences", "stop_sequences")
        try:
            response = await client.complete(
                model,
                messages,
                max_tokens=max_tokens,
                temperature=field_of(params, "temperature"),
                stop=list(stop) if stop else None,
            )
        except LLMBridgeError as exc:
            return types.ErrorData(code=-32603, message=f"the app's model failed: {exc}")
        reason = _STOP.get(str(response.finish_reason), str(response.finish_reason or "endTurn"))
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=response.text),
            model=str(response.model or label),
            stop_reason=reason,
        )

    return answer
