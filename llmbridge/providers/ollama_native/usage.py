"""The last NDJSON line's counts → ``Usage`` (DESIGN.md's one convention), and its timings.

Ollama reports ``prompt_eval_count`` (input tokens; a prompt prefix still in the model's KV
cache is not evaluated again, so the count may be smaller on a repeated prompt: it is what
Ollama says it evaluated) and ``eval_count`` (every generated token, thinking included). No
cache or reasoning split is reported. The durations (nanoseconds) have no shared field: they
are kept as they came (``TIMINGS``) in ``Finish.provider_data``.
"""

from __future__ import annotations

from typing import Any

from ...events import Usage

__all__ = ["TIMINGS", "read_timings", "read_usage"]

TIMINGS = ("total_duration", "load_duration", "prompt_eval_duration", "eval_duration")


def _count(value: Any) -> int:
    return value if type(value) is int and value >= 0 else 0


def read_usage(line: dict[str, Any]) -> Usage | None:
    if "prompt_eval_count" not in line and "eval_count" not in line:
        return None
    return Usage(
        input_tokens=_count(line.get("prompt_eval_count")),
        output_tokens=_count(line.get("eval_count")),
    )


def read_timings(line: dict[str, Any]) -> dict[str, Any]:
    return {name: line[name] for name in TIMINGS if type(line.get(name)) is int}
