"""``ChatRequest`` → the ``/api/chat`` JSON body (pure), and what it could not send.

Follows ``ChatRequest`` of the ``ollama`` client and
https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion. Rules:

* the history is first made sendable (``providers/history.py``; Ollama takes no tool-call ids,
  so any id goes), then ``messages.py`` / ``tools.py``; ``stream: true`` always.
* settings → ``options`` in Ollama's words: ``temperature``, ``top_p``, ``top_k``, ``seed``,
  ``stop``, ``presence_penalty``, ``frequency_penalty``; ``max_tokens`` → ``num_predict``. The
  provider option ``num_ctx`` (the context window to load the model with) and an ``options``
  mapping (any other runner option: ``repeat_penalty``, ``num_gpu``, ``mirostat``…) join them;
  the request's own settings win over that mapping.
* ``keep_alive`` (provider option: ``"5m"``, seconds, ``-1``, ``0``) is a top-level field.
* ``response_format`` → ``format``: the JSON schema (grammar-constrained decoding), or
  ``"json"`` (JSON mode) for a schema that constrains nothing (``{}`` or an object without
  ``properties``).
* ``reasoning`` → ``think``: an effort level is sent as a level (``"low"`` / ``"medium"`` /
  ``"high"``; ``minimal`` is ``"low"``), which gpt-oss takes and other thinking models read as
  on; a budget alone turns thinking on (``True``), a budget of 0 off (``False``); Ollama has no
  budget, which is said in a warning. No ``reasoning``: ``think`` is left out (the model's
  default).
* ``tool_choice``: Ollama has none. ``none`` leaves the tools out (unless the history holds
  tool calls, which is said); ``required`` or a named tool are sent as ``auto`` with a warning.
  ``parallel_tool_calls`` is ignored with a warning.
* ``extra`` is merged last: dict values one level deep, others replace.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...request import ChatRequest, ResponseFormat
from ..base import Encoded
from ..history import AdaptedHistory, adapt_history
from ..request_parts import constrains, has_tool_blocks, merge_fields
from .messages import encode_messages
from .tools import encode_tools

__all__ = ["build_body"]

_OPTIONS = {
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "seed": "seed",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
    "max_tokens": "num_predict",
}
"""``ChatRequest`` setting → Ollama runner option."""
_LEVELS = {"minimal": "low", "low": "low", "medium": "medium", "high": "high"}


def _history(request: ChatRequest, provider: str) -> AdaptedHistory:
    return adapt_history(request.messages, provider=provider)


def response_format(fmt: ResponseFormat) -> str | dict[str, Any]:
    """``format``: the schema, or ``"json"`` when the schema constrains nothing."""
    schema = {k: v for k, v in fmt.json_schema.items() if k != "$schema"}
    if not constrains(schema):
        return "json"
    return schema


def _think(request: ChatRequest) -> bool | str | None:
    cfg = request.reasoning
    if cfg is None:
        return None
    if cfg.effort is not None:
        return _LEVELS[cfg.effort]
    return cfg.budget_tokens != 0


def _options(request: ChatRequest, options: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = dict(options.get("options") or {})
    if options.get("num_ctx") is not None:
        out["num_ctx"] = options["num_ctx"]
    for setting, name in _OPTIONS.items():
        value = getattr(request, setting)
        if value is not None:
            out[name] = value
    if request.stop:
        out["stop"] = list(request.stop)
    return out


def _tools_sent(request: ChatRequest) -> bool:
    if not request.tools or request.tool_mode == "prompt":
        return False
    choice = request.tool_choice
    return not (choice is not None and choice.mode == "none" and not has_tool_blocks(request))


def build_body(
    request: ChatRequest, *, provider: str, options: Mapping[str, Any] | None = None
) -> Encoded:
    """The JSON body and warnings (``Encoded``) of ``POST /api/chat`` for ``request``."""
    options = options or {}
    history = _history(request, provider)
    body: dict[str, Any] = {
        "model": request.model,
        "messages": encode_messages(history.messages, provider=provider),
        "stream": True,
    }
    if _tools_sent(request):
        body["tools"] = encode_tools(request.tools, provider=provider)
    if request.response_format is not None:
        body["format"] = response_format(request.response_format)
    think = _think(request)
    if think is not None:
        body["think"] = think
    runner = _options(request, options)
    if runner:
        body["options"] = runner
    if options.get("keep_alive") is not None:
        body["keep_alive"] = options["keep_alive"]
    merge_fields(body, request.extra)
    return Encoded(body, _dropped(request, history.warnings))


def _dropped(request: ChatRequest, history: list[str]) -> list[str]:
    """Settings of ``request`` that ``/api/chat`` has no field for."""
    warnings = list(history)
    tools = request.tools and request.tool_mode != "prompt"
    choice = request.tool_choice
    if tools and choice is not None and choice.mode in ("required", "tool"):
        warnings.append(
            f"tool_choice={choice.name or choice.mode!r}: Ollama has no tool choice; "
            "sent with the model choosing"
        )
    if tools and choice is not None and choice.mode == "none" and has_tool_blocks(request):
        warnings.append(
            "tool_choice='none': Ollama has no such choice and the history holds tool calls "
            "(which need the tools declared); sent with the model choosing"
        )
    if tools and request.parallel_tool_calls is not None:
        warnings.append("parallel_tool_calls: Ollama has no setting for it; ignored")
    cfg = request.reasoning
    if cfg is not None and cfg.budget_tokens:
        warnings.append(
            "reasoning.budget_tokens: Ollama takes no thinking budget; thinking is turned on"
        )
    return warnings
