"""Interactions ``usage`` → ``Usage`` (our one convention, see ``llmbridge/events.py``).

Follows ``google.genai`` Interactions ``Usage`` (``total_input_tokens``, ``total_cached_tokens``,
``total_output_tokens``, ``total_thought_tokens``, ``total_tool_use_tokens``). Rules: a usage
object is a snapshot (the last one wins, never summed); ``total_input_tokens`` already holds the
cached tokens, and the tool-use tokens (built-in tool results fed back) are input too; thoughts
are reported apart (``total_tokens`` = input + output + thoughts), so output is
``total_output_tokens + total_thought_tokens`` and thoughts are its reasoning part.
"""

from __future__ import annotations

from typing import Any

from ...events import Usage

__all__ = ["convert_usage"]


def _int(data: dict[str, Any], key: str) -> int:
    value = data.get(key)
    return value if type(value) is int else 0


def convert_usage(data: dict[str, Any]) -> Usage:
    thoughts = _int(data, "total_thought_tokens")
    return Usage(
        input_tokens=_int(data, "total_input_tokens") + _int(data, "total_tool_use_tokens"),
        output_tokens=_int(data, "total_output_tokens") + thoughts,
        cached_input_tokens=_int(data, "total_cached_tokens"),
        reasoning_tokens=thoughts,
    )
