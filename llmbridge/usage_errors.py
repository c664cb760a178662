"""Misuse of the public API, caught where it is made and said as one ``UsageError``.

Rules (``docs/errors.md``: every misuse is an ``LLMBridgeError``, never a raw pydantic
``ValidationError``, ``TypeError`` of ours or ``ModuleNotFoundError``):

* ``as_messages``: what ``stream`` / ``complete`` / ``run`` take as ``messages``. A plain string
  is one user message (as in pydantic-ai); a ``ChatMessage`` is itself; a dict is read in
  ``ChatMessage``'s own shape or in the OpenAI Chat Completions shape (``role`` / ``content``
  string or text and ``image_url`` parts / assistant ``tool_calls`` / ``tool_call_id``). Anything
  else is a ``UsageError`` that names ``ChatMessage`` and the message's position.
* ``invalid_options``: a pydantic ``ValidationError`` from building a request, said as one line
  per bad option (``temperature='hot': ...``), with "did you mean" for a mistyped choice.
* ``provider_configs``: ``Client(providers={...})`` checked when the client is made: an unknown
  provider name, or a key the provider does not declare (``llmbridge.providers.option_names``),
  is a ``UsageError`` with the closest known name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import orjson
from pydantic import ValidationError

from .errors import ConfigurationError, UsageError
from .messages import ChatMessage
from .parts import ImagePart, TextPart, ToolCallPart, ToolResultPart
from .providers.config import ProviderConfig
from .providers.option_names import check_options, did_you_mean

__all__ = ["as_messages", "invalid_options", "provider_configs"]

_SHAPE = (
    "a ChatMessage (lb.ChatMessage.user('...')), a plain string (one user message) or an "
    "OpenAI-style dict such as {'role': 'user', 'content': '...'}"
)


def as_messages(messages: Any) -> list[ChatMessage]:
    """``messages`` as a list of ``ChatMessage`` (see module rules)."""
    if isinstance(messages, str):
        return [ChatMessage.user(messages)]
    if isinstance(messages, ChatMessage | Mapping):
        messages = [messages]
    if not isinstance(messages, Iterable):
        raise UsageError(f"messages= takes a list of messages: {_SHAPE}; got {messages!r}")
    out = []
    for n, message in enumerate(messages):
        if isinstance(message, ChatMessage):
            out.append(message)
        elif isinstance(message, str):
            out.append(ChatMessage.user(message))
        elif isinstance(message, Mapping):
            out.append(_from_dict(n, message))
        else:
            raise UsageError(
                f"messages[{n}] is a {type(message).__name__}: each message is {_SHAPE}"
            )
    return out


def _from_dict(n: int, data: Mapping[str, Any]) -> ChatMessage:
    try:
        return ChatMessage.model_validate(_openai_shape(data))
    except (ValidationError, ValueError, TypeError, KeyError) as exc:
        reason = _reasons(exc) if isinstance(exc, ValidationError) else str(exc)
        raise UsageError(
            f"messages[{n}] is not a message: {reason}. Each message is {_SHAPE} "
            "(roles: system, user, assistant, tool)"
        ) from None


def _openai_shape(data: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI Chat Completions message as ``ChatMessage`` data (others pass unchanged)."""
    out = dict(data)
    role = out.get("role")
    content = out.get("content")
    if role == "developer":
        out["role"] = "system"
    if isinstance(content, list):
        out["content"] = [_part(p) for p in content]
    elif content is None and ("tool_calls" in out or role == "assistant"):
        out["content"] = []
    calls = out.pop("tool_calls", None)
    if calls:
        out["content"] = [*out["content"], *(_call(c) for c in calls)]
    call_id = out.pop("tool_call_id", None)
    if call_id is not None and role == "tool":
        text = content if isinstance(content, str) else ""
        result = ToolResultPart(
            tool_call_id=str(call_id), name=out.pop("name", None), content=[TextPart(text=text)]
        )
        out["content"] = [result]
    return out


def _part(part: Any) -> Any:
    if isinstance(part, Mapping) and part.get("type") == "image_url":
        image = part.get("image_url")
        url = image.get("url") if isinstance(image, Mapping) else image
        return ImagePart(url=str(url))
    return part


def _call(call: Mapping[str, Any]) -> ToolCallPart:
    function = call["function"]
    raw = function.get("arguments") or "{}"
    arguments = orjson.loads(raw) if isinstance(raw, str) else dict(raw)
    return ToolCallPart(
        id=str(call["id"]),
        name=str(function["name"]),
        arguments=arguments,
        raw_arguments=raw if isinstance(raw, str) else None,
    )


def _reasons(exc: ValidationError, *, names: Mapping[str, Any] | None = None) -> str:
    """One clause per error: ``where=value: what pydantic says`` (+ did you mean)."""
    clauses = []
    seen = set()
    for error in exc.errors(include_url=False):
        loc = [str(p) for p in error["loc"] if not str(p).startswith("function-")]
        where = loc[0] if loc else "value"
        if where in seen:  # a union reports each member: say the first
            continue
        seen.add(where)
        value = error.get("input")
        hint = ""
        expected = (error.get("ctx") or {}).get("expected")
        if isinstance(value, str) and isinstance(expected, str):
            hint = did_you_mean(
                value, [e.strip(" '") for e in expected.replace(" or ", ",").split(",")]
            )
        shown = f"{where}={value!r}" if names is None or where in names else where
        clauses.append(f"{shown}: {error['msg']}{hint}")
    return "; ".join(clauses)


def invalid_options(exc: ValidationError, options: Mapping[str, Any]) -> UsageError:
    """The ``UsageError`` for a request whose options fail validation."""
    return UsageError(f"invalid option(s): {_reasons(exc, names=options)}")


def provider_configs(
    providers: Mapping[str, Mapping[str, Any] | ProviderConfig] | None,
) -> dict[str, ProviderConfig]:
    """``Client(providers=...)`` as configs, checked (see module rules)."""
    from .providers.registry import available_providers, provider_factory

    if providers is not None and not isinstance(providers, Mapping):
        raise UsageError(
            "providers= takes a dict of provider name to options, e.g. "
            "{'openai-compatible': {'base_url': 'http://127.0.0.1:8080/v1'}}"
        )
    configs = {}
    for name, given in (providers or {}).items():
        if not isinstance(given, Mapping | ProviderConfig):
            raise UsageError(
                f"providers={{{name!r}: ...}} takes a dict of options (api_key, base_url, ...), "
                f"not a {type(given).__name__}"
            )
        try:
            factory = provider_factory(name)
        except ConfigurationError as exc:
            known = available_providers()
            if name in known:  # a plug-in that fails to import: said when it is first used
                factory = None
            else:
                raise UsageError(
                    f"providers={{{name!r}: ...}}: unknown provider {name!r}"
                    f"{did_you_mean(name, known)}; known providers: {', '.join(known)}"
                ) from exc
        config = ProviderConfig.from_mapping(given)
        if factory is not None:
            check_options(name, factory, config.options.keys())
        configs[name] = config
    return configs
