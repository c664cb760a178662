"""UI ops -> AG-UI events (``@ag-ui/core`` 1.x ``EventSchemas``), in the order
``@ag-ui/client``'s ``verifyEvents`` accepts.

Rules: every event has its ``type`` and an integer ``timestamp`` (ms since the epoch); one run is
``RUN_STARTED`` ... ``RUN_FINISHED`` (or ``RUN_ERROR``, which ends it: nothing follows); each model
turn is a step (``STEP_STARTED``/``STEP_FINISHED``, ``stepName`` ``step-<n>``); reasoning is a
``REASONING_START`` span holding one reasoning message, its signature a
``REASONING_ENCRYPTED_VALUE``; a tool call's parent is the turn's text message; what AG-UI has no
event for (citations, files, partial objects, model switches, the app's ``Data``) is a ``CUSTOM``
event named ``llmbridge.<what>``, and provider-run items are ``RAW`` events.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import orjson

from . import ops

__all__ = ["AgUiEvents"]

Event = dict[str, Any]


def _usage(op: ops.RunEnd) -> list[dict[str, Any]]:
    out = []
    for turn in op.usage:
        u = turn.usage
        entry: dict[str, Any] = {
            "inputTokens": u.input_tokens,
            "outputTokens": u.output_tokens,
            "totalTokens": u.input_tokens + u.output_tokens,
            "reasoningTokens": u.reasoning_tokens,
            "cachedInputTokens": u.cached_input_tokens,
            "cacheWriteInputTokens": u.cache_write_tokens,
        }
        if turn.provider:
            entry["provider"] = turn.provider
        if turn.model:
            entry["model"] = turn.model
        out.append(entry)
    return out


def _is_json_of(raw: str, arguments: dict[str, Any]) -> bool:
    try:
        return bool(orjson.loads(raw or "{}") == arguments)
    except orjson.JSONDecodeError:
        return False


class AgUiEvents:
    """The AG-UI events of one run's ops (``thread_id``/``run_id`` as the front end sent them)."""

    def __init__(self, *, thread_id: str, run_id: str, clock: Callable[[], float] = time.time):
        self.thread_id = thread_id
        self.run_id = run_id
        self._clock = clock
        self._failed = False
        self._table: dict[type, Callable[[Any], list[Event]]] = {
            ops.RunStart: lambda op: [self._run("RUN_STARTED")],
            ops.StepStart: lambda op: [{"type": "STEP_STARTED", "stepName": f"step-{op.number}"}],
            ops.StepEnd: lambda op: [{"type": "STEP_FINISHED", "stepName": f"step-{op.number}"}],
            ops.TextStart: lambda op: [
                {"type": "TEXT_MESSAGE_START", "messageId": op.id, "role": "assistant"}
            ],
            ops.TextDeltaOp: lambda op: [
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": op.id, "delta": op.delta}
            ],
            ops.TextEnd: lambda op: [{"type": "TEXT_MESSAGE_END", "messageId": op.id}],
            ops.ReasoningStart: lambda op: [
                {"type": "REASONING_START", "messageId": op.id},
                {"type": "REASONING_MESSAGE_START", "messageId": op.id, "role": "reasoning"},
            ],
            ops.ReasoningDeltaOp: lambda op: [
                {"type": "REASONING_MESSAGE_CONTENT", "messageId": op.id, "delta": op.delta}
            ],
            ops.ReasoningEnd: self._reasoning_end,
            ops.ToolStart: lambda op: [
                {
                    "type": "TOOL_CALL_START",
                    "toolCallId": op.id,
                    "toolCallName": op.name,
                    "parentMessageId": op.parent_id,
                }
            ],
            ops.ToolDelta: lambda op: [
                {"type": "TOOL_CALL_ARGS", "toolCallId": op.id, "delta": op.delta}
            ],
            ops.ToolInput: self._tool_input,
            ops.ToolOutput: lambda op: [
                {
                    "type": "TOOL_CALL_RESULT",
                    "messageId": op.message_id,
                    "toolCallId": op.id,
                    "content": op.text,
                    "role": "tool",
                }
            ],
            ops.Source: lambda op: [
                self._custom("citation", {"url": op.url, "title": op.title, "cited": op.cited_text})
            ],
            ops.FileOut: lambda op: [
                self._custom("file", {"url": op.url, "mediaType": op.media_type})
            ],
            ops.DataOut: lambda op: [self._custom(op.name, op.value)],
            ops.StateOut: lambda op: [{"type": "STATE_SNAPSHOT", "snapshot": op.value}],
            ops.Raw: lambda op: [{"type": "RAW", "event": op.data, "source": op.provider}],
            ops.Switched: lambda op: [
                self._custom(
                    "model_switch", {"from": op.from_model, "to": op.to_model, "error": op.message}
                )
            ],
            ops.Failed: self._failed_run,
            ops.RunEnd: self._run_end,
        }

    def events_for(self, op: ops.Op) -> list[Event]:
        """The AG-UI events of one op, timestamped."""
        if self._failed:  # RUN_ERROR ended the run: nothing may follow it
            return []
        now = int(self._clock() * 1000)
        out = self._table[type(op)](op)
        for event in out:
            event["timestamp"] = now
            if event.get("source", "") is None:
                del event["source"]
        return out

    def _run(self, kind: str) -> Event:
        return {"type": kind, "threadId": self.thread_id, "runId": self.run_id}

    def _custom(self, name: str, value: Any) -> Event:
        return {"type": "CUSTOM", "name": f"llmbridge.{name}", "value": value}

    def _reasoning_end(self, op: ops.ReasoningEnd) -> list[Event]:
        out: list[Event] = [{"type": "REASONING_MESSAGE_END", "messageId": op.id}]
        kept = {"provider": op.provider, "provider_data": op.provider_data}
        kept = {k: v for k, v in kept.items() if v is not None}
        if kept:  # reasoning goes back only to its maker (with its data): to_messages reads it
            out[0]["metadata"] = {"llmbridge": kept}
        if op.signature:
            out.append(
                {
                    "type": "REASONING_ENCRYPTED_VALUE",
                    "subtype": "message",
                    "entityId": op.id,
                    "encryptedValue": op.signature,
                }
            )
        return [*out, {"type": "REASONING_END", "messageId": op.id}]

    def _tool_input(self, op: ops.ToolInput) -> list[Event]:
        end: Event = {"type": "TOOL_CALL_END", "toolCallId": op.id}
        if op.error is not None:
            end["metadata"] = {"llmbridge": {"error": op.error}}
        elif not _is_json_of(op.raw_arguments, op.arguments):  # a freeform tool's raw text
            end["metadata"] = {"llmbridge": {"arguments": op.arguments}}
        return [end]

    def _failed_run(self, op: ops.Failed) -> list[Event]:
        self._failed = True
        return [{"type": "RUN_ERROR", "message": op.message, "code": op.code}]

    def _run_end(self, op: ops.RunEnd) -> list[Event]:
        event = {**self._run("RUN_FINISHED"), "outcome": {"type": "success"}}
        usage = _usage(op)
        return [{**event, "usage": usage}] if usage else [event]
