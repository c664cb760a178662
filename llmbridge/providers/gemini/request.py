"""``ChatRequest`` → the ``GenerateContentRequest`` body (pure), shared by Gemini and Vertex.

Follows https://ai.google.dev/api/generate-content#request-body and the field names of the
official SDK (``google.genai.models._GenerateContentParameters_to_mldev`` / ``_to_vertex``).
Rules:

* tools → one ``functionDeclarations`` tool; parameters converted to Gemini's ``Schema``
  (``schema.py``), or sent untouched as ``parametersJsonSchema`` when the provider option
  ``json_schema`` is set (the API then takes full JSON Schema). A tool without parameters
  declares none (Gemini rejects an empty ``OBJECT``).
* tool choice → ``toolConfig.functionCallingConfig``: auto → AUTO, none → NONE, required → ANY,
  a named tool → ANY + ``allowedFunctionNames``.
* ``generationConfig``: temperature, topP, topK, seed, presencePenalty, frequencyPenalty,
  maxOutputTokens, stopSequences, structured output
  (``responseMimeType`` + ``responseSchema`` / ``responseJsonSchema``) and ``thinkingConfig``
  (``includeThoughts``, ``thinkingBudget``; an effort becomes ``thinkingLevel``, or a budget on
  Gemini 2.x models, which have no levels).
* the history is first made sendable (``providers/history.py``): other providers' reasoning
  and items are left out, with a warning; on Gemini 3 and later (any model not named
  ``gemini-1*`` / ``gemini-2*``), unsigned function calls of the current turn get Google's
  placeholder signature (``messages.py``).
* provider-run tool specs (``ChatRequest.hosted_tools``) → one ``Tool`` entry each after the
  function declarations (``googleSearch``, ``urlContext``, ``codeExecution``, ``fileSearch``:
  ``hosted.py``);
* ``extra`` is merged into the body last: dict values one level deep (so
  ``extra={"generationConfig": {"topK": 5}}`` adds to what was built), others replace.
* settings Gemini cannot honour are listed in the warnings ``build_body`` returns with the
  body (``Encoded``; the attempt loop reports them on ``StreamStart``); nothing is dropped
  silently.
"""

from __future__ import annotations

from typing import Any

from ...parts import CachePoint
from ...request import ChatRequest, ReasoningConfig, ToolChoice
from ...specs.schema_bounds import check_schema_bounds
from ..base import Encoded
from ..history import adapt_history, validates_thought_signatures
from ..request_parts import merge_fields
from .hosted import encode_hosted
from .messages import encode_messages
from .schema import dropped_keywords, to_gemini_schema
from .tools import encode_tool_choice, encode_tools

__all__ = ["EFFORT_BUDGETS", "build_body"]

EFFORT_BUDGETS = {"minimal": 512, "low": 1024, "medium": 8192, "high": 24576}
"""Thinking budgets standing in for an effort on Gemini 2.x models (no ``thinkingLevel``)."""


_SAMPLING = (
    ("seed", "seed"),
    ("top_k", "topK"),
    ("presence_penalty", "presencePenalty"),
    ("frequency_penalty", "frequencyPenalty"),
)
"""``ChatRequest`` settings → ``generationConfig`` fields (names as the official SDK sends them)."""


def _thinking(reasoning: ReasoningConfig, *, model: str) -> dict[str, Any]:
    config: dict[str, Any] = {"includeThoughts": reasoning.include_thoughts}
    if reasoning.budget_tokens is not None:
        config["thinkingBudget"] = reasoning.budget_tokens
    elif reasoning.effort is not None:
        if model.startswith(("gemini-2.", "models/gemini-2.")):
            config["thinkingBudget"] = EFFORT_BUDGETS[reasoning.effort]
        else:
            config["thinkingLevel"] = reasoning.effort.upper()
    return config


def _generation_config(request: ChatRequest, *, json_schema: bool, vertex: bool) -> dict[str, Any]:
    config: dict[str, Any] = {}
    if request.temperature is not None:
        config["temperature"] = request.temperature
    if request.top_p is not None:
        config["topP"] = request.top_p
    if request.max_tokens is not None:
        config["maxOutputTokens"] = request.max_tokens
    if request.stop:
        config["stopSequences"] = list(request.stop)
    for setting, field in _SAMPLING:
        value = getattr(request, setting)
        if value is not None:
            config[field] = value
    if request.response_format is not None:
        config["responseMimeType"] = "application/json"
        schema = request.response_format.json_schema
        if request.response_format.any_object:
            pass  # any JSON object: the MIME type alone is Gemini's JSON mode
        elif json_schema:
            check_schema_bounds(schema, what="response_format")
            config["responseJsonSchema"] = {k: v for k, v in schema.items() if k != "$schema"}
        else:
            config["responseSchema"] = to_gemini_schema(
                schema, additional_properties=vertex, what="response_format"
            )
    if request.reasoning is not None:
        config["thinkingConfig"] = _thinking(request.reasoning, model=request.model)
    return config


def build_body(
    request: ChatRequest,
    *,
    provider: str,
    vertex: bool = False,
    json_schema: bool = False,
    stream_arguments: bool = False,
) -> Encoded:
    """The JSON body of ``:streamGenerateContent`` for ``request``, and its warnings."""
    history = adapt_history(request.messages, provider=provider)
    hosted_warnings: list[str] = []
    system, contents = encode_messages(
        history.messages,
        provider=provider,
        placeholder_signatures=validates_thought_signatures(request.model),
    )
    body: dict[str, Any] = {"contents": contents}
    if system is not None:
        body["systemInstruction"] = system
    use_tools = request.tools and request.tool_mode != "prompt"
    if use_tools:
        body["tools"] = [
            {
                "functionDeclarations": encode_tools(
                    request.tools, json_schema=json_schema, vertex=vertex
                )
            }
        ]
        if request.tool_choice is not None or stream_arguments:
            choice = request.tool_choice or ToolChoice()
            body["toolConfig"] = encode_tool_choice(
                choice, stream_arguments=stream_arguments and vertex
            )
    if request.hosted_tools:  # provider-run tools (hosted.py): a Tool entry each
        hosted, hosted_warnings = encode_hosted(
            request.hosted_tools, provider=provider, vertex=vertex
        )
        body["tools"] = [*body.get("tools", []), *hosted]
    generation = _generation_config(request, json_schema=json_schema, vertex=vertex)
    if generation:
        body["generationConfig"] = generation
    merge_fields(body, request.extra)
    warnings = _dropped(
        request, json_schema=json_schema, vertex=vertex, history=history.warnings,
        hosted=hosted_warnings,
    )  # fmt: skip
    return Encoded(body, warnings)


def _dropped(
    request: ChatRequest,
    *,
    json_schema: bool,
    vertex: bool,
    history: list[str],
    hosted: list[str],
) -> list[str]:
    """Settings of ``request`` Gemini has no switch for (reported, never silently lost)."""
    warnings = list(history)
    if request.response_format is not None and not json_schema:
        schema = request.response_format.json_schema
        dropped = dropped_keywords(schema, additional_properties=vertex, what="response_format")
        if dropped:
            warnings.append(
                f"response_format: Gemini's responseSchema has no {', '.join(dropped)}; left out "
                "(llmbridge validates the reply against them; the json_schema option sends "
                "the full JSON Schema)"
            )
    warnings.extend(hosted)
    if request.parallel_tool_calls is False and request.tools:
        warnings.append("parallel_tool_calls=False: Gemini has no setting for it; it was ignored")
    if request.tools_cache_point is not None or any(
        isinstance(p, CachePoint) for m in request.messages for p in m.content
    ):
        warnings.append(
            "CachePoint: Gemini caches repeated prefixes by itself (explicit caches are made "
            "with its cachedContents API); ignored"
        )
    return warnings
