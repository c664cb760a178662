"""``ChatRequest`` → the ``/v2/chat`` JSON body (pure), and what it could not send.

Follows ``V2ChatStreamRequest`` of the ``cohere`` SDK (``v2/raw_client.py``'s body) and
https://docs.cohere.com/reference/chat-stream. Rules:

* the history is first made sendable (``providers/history.py``), then ``messages.py``
  (messages and top-level ``documents``) and ``tools.py``; ``stream: true`` always.
* settings: ``max_tokens``, ``stop_sequences``, ``temperature``, ``seed``, ``frequency_penalty``,
  ``presence_penalty``, ``k`` (top_k), ``p`` (top_p); ``strict_tools`` when any tool asks for
  strict schemas.
* ``response_format`` → ``{"type": "json_object", "json_schema": …}`` (no schema when it
  constrains nothing: JSON mode).
* ``reasoning`` → ``thinking``: ``{"type": "enabled"}`` with ``token_budget`` when a budget is
  given, ``{"type": "disabled"}`` for a budget of 0; Cohere takes no effort level (said).
* ``tool_choice``: ``required`` → ``REQUIRED``, ``none`` → ``NONE``, a named tool → ``REQUIRED``
  with only that tool declared. ``parallel_tool_calls`` has no field (said).
* provider options ``safety_mode``, ``citation_options``, ``priority`` are body fields.
* images in tool results become text notes (``messages.py``), said in a warning.
* ``extra`` is merged last: dict values one level deep, others replace.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...request import ChatRequest, ResponseFormat
from ..base import Encoded
from ..history import AdaptedHistory, IdRule, adapt_history
from ..request_parts import constrains, merge_fields
from .messages import encode_messages, result_images
from .tools import encode_tool_choice, encode_tools

__all__ = ["COHERE_IDS", "OPTION_FIELDS", "build_body"]

COHERE_IDS = IdRule("cohere", invalid_chars=r"[^a-zA-Z0-9_.:-]", max_length=64)
"""Cohere's own ids are ``<tool name>_<12 letters or digits>``; others are kept to that
alphabet (an id it did not make is accepted)."""
OPTION_FIELDS = ("safety_mode", "citation_options", "priority")
_SETTINGS = {
    "max_tokens": "max_tokens",
    "temperature": "temperature",
    "seed": "seed",
    "frequency_penalty": "frequency_penalty",
    "presence_penalty": "presence_penalty",
    "top_k": "k",
    "top_p": "p",
}


def _history(request: ChatRequest, provider: str) -> AdaptedHistory:
    return adapt_history(request.messages, provider=provider, ids=COHERE_IDS)


def response_format(fmt: ResponseFormat) -> dict[str, Any]:
    schema = {k: v for k, v in fmt.json_schema.items() if k != "$schema"}
    if not constrains(schema):
        return {"type": "json_object"}
    return {"type": "json_object", "json_schema": schema}


def _thinking(request: ChatRequest) -> dict[str, Any] | None:
    cfg = request.reasoning
    if cfg is None:
        return None
    if cfg.budget_tokens == 0:
        return {"type": "disabled"}
    out: dict[str, Any] = {"type": "enabled"}
    if cfg.budget_tokens:
        out["token_budget"] = cfg.budget_tokens
    return out


def build_body(
    request: ChatRequest, *, provider: str, options: Mapping[str, Any] | None = None
) -> Encoded:
    """The JSON body and warnings (``Encoded``) of ``POST /v2/chat`` for ``request``."""
    options = options or {}
    history = _history(request, provider)
    messages, documents = encode_messages(history.messages, provider=provider)
    body: dict[str, Any] = {"model": request.model, "messages": messages, "stream": True}
    if documents:
        body["documents"] = documents
    choice = request.tool_choice
    if request.tools and request.tool_mode != "prompt":
        tools = request.tools
        if choice is not None and choice.mode == "tool":
            tools = [t for t in tools if t.name == choice.name] or tools
        body["tools"] = encode_tools(tools, provider=provider)
        if any(tool.strict for tool in tools):
            body["strict_tools"] = True
        picked = encode_tool_choice(choice) if choice is not None else None
        if picked is not None:
            body["tool_choice"] = picked
    for setting, name in _SETTINGS.items():
        value = getattr(request, setting)
        if value is not None:
            body[name] = value
    if request.stop:
        body["stop_sequences"] = list(request.stop)
    if request.response_format is not None:
        body["response_format"] = response_format(request.response_format)
    thinking = _thinking(request)
    if thinking is not None:
        body["thinking"] = thinking
    for option in OPTION_FIELDS:
        if options.get(option) is not None:
            body[option] = options[option]
    merge_fields(body, request.extra)
    return Encoded(body, _dropped(request, history.warnings))


def _dropped(request: ChatRequest, history: list[str]) -> list[str]:
    """Settings of ``request`` that ``/v2/chat`` has no field for."""
    warnings = list(history)
    tools = request.tools and request.tool_mode != "prompt"
    if tools and request.parallel_tool_calls is not None:
        warnings.append("parallel_tool_calls: Cohere has no setting for it; ignored")
    if count := result_images(request.messages):
        warnings.append(
            f"images: Cohere takes no images in tool results; {count} image(s) were sent as a "
            "short text note"
        )
    cfg = request.reasoning
    if cfg is not None and cfg.effort is not None and cfg.budget_tokens is None:
        warnings.append(
            f"reasoning.effort={cfg.effort!r}: Cohere takes a token budget, not a level; "
            "thinking is turned on with the model's default budget"
        )
    return warnings
