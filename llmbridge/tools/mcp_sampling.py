"""MCP sampling: a server's ``sampling/createMessage`` answered by a model the app names.

Rules:

* Only when the app passed a ``Client`` and ``sampling_model="provider:model"`` (the default)
  and/or ``sampling_models=[...]`` (cheapest to most capable) to ``connect_mcp_servers``;
  otherwise the SDK's default answer (sampling not supported) stands. Which model answers is
  ``modelPreferences`` applied to that list (``llmbridge.tools.mcp_sampling_models``: hints
  first, then cost/speed/intelligence priorities, then the default).
* Each request asks the app's approver first when there is one:
  ``ToolApprovalRequest(kind="sampling", name=<the chosen model>)`` with the server's
  ``messages``, ``system_prompt``, ``max_tokens``, ``temperature``, ``stop_sequences``,
  ``include_context``, ``context`` (the block it adds), ``tools`` (names), ``tool_choice`` and ``model_preferences``; a denial
  is a JSON-RPC error the server sees. The approver sees exactly what the model will get.
* The request becomes one ``client.complete`` call: ``systemPrompt`` → system message,
  messages → ``ChatMessage``s (text, images, audio, tool uses and results:
  ``llmbridge.tools.mcp_sampling_messages``), ``maxTokens``, ``temperature`` and
  ``stopSequences`` kept; the server's ``tools`` (the client announces the ``sampling.tools``
  capability) become the call's tools and ``toolChoice`` its ``tool_choice``: the model's tool
  calls go back to the server as ``tool_use`` blocks (the server runs them, never the app).
* ``includeContext`` is honoured up to what the app granted (``sampling_context=``: this
  server's exchanges by default, every server's only when the app says so; see
  ``llmbridge.tools.mcp_sampling_context``): the context block follows the system prompt, and
  the approver sees it (``context``). ``metadata`` is not forwarded.
* A model error is an error result for the server, never an exception in the app.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ..errors import LLMBridgeError
from ..messages import ChatMessage
from .approval import Approver, ToolApprovalRequest, ask_approval
from .mcp_content import field_of
from .mcp_sampling_context import ContextGrant, SamplingContext
from .mcp_sampling_messages import reply_result, sampling_messages, sampling_tools
from .mcp_sampling_models import choose_model, model_label

__all__ = ["sampling_callback", "sampling_capabilities"]


def sampling_capabilities(grant: ContextGrant = "thisServer") -> Any:
    """What the client announces when it answers sampling: tools, and context unless the app
    granted none."""
    import mcp.types as types

    context = types.SamplingContextCapability() if grant != "none" else None
    return types.SamplingCapability(context=context, tools=types.SamplingToolsCapability())


def _preferences(params: Any) -> dict[str, Any] | None:
    prefs = field_of(params, "modelPreferences", "model_preferences")
    if prefs is None:
        return None
    if hasattr(prefs, "model_dump"):
        dumped: dict[str, Any] = prefs.model_dump(mode="json", by_alias=True, exclude_none=True)
        return dumped
    return dict(prefs)


def sampling_callback(
    *,
    server: str,
    client: Any,
    model: Any,
    approve: Approver | None,
    models: Sequence[Any] = (),
    exchanges: SamplingContext | None = None,
) -> Callable[[Any, Any], Awaitable[Any]]:
    """The SDK's ``sampling_callback`` for ``server`` (``model``, ``models``: any
    ``ModelRef``; ``exchanges``: the session's exchanges ``includeContext`` may add)."""
    import mcp.types as types

    choices = list(models)

    async def answer(context: Any, params: Any) -> Any:
        chosen, _why = choose_model(
            field_of(params, "modelPreferences", "model_preferences"),
            models=choices,
            default=model,
        )
        label = model_label(chosen)
        messages = sampling_messages(params)
        system = field_of(params, "systemPrompt", "system_prompt")
        max_tokens = field_of(params, "maxTokens", "max_tokens")
        temperature = field_of(params, "temperature")
        stop = field_of(params, "stopSequences", "stop_sequences")
        tools, choice = sampling_tools(params)
        include = field_of(params, "includeContext", "include_context")
        block = exchanges.for_request(server, include) if exchanges is not None else None
        if block is not None:
            system = f"{system}\n\n{block}" if system else block
        if approve is not None:
            request = ToolApprovalRequest(
                "sampling",
                label,
                {
                    "system_prompt": system,
                    "messages": [m.model_dump(mode="json") for m in messages],
                    "max_tokens": max_tokens,
                    "temperature": temperature,
                    "stop_sequences": list(stop) if stop else None,
                    "include_context": include,
                    "context": block,
                    "tools": [t.name for t in tools],
                    "tool_choice": choice,
                    "model_preferences": _preferences(params),
                },
                server=server,
            )
            decision = await ask_approval(approve, request)
            if not decision.approved:
                why = f": {decision.reason}" if decision.reason else ""
                return types.ErrorData(code=-1, message=f"sampling request denied by the user{why}")
        if system:
            messages.insert(0, ChatMessage.system(str(system)))
        options: dict[str, Any] = {"max_tokens": max_tokens}
        if temperature is not None:
            options["temperature"] = temperature
        if stop:
            options["stop"] = list(stop)
        if tools:
            options["tools"] = tools
            if choice is not None:
                options["tool_choice"] = choice
        try:
            response = await client.complete(chosen, messages, **options)
        except LLMBridgeError as exc:
            return types.ErrorData(code=-32603, message=f"the app's model failed: {exc}")
        with_tools = bool(field_of(params, "tools")) or field_of(
            params, "toolChoice", "tool_choice"
        )
        return reply_result(response, model=label, with_tools=bool(with_tools))

    return answer
