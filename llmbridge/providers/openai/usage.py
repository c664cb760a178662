"""Chat Completions ``usage`` → ``Usage`` (convention in ``llmbridge/events.py``).

``prompt_tokens`` already counts cached tokens and ``completion_tokens`` reasoning tokens, so
they map as they are. Cached reads: ``prompt_tokens_details.cached_tokens`` (OpenAI, most
servers), DeepSeek's ``prompt_cache_hit_tokens``, Databricks' ``cache_read_input_tokens``;
cache writes: ``prompt_tokens_details.cache_write_tokens`` (OpenRouter). Counts are the last
snapshot the server sent, never summed.
"""

from __future__ import annotations

from typing import Any

from ...events import Usage

__all__ = ["convert_usage"]


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def _details(usage: dict[str, Any], key: str) -> dict[str, Any]:
    value = usage.get(key)
    return value if isinstance(value, dict) else {}


def convert_usage(usage: dict[str, Any]) -> Usage:
    prompt = _details(usage, "prompt_tokens_details")
    completion = _details(usage, "completion_tokens_details")
    cached = (
        _int(prompt.get("cached_tokens"))
        or _int(usage.get("prompt_cache_hit_tokens"))
        or _int(usage.get("cache_read_input_tokens"))
    )
    return Usage(
        input_tokens=_int(usage.get("prompt_tokens")),
        output_tokens=_int(usage.get("completion_tokens")),
        cached_input_tokens=cached,
        cache_write_tokens=_int(prompt.get("cache_write_tokens")),
        reasoning_tokens=_int(completion.get("reasoning_tokens")),
    )
