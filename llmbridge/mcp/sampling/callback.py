"""MCP sampling: a server's ``sampling/createMessage`` answered by a model the app names.

Rules:

* Only when the app passed a ``Client`` and ``sampling_model="provider:model"`` (the default)
  and/or ``sampling_models=[...]`` (cheapest to most capable) to ``connect_mcp_servers``;
  otherwise the SDK's default answer (sampling not supported) stands. Which model answers is
  ``modelPreferences`` applied to that list (``llmbridge.mcp.sampling.models``: hints
  first, then cost/speed/intelligence priorities, then the default).
* The app's ``MCPSamplingPolicy`` (``llmbridge.mcp.sampling.policy``) bounds each
  request: ``max_tokens`` is the smaller of the server's ``maxTokens`` and the app's ceiling
  (8,192 by default); the system message is the app's, and the server's ``systemPrompt`` is
  quoted as the server's in the first user message (then the ``includeContext`` block);
  ``temperature`` is clamped into the policy's range (0-1) or dropped; at most
  ``max_concurrent`` (4) of one server's requests call the model at once.
* Each request asks the app's approver first when there is one:
  ``ToolApprovalRequest(kind="sampling", name=<the chosen model>)`` with what the model will
  get, ``system``, ``messages`` (the server's text quoted in them), ``max_tokens``,
  ``temperature``, ``stop_sequences``, ``tools`` (names), ``tool_choice``, and what the server
  asked: ``system_prompt``, ``max_tokens_asked``, ``temperature_asked``, ``include_context``,
  ``context`` (the block it adds), ``model_preferences``; a denial is a JSON-RPC error the
  server sees. The approver sees exactly what the model will get.
* The request becomes one ``client.complete`` call: messages → ``ChatMessage``s (text, images,
  audio, tool uses and results: ``llmbridge.mcp.sampling.messages``), ``stopSequences``
  kept; the server's ``tools`` (the client announces the ``sampling.tools``
  capability) become the call's tools and ``toolChoice`` its ``tool_choice``: the model's tool
  calls go back to the server as ``tool_use`` blocks (the server runs them, never the app).
* ``includeContext`` is honoured up to what the app granted (``sampling_context=``: this
  server's exchanges by default, every server's only when the app says so; see
  ``llmbridge.mcp.sampling.context``): the context block follows the server's quoted
  prompt, and the approver sees it (``context``). ``metadata`` is not forwarded.
* A model error is an error result for the server, never an exception in the app.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anyio

from ...errors import LLMBridgeError
from ...messages import ChatMessage
from ...tools.approval import Approver, ToolApprovalRequest, ask_approval
from ..content import field_of
from .context import ContextGrant, SamplingContext
from .messages import reply_result, sampling_messages, sampling_tools
from .models import choose_model, model_label
from .policy import MCPSamplingPolicy, server_text, with_server_text

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


def _options(
    policy: MCPSamplingPolicy, params: Any, tools: list[Any], choice: str | None
) -> dict[str, Any]:
    """The ``complete`` options a request gets: its asks within the app's policy."""
    options: dict[str, Any] = {
        "max_tokens": policy.tokens_for(field_of(params, "maxTokens", "max_tokens"))
    }
    temperature = policy.temperature_for(field_of(params, "temperature"))
    if temperature is not None:
        options["temperature"] = temperature
    stop = field_of(params, "stopSequences", "stop_sequences")
    if stop:
        options["stop"] = list(stop)
    if tools:
        options["tools"] = tools
        if choice is not None:
            options["tool_choice"] = choice
    return options


def _approval(
    label: str,
    server: str,
    params: Any,
    *,
    system: str | None,
    messages: list[ChatMessage],
    options: dict[str, Any],
    block: str | None,
) -> ToolApprovalRequest:
    """What the approver sees: what the model will get, and what the server asked."""
    stop = options.get("stop")
    return ToolApprovalRequest(
        "sampling",
        label,
        {
            "system": system,
            "system_prompt": field_of(params, "systemPrompt", "system_prompt"),
            "messages": [m.model_dump(mode="json") for m in messages],
            "max_tokens": options["max_tokens"],
            "max_tokens_asked": field_of(params, "maxTokens", "max_tokens"),
            "temperature": options.get("temperature"),
            "temperature_asked": field_of(params, "temperature"),
            "stop_sequences": list(stop) if stop else None,
            "include_context": field_of(params, "includeContext", "include_context"),
            "context": block,
            "tools": [t.name for t in options.get("tools", [])],
            "tool_choice": options.get("tool_choice"),
            "model_preferences": _preferences(params),
        },
        server=server,
    )


def sampling_callback(
    *,
    server: str,
    client: Any,
    model: Any,
    approve: Approver | None,
    models: Sequence[Any] = (),
    exchanges: SamplingContext | None = None,
    policy: MCPSamplingPolicy | None = None,
) -> Callable[[Any, Any], Awaitable[Any]]:
    """The SDK's ``sampling_callback`` for ``server`` (``model``, ``models``: any
    ``ModelRef``; ``exchanges``: the session's exchanges ``includeContext`` may add;
    ``policy``: the app's limits, ``llmbridge.mcp.sampling.policy``)."""
    import mcp.types as types

    choices = list(models)
    rules = policy or MCPSamplingPolicy()
    turns = anyio.CapacityLimiter(rules.max_concurrent)  # this server's requests at once

    async def answer(context: Any, params: Any) -> Any:
        chosen, _why = choose_model(
            field_of(params, "modelPreferences", "model_preferences"),
            models=choices,
            default=model,
        )
        label = model_label(chosen)
        include = field_of(params, "includeContext", "include_context")
        block = exchanges.for_request(server, include) if exchanges is not None else None
        asked = field_of(params, "systemPrompt", "system_prompt")
        messages = with_server_text(sampling_messages(params), server_text(server, asked, block))
        system = rules.system_for(server)
        options = _options(rules, params, *sampling_tools(params))
        if approve is not None:
            request = _approval(
                label, server, params, system=system, messages=messages, options=options,
                block=block,
            )  # fmt: skip
            decision = await ask_approval(approve, request)
            if not decision.approved:
                why = f": {decision.reason}" if decision.reason else ""
                return types.ErrorData(code=-1, message=f"sampling request denied by the user{why}")
        if system:
            messages.insert(0, ChatMessage.system(system))
        try:
            async with turns:
                response = await client.complete(chosen, messages, **options)
        except LLMBridgeError as exc:
            return types.ErrorData(code=-32603, message=f"the app's model failed: {exc}")
        with_tools = bool(field_of(params, "tools")) or field_of(
            params, "toolChoice", "tool_choice"
        )
        return reply_result(response, model=label, with_tools=bool(with_tools))

    return answer
