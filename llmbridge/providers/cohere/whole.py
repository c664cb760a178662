"""A whole Cohere v2 chat answer (``stream: false``) → normalized events, through the stream
decoder (``providers.whole.ReplayDecoder``).

Rules: the body (``id``, ``message`` with ``content`` parts, ``tool_plan``, ``tool_calls`` and
``citations``, ``finish_reason``, ``usage``) is restated as its stream: ``message-start``, each
content part as ``content-start`` / ``content-end`` (``thinking`` or ``text``), the tool plan as
one ``tool-plan-delta``, each tool call as ``tool-call-start`` (its arguments whole) /
``tool-call-end``, each citation as ``citation-start``, then ``message-end`` with the finish
reason and usage. ``decode.CohereDecoder`` reads it as a stream: the same events, the plan's
``ProviderItem``, citations, finish reason and usage. ``whole_body`` sets ``stream: false``.
"""

from __future__ import annotations

from typing import Any

from ..whole import ReplayDecoder, sse

__all__ = ["CohereWholeDecoder", "whole_body"]


def whole_body(body: dict[str, Any]) -> dict[str, Any]:
    """The streamed request ``body`` as a whole one (``stream: false``)."""
    return {**body, "stream": False}


def _event(kind: str, message: dict[str, Any] | None = None, **fields: Any) -> tuple[str, str]:
    payload: dict[str, Any] = {"type": kind, **fields}
    if message is not None:
        payload["delta"] = {"message": message}
    return sse(kind, payload)


def _list(value: Any) -> list[Any]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


class CohereWholeDecoder(ReplayDecoder):
    """A whole Cohere v2 chat answer, decoded by the stream decoder (module rules)."""

    def replay(self, body: dict[str, Any]) -> list[Any]:
        message = body.get("message")
        message = message if isinstance(message, dict) else {}
        role = message.get("role") or "assistant"
        events = [_event("message-start", {"role": role}, id=body.get("id"))]
        for index, part in enumerate(_list(message.get("content"))):
            events.append(_event("content-start", {"content": part}, index=index))
            events.append(_event("content-end", index=index))
        plan = message.get("tool_plan")
        if isinstance(plan, str) and plan:
            events.append(_event("tool-plan-delta", {"tool_plan": plan}))
        for index, call in enumerate(_list(message.get("tool_calls"))):
            events.append(_event("tool-call-start", {"tool_calls": call}, index=index))
            events.append(_event("tool-call-end", index=index))
        for index, citation in enumerate(_list(message.get("citations"))):
            events.append(_event("citation-start", {"citations": citation}, index=index))
            events.append(_event("citation-end", index=index))
        end = {"finish_reason": body.get("finish_reason"), "usage": body.get("usage")}
        events.append(_event("message-end", None, delta=end))
        return events
