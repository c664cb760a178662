"""Chat Completions ``usage`` → ``Usage`` (convention in ``llmbridge/events.py``).

``prompt_tokens`` already counts cached tokens and ``completion_tokens`` reasoning tokens, so
they map as they are. Cached reads: ``prompt_tokens_details.cached_tokens`` (OpenAI, most
servers), DeepSeek's ``prompt_cache_hit_tokens``, Databricks' ``cache_read_input_tokens``;
cache writes: ``prompt_tokens_details.cache_write_tokens`` (OpenRouter). Counts are the last
snapshot the server sent, never summed. ``read_rate_limit`` reads the ``x-ratelimit-*``
response headers (remaining counts; resets as durations such as ``6m0s``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...events import RateLimit, Usage

__all__ = ["convert_usage", "read_rate_limit"]


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


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def _count(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _seconds(value: str | None) -> float | None:
    """``"6m0s"``, ``"1.5s"``, ``"20ms"`` (OpenAI's reset format) → seconds."""
    if not value:
        return None
    parts = _DURATION.findall(value)
    if not parts or "".join(n + u for n, u in parts) != value.strip():
        return None
    return sum(float(n) * _UNIT[u] for n, u in parts)


def read_rate_limit(headers: Mapping[str, str]) -> RateLimit | None:
    """OpenAI's ``x-ratelimit-*`` headers (also sent by Groq, Azure, many gateways)."""
    raw = {k.lower(): v for k, v in headers.items() if k.lower().startswith("x-ratelimit-")}
    if not raw:
        return None
    return RateLimit(
        requests_remaining=_count(raw.get("x-ratelimit-remaining-requests")),
        tokens_remaining=_count(raw.get("x-ratelimit-remaining-tokens")),
        requests_reset=_seconds(raw.get("x-ratelimit-reset-requests")),
        tokens_reset=_seconds(raw.get("x-ratelimit-reset-tokens")),
        raw=raw,
    )
