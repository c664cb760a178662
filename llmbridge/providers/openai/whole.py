"""A whole Chat Completions answer (``stream=False``) → normalized events, through the stream
decoder (``providers.whole.ReplayDecoder``).

Rules: the body (``chat.completion``: ``choices[].message``, ``finish_reason``, ``usage``) is
restated as one stream chunk (choice 0's ``message`` as its ``delta``, each tool call given its
``index``; the reasoning fields first, as a stream sends them) and ``[DONE]``, and fed to
the stream decoder (``decode.ChatCompletionsDecoder``): text, reasoning (``reasoning_content`` / ``reasoning`` /
``reasoning_details``), refusals, ``annotations`` citations, tool calls (their arguments
whole), the finish reason and usage come out as the stream gives them. An ``error`` object
instead of choices raises the typed error the stream decoder raises for it. ``whole_body``
makes the streamed request body a whole one (no ``stream``, no ``stream_options``).
"""

from __future__ import annotations

from typing import Any

from ..whole import ReplayDecoder, sse

__all__ = ["ChatWholeDecoder", "whole_body"]

_FIRST = ("reasoning_content", "reasoning", "reasoning_details")
"""Message fields a stream sends before the text."""


def whole_body(body: dict[str, Any]) -> dict[str, Any]:
    """The streamed request ``body`` as a whole one (module rules)."""
    return {k: v for k, v in body.items() if k not in ("stream", "stream_options")}


def _delta(message: dict[str, Any]) -> dict[str, Any]:
    delta = {k: message[k] for k in _FIRST if message.get(k)}
    for key, value in message.items():
        if key in delta or key == "role":
            continue
        if key == "tool_calls" and isinstance(value, list):
            value = [
                {**call, "index": call.get("index", i)} if isinstance(call, dict) else call
                for i, call in enumerate(value)
            ]
        delta[key] = value
    return delta


class ChatWholeDecoder(ReplayDecoder):
    """A whole Chat Completions answer, decoded by the stream decoder (module rules)."""

    def replay(self, body: dict[str, Any]) -> list[Any]:
        chunk = {k: v for k, v in body.items() if k != "choices"}
        choices = body.get("choices")
        if isinstance(choices, list) and choices:
            choice = next(
                (c for c in choices if isinstance(c, dict) and not c.get("index")), choices[0]
            )
            message = choice.get("message") or {}
            chunk["choices"] = [
                {
                    "index": 0,
                    "delta": _delta(message) if isinstance(message, dict) else {},
                    "finish_reason": choice.get("finish_reason"),
                }
            ]
        elif "error" not in body and not body.get("id"):
            chunk["choices"] = []
        return [sse("", chunk), ("", "[DONE]")]
