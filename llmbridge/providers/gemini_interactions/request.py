"""``ChatRequest`` → the ``POST /interactions`` body (pure), shared by Gemini and Vertex.

Follows ``google.genai`` Interactions ``CreateModelInteraction``, ``GenerationConfig``,
``Function``, ``TextResponseFormat`` and the built-in ``Tool`` variants (revision 2026-05-20).
Rules:

* ``model``, ``input`` (steps: ``messages.py``, after ``providers/history.py`` left out other
  providers' reasoning and items, with warnings), ``system_instruction``, ``stream: true``;
* tools → ``{"type": "function", "name", "description", "parameters"}`` with the JSON Schema
  as given (minus ``$schema``; the API takes JSON Schema); a custom (freeform) tool is an
  ``UnsupportedFeatureError``. Tool choice → ``generation_config.tool_choice``: auto / none,
  required → ``any``, a named tool → ``{"allowed_tools": {"mode": "any", "tools": [name]}}``;
* provider-run tools through Gemini's encoder (the same refusals and warnings), each entry
  renamed to the Interactions shape (``googleSearch`` → ``{"type": "google_search"}``,
  ``urlContext``, ``codeExecution``, ``fileSearch``; field names in snake case);
* ``generation_config``: temperature, top_p, max_output_tokens, stop_sequences, seed,
  ``thinking_level`` (the effort), ``thinking_summaries`` (``auto``, or ``none`` when thoughts
  are not wanted); a thinking *budget* has no field: a warning. ``top_k``, the penalties,
  ``parallel_tool_calls=False`` and cache points have none either: warnings;
* ``response_format`` → ``{"type": "text", "mime_type": "application/json", "schema"}``;
* ``background=True`` → ``background: true`` (the server keeps the interaction: ``store`` is
  never false then); ``previous_interaction_id``, ``store`` and any other body field come
  through ``extra``, merged last (dict values one level deep).
"""

from __future__ import annotations

import re
from typing import Any

from ...errors import ConfigurationError, UnsupportedFeatureError
from ...parts import CachePoint
from ...request import ChatRequest, ToolChoice
from ...specs.schema_bounds import check_schema_bounds
from ...tool_spec import ToolSpec
from ..base import Encoded
from ..gemini import encode_hosted
from ..history import adapt_history
from ..request_parts import merge_fields
from .messages import encode_input

__all__ = ["build_body"]

_HOSTED_TYPES = {
    "googleSearch": "google_search",
    "urlContext": "url_context",
    "codeExecution": "code_execution",
    "fileSearch": "file_search",
}
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")
_UNSUPPORTED = (
    ("top_k", "top_k"),
    ("presence_penalty", "presence_penalty"),
    ("frequency_penalty", "frequency_penalty"),
)


def _snake(name: str) -> str:
    return _CAMEL.sub("_", name).lower()


def encode_tools(tools: list[ToolSpec], *, provider: str) -> list[dict[str, Any]]:
    out = []
    for tool in tools:
        if tool.input_format is not None:
            raise UnsupportedFeatureError(
                f"tool {tool.name!r} is a custom (freeform) tool, which the Interactions API "
                "cannot declare: use spec.as_function() or tool_mode='prompt'",
                provider=provider,
            )
        decl: dict[str, Any] = {"type": "function", "name": tool.name}
        if tool.description:
            decl["description"] = tool.description
        params = tool.parameters
        if params.get("properties") or params.get("$ref") or params.get("anyOf"):
            check_schema_bounds(params, what=f"tool {tool.name!r}")
            decl["parameters"] = {k: v for k, v in params.items() if k != "$schema"}
        out.append(decl)
    return out


def encode_tool_choice(choice: ToolChoice) -> Any:
    if choice.mode == "tool" and choice.name:
        return {"allowed_tools": {"mode": "any", "tools": [choice.name]}}
    return {"auto": "auto", "none": "none", "required": "any", "tool": "any"}[choice.mode]


def _hosted(request: ChatRequest, provider: str) -> tuple[list[dict[str, Any]], list[str]]:
    entries, warnings = encode_hosted(request.hosted_tools, provider=provider)
    out = []
    for entry in entries:
        ((key, inner),) = entry.items()
        out.append({"type": _HOSTED_TYPES.get(key, _snake(key)),
                    **{_snake(k): v for k, v in inner.items()}})  # fmt: skip
    return out, warnings


def _generation_config(request: ChatRequest, warnings: list[str]) -> dict[str, Any]:
    config: dict[str, Any] = {}
    for setting, field in (
        ("temperature", "temperature"),
        ("top_p", "top_p"),
        ("max_tokens", "max_output_tokens"),
        ("seed", "seed"),
    ):
        value = getattr(request, setting)
        if value is not None:
            config[field] = value
    if request.stop:
        config["stop_sequences"] = list(request.stop)
    reasoning = request.reasoning
    if reasoning is not None:
        if reasoning.effort is not None:
            config["thinking_level"] = reasoning.effort
        if reasoning.budget_tokens is not None:
            warnings.append(
                "reasoning budget_tokens: the Interactions API has no thinking budget (only "
                "thinking_level: use effort=); ignored"
            )
        config["thinking_summaries"] = "auto" if reasoning.include_thoughts else "none"
    if request.tools and request.tool_mode != "prompt" and request.tool_choice is not None:
        config["tool_choice"] = encode_tool_choice(request.tool_choice)
    return config


def _dropped(request: ChatRequest, warnings: list[str]) -> None:
    for setting, label in _UNSUPPORTED:
        if getattr(request, setting) is not None:
            warnings.append(f"{label}: the Interactions API has no such setting; ignored")
    if request.parallel_tool_calls is False and request.tools:
        warnings.append("parallel_tool_calls=False: the Interactions API has no setting for it")
    if request.tools_cache_point is not None or any(
        isinstance(p, CachePoint) for m in request.messages for p in m.content
    ):
        warnings.append("CachePoint: Gemini caches repeated prefixes by itself; ignored")


def build_body(request: ChatRequest, *, provider: str) -> Encoded:
    """The JSON body of ``POST /interactions`` for ``request``, and its warnings."""
    history = adapt_history(request.messages, provider=provider)
    warnings = list(history.warnings)
    system, steps = encode_input(history.messages, provider=provider)
    body: dict[str, Any] = {"model": request.model, "input": steps, "stream": True}
    if system is not None:
        body["system_instruction"] = system
    tools: list[dict[str, Any]] = []
    if request.tools and request.tool_mode != "prompt":
        tools = encode_tools(request.tools, provider=provider)
    if request.hosted_tools:
        hosted, more = _hosted(request, provider)
        tools.extend(hosted)
        warnings.extend(more)
    if tools:
        body["tools"] = tools
    generation = _generation_config(request, warnings)
    if generation:
        body["generation_config"] = generation
    if request.response_format is not None:
        fmt: dict[str, Any] = {"type": "text", "mime_type": "application/json"}
        if not request.response_format.any_object:
            schema = request.response_format.json_schema
            check_schema_bounds(schema, what="response_format")
            fmt["schema"] = {k: v for k, v in schema.items() if k != "$schema"}
        body["response_format"] = fmt
    if request.background:
        body["background"] = True
    merge_fields(body, request.extra)
    if request.background and body.get("store") is False:
        raise ConfigurationError(
            "background=True needs the server to keep the interaction: drop store=False",
            provider=provider,
        )
    _dropped(request, warnings)
    return Encoded(body, warnings)
