"""Tool-call argument text → arguments dict: the one rule every decoder (and the fallback) uses.

Empty or whitespace-only text means no arguments (``{}``). Anything else must be a JSON object;
otherwise the arguments are ``{}`` and the error says why (decoders put it on
``ToolCallEnd.error`` and keep the raw text, so nothing is lost).
"""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["parse_arguments"]


def parse_arguments(raw: str) -> tuple[dict[str, Any], str | None]:
    """``(arguments, error)`` for the raw JSON text of a tool call's arguments."""
    if not raw.strip():
        return {}, None
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return {}, f"tool arguments are not valid JSON: {exc}"
    if not isinstance(value, dict):
        return {}, f"tool arguments must be a JSON object, got {type(value).__name__}"
    return value, None
