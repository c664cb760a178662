"""Encoder: ``ChatRequest`` -> Echo API JSON body. Pure: no IO, no clock, no environment.

Rules: text parts are joined per message; assistant tool calls travel as ``calls`` and tool
results as ``role: tool`` messages with ``call_id``. Reasoning parts are dropped (the Echo API
has no reasoning). Images cannot be expressed: ``UnsupportedFeatureError``, never a silent drop.
"""

from __future__ import annotations

from typing import Any

from llmbridge import ChatMessage, ChatRequest, ImagePart, TextPart, ToolCallPart, ToolResultPart
from llmbridge.errors import UnsupportedFeatureError

__all__ = ["build_body"]


def _message(message: ChatMessage) -> list[dict[str, Any]]:
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, TextPart):
            texts.append(part.text)
        elif isinstance(part, ToolCallPart):
            calls.append({"id": part.id, "name": part.name, "arguments": part.arguments})
        elif isinstance(part, ToolResultPart):
            results.append({"role": "tool", "call_id": part.tool_call_id, "text": part.text})
        elif isinstance(part, ImagePart):
            raise UnsupportedFeatureError("the Echo API takes no images", provider="echo")
    if results:
        return results
    out: dict[str, Any] = {"role": message.role, "text": "".join(texts)}
    if calls:
        out["calls"] = calls
    return [out]


def build_body(request: ChatRequest) -> dict[str, Any]:
    """The JSON body for ``POST /v1/echo``."""
    body: dict[str, Any] = {
        "model": request.model,
        "messages": [m for message in request.messages for m in _message(message)],
    }
    if request.tools:
        body["tools"] = [
            {"name": t.name, "description": t.description, "parameters": t.parameters}
            for t in request.tools
        ]
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    body["stream"] = True
    return body
