"""``message-end``'s ``usage`` → ``Usage`` under the one convention (DESIGN.md).

Cohere reports ``tokens`` (what the model read and wrote, its prompt template included) and
``billed_units`` (what is billed), as floats in the SDK's types and ints on the wire. The
counts are ``tokens`` (the billed units are the fallback when ``tokens`` is absent):
``input_tokens`` holds every input token, ``cached_tokens`` (the prompt-cache hits) is a part of
it (the recordings show ``cached_tokens`` < ``tokens.input_tokens`` with a cache hit), and
``output_tokens`` holds every output token, ``tokens.reasoning_tokens`` a part of it. An empty
``usage`` (a stream that ended in ``ERROR``) is no usage (``None``). The whole report stays in
``Finish.provider_data``.
"""

from __future__ import annotations

from typing import Any

from ...events import Usage

__all__ = ["read_usage"]


def _count(report: Any, name: str) -> int:
    value = report.get(name) if isinstance(report, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return 0
    return int(value)


def read_usage(report: Any) -> Usage | None:
    if not isinstance(report, dict):
        return None
    tokens = report.get("tokens")
    if not isinstance(tokens, dict) or not tokens:
        tokens = report.get("billed_units")
    if not isinstance(tokens, dict) or not tokens:
        if "cached_tokens" not in report:
            return None
        tokens = {}
    return Usage(
        input_tokens=_count(tokens, "input_tokens"),
        output_tokens=_count(tokens, "output_tokens"),
        cached_input_tokens=_count(report, "cached_tokens"),
        reasoning_tokens=_count(tokens, "reasoning_tokens"),
    )
