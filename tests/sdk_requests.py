"""Request bodies checked against the official SDKs' request types (dev dependencies).

``check_body(api, body)`` validates a whole request body the way each SDK types it, and fails
on anything the type does not know: for the OpenAI and Anthropic ``TypedDict`` params the
validated value (lazy ``Iterable`` fields made lists) must equal the body, so an unknown key
(which pydantic drops from a ``TypedDict``) or a wrong shape is an error; Google's models
forbid extra fields themselves. ``EXTENSIONS`` lists the documented fields of compatible
servers that the OpenAI SDK does not type; they are checked for shape here and removed first.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import TypeAdapter

__all__ = ["EXTENSIONS", "check_body"]

EXTENSIONS = {
    # DeepSeek / llama.cpp: https://api-docs.deepseek.com/guides/thinking_mode (tool calls)
    "reasoning_content": str,
    # OpenRouter: https://openrouter.ai/docs/use-cases/reasoning-tokens (preserving reasoning)
    "reasoning_details": list,
}
"""Assistant-message fields of OpenAI-compatible servers, absent from the SDK's types."""
BODY_EXTENSIONS = {
    # OpenRouter: https://openrouter.ai/docs/use-cases/reasoning-tokens (the request setting)
    "reasoning": dict,
}
"""Body fields of OpenAI-compatible servers, absent from the SDK's types."""
CALL_EXTENSIONS = {"extra_content": dict}
"""Tool-call fields (Gemini's OpenAI endpoint ``extra_content.google.thought_signature``)."""


def _plain(value: Any) -> Any:
    """The validated value with pydantic's lazy iterators turned into lists."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, str | bytes | int | float | bool) or value is None:
        return value
    if isinstance(value, Iterator) or type(value).__name__ == "ValidatorIterator":
        return [_plain(v) for v in value]
    if hasattr(value, "model_dump") and hasattr(value, "model_extra"):
        # a union that also takes the SDK's response models (Anthropic's ``MessageParam``
        # content takes ``ContentBlock``s, e.g. ``ToolSearchToolResultBlock``) may pick one:
        # the fields given, dumped back; a field the model does not know is an error
        assert not value.model_extra, f"fields the SDK does not type: {value.model_extra}"
        return _plain(value.model_dump(exclude_unset=True))
    return value


def _strict(adapter: TypeAdapter[Any], value: Any) -> None:
    assert _plain(adapter.validate_python(value)) == value


def _without_extensions(body: dict[str, Any]) -> dict[str, Any]:
    messages = []
    for message in body["messages"]:
        message = dict(message)
        for field, kind in EXTENSIONS.items():
            if field in message:
                assert message["role"] == "assistant"
                assert isinstance(message.pop(field), kind)
        if "tool_calls" in message:
            calls = []
            for call in message["tool_calls"]:
                call = dict(call)
                for field, kind in CALL_EXTENSIONS.items():
                    if field in call:
                        assert isinstance(call.pop(field), kind)
                calls.append(call)
            message["tool_calls"] = calls
        messages.append(message)
    out = {**body, "messages": messages}
    for field, kind in BODY_EXTENSIONS.items():
        if field in out:
            assert isinstance(out.pop(field), kind)
    return out


def check_body(api: str, body: dict[str, Any]) -> None:
    """``body`` is what the SDK of ``api`` types (see module docstring)."""
    if api == "anthropic":
        params = pytest.importorskip("anthropic.types.message_create_params")
        _strict(TypeAdapter(params.MessageCreateParamsStreaming), body)
    elif api == "chat":
        params = pytest.importorskip("openai.types.chat.completion_create_params")
        _strict(TypeAdapter(params.CompletionCreateParamsStreaming), _without_extensions(body))
    elif api == "responses":
        params = pytest.importorskip("openai.types.responses.response_create_params")
        _strict(TypeAdapter(params.ResponseCreateParamsStreaming), body)
    elif api == "gemini":
        types = pytest.importorskip("google.genai.types")
        known = {"contents", "systemInstruction", "tools", "toolConfig", "generationConfig"}
        assert body.keys() <= known
        for content in body["contents"]:
            types.Content.model_validate(content)
        if "systemInstruction" in body:
            types.Content.model_validate(body["systemInstruction"])
        for tool in body.get("tools", []):
            types.Tool.model_validate(tool)
        if "toolConfig" in body:
            types.ToolConfig.model_validate(body["toolConfig"])
        if "generationConfig" in body:
            types.GenerationConfig.model_validate(body["generationConfig"])
    elif api == "ollama":
        check_ollama_body(body)
    elif api == "cohere":
        check_cohere_body(body)
    else:
        raise AssertionError(f"no SDK types for {api!r}")


def check_ollama_body(body: dict[str, Any]) -> None:
    """``/api/chat``: the ``ollama`` client's ``ChatRequest`` (pydantic, extra fields ignored):
    dumped back, it must equal the body, so an unknown field or a wrong shape fails."""
    types = pytest.importorskip("ollama._types")
    request = types.ChatRequest.model_validate(body)
    assert request.model_dump(exclude_none=True, by_alias=True) == body
    for message in body["messages"]:  # typed ``Mapping | Message``: a dict passes untyped
        typed = dict(message)
        if "images" in typed:  # base64 on the wire; the type holds ``Image`` objects
            typed["images"] = [types.Image(value=image) for image in typed["images"]]
        assert types.Message.model_validate(typed).model_dump(exclude_none=True) == message


def _no_extra(value: Any, where: str) -> None:
    """No field the type does not know, anywhere in a validated ``cohere`` model (its models
    keep unknown fields in ``model_extra``)."""
    extra = getattr(value, "model_extra", None)
    assert not extra, f"{where}: fields the cohere SDK does not type: {sorted(extra or {})}"
    if hasattr(value, "model_fields_set"):
        for name in value.model_fields_set:
            _no_extra(getattr(value, name), f"{where}.{name}")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            _no_extra(item, f"{where}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            _no_extra(item, f"{where}.{key}")


def check_cohere_body(body: dict[str, Any]) -> None:
    """``/v2/chat``: the keyword arguments of ``cohere.ClientV2.chat_stream`` (plus ``stream``),
    each value validated by the SDK's type for it, with no field the type does not know."""
    import inspect

    cohere = pytest.importorskip("cohere")
    v2 = pytest.importorskip("cohere.v2.types")
    params = set(inspect.signature(cohere.ClientV2.chat_stream).parameters) - {
        "self",
        "request_options",
    }
    assert body.get("stream") is True
    assert set(body) - {"stream"} <= params, set(body) - params
    types: dict[str, Any] = {
        "messages": list[cohere.ChatMessageV2],  # type: ignore[name-defined]
        "tools": list[cohere.ToolV2],  # type: ignore[name-defined]
        "documents": list[v2.V2ChatStreamRequestDocumentsItem],
        "response_format": cohere.ResponseFormatV2,  # type: ignore[attr-defined]
        "thinking": cohere.Thinking,  # type: ignore[attr-defined]
        "citation_options": cohere.CitationOptions,  # type: ignore[attr-defined]
    }
    for key, kind in types.items():
        if key in body:
            _no_extra(TypeAdapter(kind).validate_python(body[key]), key)
    assert isinstance(body["model"], str)
    if "tool_choice" in body:
        assert body["tool_choice"] in ("REQUIRED", "NONE")
