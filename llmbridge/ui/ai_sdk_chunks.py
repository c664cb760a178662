"""UI ops -> the AI SDK's UI message stream chunks (``ai`` 7.x ``uiMessageChunkSchema``).

Rules: one table entry per op type; every chunk is a JSON object the ``ai`` package's schema
accepts (checked by tests/ui against the package itself). llmbridge data with no chunk of its
own rides in ``providerMetadata["llmbridge"]`` (reasoning signatures, a tool call's raw
arguments text and provider data)
or in ``data-llmbridge-*`` parts, so ``to_messages`` can give it back on the next turn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import ops

__all__ = ["FINISH_REASONS", "chunks_for"]

FINISH_REASONS = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool-calls",
    "content_filter": "content-filter",
    "error": "error",
    "other": "other",
}
"""llmbridge finish reason -> the AI SDK's (``other`` for anything else)."""

Chunk = dict[str, Any]


def _meta(**values: Any) -> dict[str, Any]:
    kept = {k: v for k, v in values.items() if v is not None}
    return {"providerMetadata": {"llmbridge": kept}} if kept else {}


def _tool_input(op: ops.ToolInput) -> list[Chunk]:
    if op.error is not None:
        return [
            {
                "type": "tool-input-error",
                "toolCallId": op.id,
                "toolName": op.name,
                "input": op.raw_arguments,
                "errorText": op.error,
            }
        ]
    chunk = {"type": "tool-input-available", "toolCallId": op.id, "toolName": op.name}
    kept = _meta(raw_arguments=op.raw_arguments, provider_data=op.provider_data)
    return [{**chunk, "input": op.arguments, **kept}]


def _tool_output(op: ops.ToolOutput) -> list[Chunk]:
    if op.is_error:
        return [{"type": "tool-output-error", "toolCallId": op.id, "errorText": op.text}]
    return [{"type": "tool-output-available", "toolCallId": op.id, "output": op.output}]


def _source(op: ops.Source) -> list[Chunk]:
    chunk: Chunk = {"type": "source-url", "sourceId": op.id, "url": op.url}
    if op.title is not None:
        chunk["title"] = op.title
    return [{**chunk, **_meta(cited_text=op.cited_text)}]


def _data(op: ops.DataOut) -> list[Chunk]:
    chunk: Chunk = {"type": f"data-{op.name}", "data": op.value}
    if op.id is not None:
        chunk["id"] = op.id
    if op.transient:
        chunk["transient"] = True
    return [chunk]


def _run_end(op: ops.RunEnd) -> list[Chunk]:
    chunk: Chunk = {"type": "finish"}
    reason = "error" if op.failed else op.finish_reason
    if reason is not None:
        chunk["finishReason"] = FINISH_REASONS.get(reason, "other")
    if op.usage:
        total = {
            "inputTokens": sum(u.usage.input_tokens for u in op.usage),
            "outputTokens": sum(u.usage.output_tokens for u in op.usage),
            "reasoningTokens": sum(u.usage.reasoning_tokens for u in op.usage),
            "cachedInputTokens": sum(u.usage.cached_input_tokens for u in op.usage),
        }
        chunk["messageMetadata"] = {"usage": total}
    return [chunk]


_TABLE: dict[type, Callable[[Any], list[Chunk]]] = {
    ops.RunStart: lambda op: [{"type": "start", "messageId": op.message_id}],
    ops.StepStart: lambda op: [{"type": "start-step"}],
    ops.StepEnd: lambda op: [{"type": "finish-step"}],
    ops.TextStart: lambda op: [{"type": "text-start", "id": op.id}],
    ops.TextDeltaOp: lambda op: [{"type": "text-delta", "id": op.id, "delta": op.delta}],
    ops.TextEnd: lambda op: [{"type": "text-end", "id": op.id}],
    ops.ReasoningStart: lambda op: [{"type": "reasoning-start", "id": op.id}],
    ops.ReasoningDeltaOp: lambda op: [{"type": "reasoning-delta", "id": op.id, "delta": op.delta}],
    ops.ReasoningEnd: lambda op: [
        {
            "type": "reasoning-end",
            "id": op.id,
            **_meta(signature=op.signature, provider_data=op.provider_data, provider=op.provider),
        }
    ],
    ops.ToolStart: lambda op: [
        {"type": "tool-input-start", "toolCallId": op.id, "toolName": op.name}
    ],
    ops.ToolDelta: lambda op: [
        {"type": "tool-input-delta", "toolCallId": op.id, "inputTextDelta": op.delta}
    ],
    ops.ToolInput: _tool_input,
    ops.ToolOutput: _tool_output,
    ops.Source: _source,
    ops.FileOut: lambda op: [{"type": "file", "url": op.url, "mediaType": op.media_type}],
    ops.DataOut: _data,
    ops.StateOut: lambda op: [{"type": "data-state", "id": "state", "data": op.value}],
    ops.Raw: lambda op: [
        {"type": "data-llmbridge-item", "data": {"provider": op.provider, "data": op.data}}
    ],
    ops.Switched: lambda op: [
        {"type": "reset-step"},
        {
            "type": "data-llmbridge-model-switch",
            "data": {"from": op.from_model, "to": op.to_model, "error": op.message},
            "transient": True,
        },
    ],
    ops.Failed: lambda op: [{"type": "error", "errorText": op.message}],
    ops.RunEnd: _run_end,
}


def chunks_for(op: ops.Op) -> list[Chunk]:
    """The chunks of one op."""
    return _TABLE[type(op)](op)
