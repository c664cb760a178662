"""``ChatRequest`` → the ``ConverseStream`` JSON body (pure), and what it could not send.

Follows ``ConverseStreamRequest`` of botocore's ``bedrock-runtime`` service model (the body is
every member but ``modelId``, which goes in the path). Rules:

* the history is first made sendable (``providers/history.py``; tool-call ids kept to the
  ``ToolUseId`` pattern ``[a-zA-Z0-9_.:-]``, at most 64); then ``messages.py`` / ``tools.py``.
* ``inferenceConfig``: ``maxTokens``, ``temperature``, ``topP``, ``stopSequences``.
  ``top_k`` and reasoning go in ``additionalModelRequestFields`` in the family's own words
  (``models.py``); Claude thinking raises ``maxTokens`` to leave room for the budget.
* ``response_format`` → ``outputConfig.textFormat`` (``json_schema``; the schema as a JSON
  *string*, as the API wants) on models that enforce it (``Capabilities.json_mode``); the
  client asks in the prompt elsewhere.
* provider options ``guardrail_config`` / ``performance_config`` / ``request_metadata`` /
  ``service_tier`` / ``additional_model_response_field_paths`` / ``prompt_variables`` →
  ``guardrailConfig`` / ``performanceConfig`` / ``requestMetadata`` / ``serviceTier`` /
  ``additionalModelResponseFieldPaths`` / ``promptVariables`` (camelCase spellings accepted).
* provider-run tool specs → Nova 2's system tools after the function tools (``hosted.py``).
* ``extra`` is merged last: dict values one level deep, others replace.
* settings Converse cannot carry (``seed``, penalties, ``parallel_tool_calls=False``, a
  family's missing ``top_k`` or reasoning switch, ``tool_choice="none"`` with tool history) are
  named in the warnings ``build_body`` returns with the body (``Encoded``; the attempt loop
  puts them on ``StreamStart``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from ...request import ChatRequest
from ..base import Encoded
from ..history import AdaptedHistory, IdRule, adapt_history
from ..request_parts import has_tool_blocks, merge_fields
from .hosted import encode_hosted
from .messages import encode_messages
from .models import native_structured_output, reasoning_fields, top_k_fields
from .tools import encode_tool_choice, encode_tools

__all__ = ["BEDROCK_IDS", "OPTION_FIELDS", "build_body"]

BEDROCK_IDS = IdRule("bedrock", invalid_chars=r"[^a-zA-Z0-9_.:-]", max_length=64)

OPTION_FIELDS = {
    "guardrail_config": "guardrailConfig",
    "performance_config": "performanceConfig",
    "request_metadata": "requestMetadata",
    "service_tier": "serviceTier",
    "additional_model_response_field_paths": "additionalModelResponseFieldPaths",
    "prompt_variables": "promptVariables",
}
"""Provider options sent as top-level body fields (snake_case or the API's camelCase)."""


def _history(request: ChatRequest, provider: str) -> AdaptedHistory:
    return adapt_history(request.messages, provider=provider, ids=BEDROCK_IDS)


def _inference(request: ChatRequest, fields: dict[str, Any]) -> dict[str, Any]:
    config: dict[str, Any] = {}
    if request.max_tokens is not None:
        config["maxTokens"] = request.max_tokens
    if request.temperature is not None:
        config["temperature"] = request.temperature
    if request.top_p is not None:
        config["topP"] = request.top_p
    if request.stop:
        config["stopSequences"] = list(request.stop)
    if request.top_k is not None:
        merge_fields(fields, top_k_fields(request.model, request.top_k) or {})
    if request.reasoning is not None:
        cfg = request.reasoning
        extra, budget = reasoning_fields(request.model, effort=cfg.effort, budget=cfg.budget_tokens)
        merge_fields(fields, extra or {})
        if budget and config.get("maxTokens", 0) <= budget:
            config["maxTokens"] = budget + 4096  # room for the answer after the thinking
    return config


def _output_config(request: ChatRequest) -> dict[str, Any]:
    fmt = request.response_format
    assert fmt is not None
    schema = {k: v for k, v in fmt.json_schema.items() if k != "$schema"}
    text = orjson.dumps(schema, option=orjson.OPT_SORT_KEYS).decode()  # the same string each time
    definition: dict[str, Any] = {"schema": text, "name": fmt.name}
    description = schema.get("description")
    if isinstance(description, str) and description:
        definition["description"] = description
    return {"textFormat": {"type": "json_schema", "structure": {"jsonSchema": definition}}}


def structured(request: ChatRequest, options: Mapping[str, Any]) -> bool:
    override = options.get("structured_output")
    return native_structured_output(request.model, None if override is None else bool(override))


def build_body(
    request: ChatRequest, *, provider: str, options: Mapping[str, Any] | None = None
) -> Encoded:
    """The JSON body of ``/model/{modelId}/converse-stream`` for ``request``, and what it
    could not carry (warnings)."""
    options = options or {}
    history = _history(request, provider)
    hosted_warnings: list[str] = []
    system, messages = encode_messages(
        history.messages,
        provider=provider,
        results_as_text=bool(options.get("tool_results_as_text")),
    )
    body: dict[str, Any] = {"messages": messages}
    if system:
        body["system"] = system
    fields: dict[str, Any] = {}
    inference = _inference(request, fields)
    if inference:
        body["inferenceConfig"] = inference
    choice = request.tool_choice
    tools_off = choice is not None and choice.mode == "none" and not has_tool_blocks(request)
    tools: list[dict[str, Any]] = []
    if request.tools and request.tool_mode != "prompt" and not tools_off:
        tools = encode_tools(request.tools, request.tools_cache_point)
    if request.hosted_tools:  # Nova's system tools (hosted.py), after the function tools
        hosted, hosted_warnings = encode_hosted(request.hosted_tools, provider=provider)
        tools += hosted
    if tools:
        config: dict[str, Any] = {"tools": tools}
        picked = encode_tool_choice(choice) if choice is not None and request.tools else None
        if picked is not None:
            config["toolChoice"] = picked
        body["toolConfig"] = config
    if fields:
        body["additionalModelRequestFields"] = fields
    if request.response_format is not None and structured(request, options):
        body["outputConfig"] = _output_config(request)
    for option, name in OPTION_FIELDS.items():
        value = options.get(option, options.get(name))
        if value is not None:
            body[name] = value
    merge_fields(body, request.extra)
    return Encoded(body, _dropped(request, history.warnings, hosted_warnings))


def _dropped(request: ChatRequest, history: list[str], hosted: list[str]) -> list[str]:
    """Settings of ``request`` that Converse (or the model's family) has no field for."""
    warnings = list(history)
    for setting in ("seed", "presence_penalty", "frequency_penalty"):
        if getattr(request, setting) is not None:
            warnings.append(f"{setting}: Bedrock's Converse API has no such setting; ignored")
    warnings.extend(hosted)
    if request.parallel_tool_calls is False and request.tools:
        warnings.append("parallel_tool_calls=False: Converse has no setting for it; ignored")
    if request.top_k is not None and top_k_fields(request.model, request.top_k) is None:
        warnings.append(f"top_k: no known top_k field for model {request.model!r}; ignored")
    if request.reasoning is not None:
        cfg = request.reasoning
        fields, _ = reasoning_fields(request.model, effort=cfg.effort, budget=cfg.budget_tokens)
        if fields is None:
            warnings.append(
                f"reasoning: no known reasoning switch for model {request.model!r}; ignored"
            )
    choice = request.tool_choice
    if choice is not None and choice.mode == "none" and request.tools and has_tool_blocks(request):
        warnings.append(
            "tool_choice='none': Converse has no such choice and the history holds tool blocks "
            "(which need the tools declared); sent with the model choosing"
        )
    return warnings
