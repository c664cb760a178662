"""The request a call builds: ``build_request`` (``Client.build_request``) turns a call's own
settings into a ``ChatRequest``, and ``check_request_options`` refuses what is none of them.

Rules: the request's settings are ``build_request``'s keyword-only parameters (one list:
``REQUEST_OPTIONS`` is read from its signature, ``call_options.RequestOptions`` types them);
a value pydantic refuses is a ``UsageError`` naming the option (``usage_errors``), never a raw
``ValidationError``; a per-call setting (``call_settings``) given to one model of a chain, or an
unknown name, is a ``UsageError`` with a suggestion.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from ..call_settings import CALL_OPTIONS
from ..compaction import Compaction
from ..errors import UsageError
from ..providers.option_names import did_you_mean
from ..request import ChatRequest, FormatMode, ReasoningConfig, ToolChoice, ToolMode
from ..structured import response_format_of
from ..usage_errors import as_messages, invalid_options
from .call_options import FormatArg, Messages, Tools
from .tool_options import as_specs, hosted_tools, tools_cache_point

__all__ = ["REQUEST_OPTIONS", "build_request", "check_request_options"]


def build_request(
    model_name: str,
    messages: Messages,
    *,
    tools: Tools | None = None,
    tool_choice: ToolChoice | str | None = None,
    tool_mode: ToolMode = "auto",
    temperature: float | None = None,
    max_tokens: int | None = None,
    top_p: float | None = None,
    stop: str | list[str] | None = None,
    seed: int | None = None,
    top_k: int | None = None,
    presence_penalty: float | None = None,
    frequency_penalty: float | None = None,
    response_format: FormatArg | type[Any] | None = None,
    format_mode: FormatMode = "auto",
    reasoning: ReasoningConfig | None = None,
    parallel_tool_calls: bool | None = None,
    background: bool = False,
    stream: bool | None = None,
    compaction: Compaction | bool | None = None,
    extra: Mapping[str, Any] | None = None,
) -> ChatRequest:
    fields = {
        "model": model_name,
        "messages": as_messages(messages),
        "tools": as_specs(tools),
        "hosted_tools": hosted_tools(tools),
        "tools_cache_point": tools_cache_point(tools),
        "tool_choice": tool_choice,
        "tool_mode": tool_mode,
        "temperature": temperature,
        "max_tokens": max_tokens,
        "top_p": top_p,
        "stop": stop,
        "seed": seed,
        "top_k": top_k,
        "presence_penalty": presence_penalty,
        "frequency_penalty": frequency_penalty,
        "response_format": (
            None if response_format is None else response_format_of(response_format)
        ),
        "format_mode": format_mode,
        "reasoning": reasoning,
        "parallel_tool_calls": parallel_tool_calls,
        "background": background or None,  # None: kept out of recorded fixtures
        "stream": False if stream is False else None,  # None: streamed, as recorded
        "compaction": Compaction.of(compaction),
        "extra": dict(extra or {}),
    }
    try:
        return ChatRequest.model_validate(fields)
    except ValidationError as exc:
        raise invalid_options(exc, fields) from None


def check_request_options(options: Mapping[str, Any]) -> None:
    """Refuse what is no request setting (a per-call setting given to one model of a chain, or
    an unknown name), with a suggestion. (``providers.option_names.check_options`` checks a
    provider's config keys: another job.)"""
    unknown = options.keys() - REQUEST_OPTIONS
    if unknown and unknown <= CALL_OPTIONS:  # taken out of a call's options before this
        raise UsageError(
            f"{', '.join(sorted(unknown))}: per-call settings, given to stream(), complete() "
            "or run() for the whole call, not to one model of a chain (ModelOption)"
        )
    if unknown:
        known = REQUEST_OPTIONS | CALL_OPTIONS
        first = sorted(unknown)[0]
        raise UsageError(
            f"unknown option(s) {', '.join(sorted(unknown))}{did_you_mean(first, known)}: "
            f"stream(), complete() and run() take {', '.join(sorted(known))} "
            "(provider-specific fields: extra=)"
        )


REQUEST_OPTIONS = frozenset(
    name
    for name, param in inspect.signature(build_request).parameters.items()
    if param.kind is param.KEYWORD_ONLY
)
