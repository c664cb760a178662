"""ChatRequest → ``POST {base_url}/responses`` body (pure, no IO).

Follows https://platform.openai.com/docs/api-reference/responses/create.

Rules:

* Always ``stream: true``. The library is stateless (it sends the whole history every turn),
  so the body says ``store: false`` unless ``extra`` sets ``store`` or the request runs in the
  background (``ChatRequest.background``: ``background: true`` with ``store: true``, which the
  API requires; ``resume.py``); reasoning then round-trips
  through ``encrypted_content``, asked for with ``include: ["reasoning.encrypted_content"]``
  whenever reasoning is requested statelessly.
* Tools use the flat function shape (``type``, ``name``, ``description``, ``parameters``,
  ``strict``). The API treats a missing ``strict`` as true, so an unset ``ToolSpec.strict`` is
  sent as ``false`` (a schema written for non-strict mode would otherwise be rejected).
* ``tool_choice``: ``auto`` / ``none`` / ``required`` or ``{"type": "function", "name": ...}``.
* ``reasoning``: ``effort`` and ``summary: "auto"`` when thoughts are wanted; ``max_tokens`` is
  ``max_output_tokens``; ``response_format`` is ``text.format`` of type ``json_schema``.
* Settings the API lacks (``stop``, ``seed``, ``top_k``, the penalties, a reasoning
  ``budget_tokens``) are dropped with a warning
  (returned with the body, ``Encoded``; the attempt loop reports them on ``StreamStart``).
* the history is first made sendable (``providers/history.py``): other providers' reasoning
  and items left out with a warning, tool-call ids over 64 characters rewritten;
* ``compaction`` (``llmbridge.compaction``) → a ``context_management`` compaction entry
  (``compaction.py``);
* provider-run tool specs (``ChatRequest.hosted_tools``) follow the function tools as built-in
  tools, with the ``include`` entries they need (``hosted.py``);
* ``extra`` is merged last, as given; ``include`` lists are united, ``text`` objects merged and
  ``tools`` (built-in tools such as ``web_search``) appended to the function tools.
"""

from __future__ import annotations

from typing import Any

from ...parts import CachePoint
from ...request import ChatRequest
from ..base import Encoded
from ..history import RESPONSES_IDS, adapt_history
from ..openai import response_schema_warning, schema_format
from .compaction import compaction_entry, compaction_warnings
from .hosted import encode_hosted, hosted_warnings
from .messages import PROVIDER_NAME, encode_messages
from .tool_search import encode_function_tools
from .tools import encode_tool_choice

__all__ = [
    "COUNT_FIELDS",
    "ENCRYPTED_REASONING",
    "build_body",
    "count_tokens_body",
]

COUNT_FIELDS = frozenset(
    {"model", "input", "instructions", "tools", "tool_choice", "parallel_tool_calls",
     "reasoning", "text", "truncation", "conversation", "previous_response_id"}
)  # fmt: skip
"""What ``/responses/input_tokens`` takes of a Responses body (the SDK's count params)."""

ENCRYPTED_REASONING = "reasoning.encrypted_content"


def _store(request: ChatRequest) -> bool:
    return bool(request.background) or bool(request.extra.get("store", False))


def _dropped(request: ChatRequest, history_warnings: list[str]) -> list[str]:
    """Settings this API cannot express (dropped from the body), and history left out."""
    warnings = list(history_warnings)
    if request.stop:
        warnings.append("stop sequences are not supported by the Responses API; dropped")
    if request.response_format is not None:
        strict = response_schema_warning(request.response_format)
        if strict is not None:
            warnings.append(strict)
    for setting in ("seed", "top_k", "presence_penalty", "frequency_penalty"):
        if getattr(request, setting) is not None:
            warnings.append(f"{setting} is not supported by the Responses API; dropped")
    if request.reasoning is not None and request.reasoning.budget_tokens is not None:
        warnings.append(
            "reasoning budget_tokens is not supported by the Responses API (use effort); dropped"
        )
    warnings.extend(hosted_warnings(request.hosted_tools))
    warnings.extend(compaction_warnings(request.compaction))
    if request.tools_cache_point is not None:
        warnings.append(
            "a CachePoint among the tools: the Responses API has no breakpoint for tool "
            "definitions; ignored"
        )
    if any(
        isinstance(p, CachePoint) for m in request.messages if m.role != "user" for p in m.content
    ):
        warnings.append(
            "CachePoint outside user messages: the Responses API marks only input content "
            "(instructions are a string); ignored there"
        )
    return warnings


def build_body(request: ChatRequest) -> Encoded:
    """The JSON body for ``request`` and the warnings of what it could not send."""
    store = _store(request)
    history = adapt_history(request.messages, provider=PROVIDER_NAME, ids=RESPONSES_IDS)
    warnings = _dropped(request, history.warnings)
    instructions, items = encode_messages(history.messages, store=store)
    body: dict[str, Any] = {"model": request.model, "input": items, "stream": True}
    if instructions is not None:
        body["instructions"] = instructions
    if request.background:
        body["background"] = True
        body["store"] = True
    elif not store:
        body["store"] = False
    if request.tools and request.tool_mode != "prompt":
        body["tools"] = encode_function_tools(request.tools, request.hosted_tools)
        if request.tool_choice is not None:
            body["tool_choice"] = encode_tool_choice(request.tool_choice, request.tools)
        if request.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = request.parallel_tool_calls
    include: list[str] = []
    if request.hosted_tools:  # provider-run tools (hosted.py), after the function tools
        hosted, include = encode_hosted(request.hosted_tools)
        body["tools"] = [*body.get("tools", []), *hosted]
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.top_p is not None:
        body["top_p"] = request.top_p
    if request.max_tokens is not None:
        body["max_output_tokens"] = request.max_tokens
    if request.reasoning is not None:
        reasoning: dict[str, Any] = {}
        if request.reasoning.effort is not None:
            reasoning["effort"] = request.reasoning.effort
        if request.reasoning.include_thoughts:
            reasoning["summary"] = "auto"
        body["reasoning"] = reasoning
        if not store:
            include.append(ENCRYPTED_REASONING)
    if request.compaction is not None:
        body["context_management"] = [compaction_entry(request.compaction)]
    if request.response_format is not None:
        fmt = request.response_format
        body["text"] = {
            "format": (
                {"type": "json_object"}
                if fmt.any_object
                else {"type": "json_schema", **schema_format(fmt)}
            )
        }
    extra = dict(request.extra)
    extra_include = extra.pop("include", None)
    if isinstance(extra_include, list):
        include.extend(i for i in extra_include if i not in include)
    if include:
        body["include"] = include
    extra_tools = extra.pop("tools", None)
    if isinstance(extra_tools, list):  # built-in tools (web_search, mcp, ...) join ours
        body["tools"] = [*body.get("tools", []), *extra_tools]
    extra_text = extra.pop("text", None)
    if isinstance(extra_text, dict):
        body["text"] = {**body.get("text", {}), **extra_text}
    body.update(extra)
    return Encoded(body, warnings)


def count_tokens_body(request: ChatRequest) -> dict[str, Any]:
    """The ``/responses/input_tokens`` body: ``build_body``'s, less what only shapes the
    answer (``stream``, ``store``, ``include``, limits, sampling)."""
    return {k: v for k, v in build_body(request).body.items() if k in COUNT_FIELDS}
