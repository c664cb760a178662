"""Responses API ``usage`` → ``Usage`` (the project convention).

Follows https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage.

Rules: ``input_tokens`` already includes ``input_tokens_details.cached_tokens`` (cache reads)
and ``input_tokens_details.cache_write_tokens`` (cache writes, newer responses), and
``output_tokens`` already includes ``output_tokens_details.reasoning_tokens``, which is exactly
our convention: copy, never add. Missing or null fields count as 0; a missing or non-object
``usage`` gives ``None``.
"""

from __future__ import annotations

from typing import Any

from ...events import Usage

__all__ = ["convert_usage"]


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _detail(usage: dict[str, Any], key: str, field: str) -> int:
    details = usage.get(key)
    return _int(details.get(field)) if isinstance(details, dict) else 0


def convert_usage(usage: Any) -> Usage | None:
    """Our ``Usage`` from the response's ``usage`` object (``None`` when absent)."""
    if not isinstance(usage, dict):
        return None
    return Usage(
        input_tokens=_int(usage.get("input_tokens")),
        output_tokens=_int(usage.get("output_tokens")),
        cached_input_tokens=_detail(usage, "input_tokens_details", "cached_tokens"),
        cache_write_tokens=_detail(usage, "input_tokens_details", "cache_write_tokens"),
        reasoning_tokens=_detail(usage, "output_tokens_details", "reasoning_tokens"),
    )
