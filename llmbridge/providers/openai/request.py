"""``ChatRequest`` → the Chat Completions request body (``POST {base}/chat/completions``).

Follows https://platform.openai.com/docs/api-reference/chat/create. Rules:

* always ``stream: true``; ``stream_options: {"include_usage": true}`` only where the preset
  accepts it (some servers reject unknown fields);
* ``seed`` (Mistral: ``random_seed``), ``presence_penalty`` and ``frequency_penalty`` as given;
  ``top_k`` only where the preset takes it (self-hosted servers, some gateways);
* the output limit goes in ``max_completion_tokens`` or ``max_tokens`` as the preset says
  (OpenAI's reasoning models reject ``max_tokens``; many compatible servers know only it);
* ``parallel_tool_calls`` and ``tool_choice`` only with tools; ``strict`` only where accepted;
* reasoning effort as ``reasoning_effort`` (OpenAI, Groq, xAI…) or OpenRouter's ``reasoning``;
* the history is first made sendable (``providers/history.py``): other providers' reasoning
  and items left out with a warning, tool-call ids rewritten where the preset's server refuses
  them (``Preset.tool_call_ids``: OpenAI 40 characters, Mistral 9 alphanumerics);
* ``lb.WebSearch`` → ``web_search_options`` (OpenAI's search models) or OpenRouter's
  ``openrouter:web_search`` server tool, as ``Preset.web_search`` says (``hosted.py``);
* ``ChatRequest.extra`` is merged into the body last, as given (it wins);
* a setting the preset cannot send is left out of the body and named in the warnings
  ``build_body`` returns with it (``Encoded``; the attempt loop puts them on ``StreamStart``):
  nothing is dropped silently.
"""

from __future__ import annotations

from typing import Any

from ...parts import CachePoint
from ...request import ChatRequest
from ..base import Encoded
from ..history import (
    ANY_IDS,
    CHAT_COMPLETIONS_IDS,
    MISTRAL_IDS,
    AdaptedHistory,
    adapt_history,
    validates_thought_signatures,
)
from .hosted import add_web_search
from .messages import encode_messages, result_images
from .presets import Preset
from .round_trip import foreign_family_details
from .tools import (
    encode_response_format,
    encode_tool_choice,
    encode_tools,
    response_schema_warning,
)

__all__ = ["adapted_history", "build_body"]

_ID_RULES = {"any": ANY_IDS, "openai": CHAT_COMPLETIONS_IDS, "mistral": MISTRAL_IDS}


def adapted_history(request: ChatRequest, *, preset: Preset, provider: str) -> AdaptedHistory:
    """``request.messages`` as this server takes them (``providers/history.py``)."""
    rule = _ID_RULES[preset.tool_call_ids]
    return adapt_history(request.messages, provider=provider, ids=rule)


def build_body(*, request: ChatRequest, preset: Preset, provider: str) -> Encoded:
    """The body for ``request`` and what it could not send as asked, one sentence each."""
    history = adapted_history(request, preset=preset, provider=provider)
    warnings = _dropped(request, preset=preset, provider=provider, history=history)
    body: dict[str, Any] = {
        "model": request.model,
        "messages": encode_messages(
            messages=history.messages,
            provider=provider,
            send_reasoning_content=preset.send_reasoning_content,
            images=preset.images,
            cache_points=preset.cache_points,
            model=request.model,
            placeholder_signatures=preset.gemini_signatures
            and validates_thought_signatures(request.model),
        ),
        "stream": True,
    }
    if preset.accepts_stream_options:
        body["stream_options"] = {"include_usage": True}
    if request.tools and request.tool_mode != "prompt":
        body["tools"] = encode_tools(tools=request.tools, strict_supported=preset.strict_tools)
        if request.tool_choice is not None:
            body["tool_choice"] = encode_tool_choice(
                choice=request.tool_choice, tools=request.tools
            )
        if request.parallel_tool_calls is not None and preset.parallel_tool_calls:
            body["parallel_tool_calls"] = request.parallel_tool_calls
    if request.max_tokens is not None:
        body[preset.max_tokens_field] = request.max_tokens
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.top_p is not None:
        body["top_p"] = request.top_p
    if request.stop:
        body["stop"] = request.stop
    if request.seed is not None and preset.seed_field is not None:
        body[preset.seed_field] = request.seed
    if request.top_k is not None and preset.top_k:
        body["top_k"] = request.top_k
    if request.presence_penalty is not None:
        body["presence_penalty"] = request.presence_penalty
    if request.frequency_penalty is not None:
        body["frequency_penalty"] = request.frequency_penalty
    if request.response_format is not None:
        body["response_format"] = encode_response_format(
            fmt=request.response_format, json_schema=preset.json_schema
        )
        if preset.json_without_thinking and request.reasoning is None:
            body["chat_template_kwargs"] = {"enable_thinking": False}
    _reasoning(request, preset, body)
    if request.hosted_tools:  # web search (hosted.py); other specs were refused before
        at = len(history.warnings)  # after history's, as the rules read
        warnings[at:at] = add_web_search(
            body, request.hosted_tools, style=preset.web_search, provider=provider
        )
    body.update(request.extra)
    return Encoded(body, warnings)


def _reasoning(request: ChatRequest, preset: Preset, body: dict[str, Any]) -> None:
    config = request.reasoning
    if config is None:
        return
    if preset.reasoning_style == "effort" and config.effort is not None:
        body["reasoning_effort"] = config.effort
    elif preset.reasoning_style == "openrouter":
        reasoning: dict[str, Any] = {}
        if config.effort is not None:
            reasoning["effort"] = config.effort
        elif config.budget_tokens is not None:
            reasoning["max_tokens"] = config.budget_tokens
        if not config.include_thoughts:
            reasoning["exclude"] = True
        body["reasoning"] = reasoning or {"enabled": True}


def _dropped(
    request: ChatRequest, *, preset: Preset, provider: str, history: AdaptedHistory
) -> list[str]:
    """What ``build_body`` cannot send as asked besides web search (its own), one sentence
    each, history's first."""
    name = preset.name
    warnings = list(history.warnings)
    if count := foreign_family_details(request.messages, provider=provider, model=request.model):
        warnings.append(
            f"history: {count} reasoning detail(s) made by another model family were not sent "
            f"to {request.model} (only the family that made them can read them)"
        )
    warnings += _tool_and_format_drops(request, preset)
    if not preset.images and (count := result_images(request.messages)):
        warnings.append(
            f"images: {name} is set to take no images; {count} image(s) in tool results were "
            "sent as a short text note"
        )
    warnings += _cache_point_drops(request, name, cache_points=preset.cache_points)
    if request.top_k is not None and not preset.top_k:
        warnings.append(f"top_k: {name} does not take it; it was left out")
    if request.seed is not None and preset.seed_field is None:
        warnings.append(f"seed: {name} does not take it; it was left out")
    config = request.reasoning
    if config is not None:
        if preset.reasoning_style == "none":
            warnings.append(f"reasoning: {name} takes no reasoning setting; it was left out")
        elif preset.reasoning_style == "effort" and config.effort is None:
            warnings.append(
                "reasoning.budget_tokens: Chat Completions takes only an effort level "
                "(ReasoningConfig(effort=...)); it was left out"
            )
    return warnings


def _tool_and_format_drops(request: ChatRequest, preset: Preset) -> list[str]:
    """What ``build_body`` cannot send of the tools' and the response format's settings."""
    name, warnings = preset.name, []
    if request.tools and request.tool_mode != "prompt":
        if not preset.strict_tools and any(tool.strict for tool in request.tools):
            warnings.append(f"strict tool schemas: {name} does not take 'strict'; sent without it")
        if request.parallel_tool_calls is not None and not preset.parallel_tool_calls:
            warnings.append(f"parallel_tool_calls: {name} does not take it; it was left out")
    if request.response_format is not None and preset.json_schema:
        strict = response_schema_warning(request.response_format)
        if strict is not None:
            warnings.append(strict)
    if (
        request.response_format is not None
        and not preset.json_schema
        and not request.response_format.any_object
    ):
        warnings.append(
            f"response_format: {name} takes no JSON schema; sent as json_object, "
            "so the schema is not enforced"
            + ("" if request.format_mode == "native" else " (it is in the system prompt)")
        )
    return warnings


def _cache_point_drops(request: ChatRequest, name: str, *, cache_points: bool) -> list[str]:
    """The ``CachePoint``s ``build_body`` leaves out, one sentence each."""
    warnings = []
    if request.tools_cache_point is not None:
        warnings.append(
            f"a CachePoint among the tools: {name} has no breakpoint for tool definitions; ignored"
        )
    if not cache_points and _has_cache_points(request):
        warnings.append(f"CachePoint: {name} takes no prompt-cache breakpoints; ignored")
    elif _has_cache_points(request, roles=("assistant", "tool")):
        warnings.append(
            "CachePoint in an assistant or tool message: only user and system "
            "content can be marked; ignored there"
        )
    return warnings


def _has_cache_points(
    request: ChatRequest, roles: tuple[str, ...] = ("system", "user", "assistant", "tool")
) -> bool:
    return any(
        isinstance(p, CachePoint) for m in request.messages if m.role in roles for p in m.content
    )
