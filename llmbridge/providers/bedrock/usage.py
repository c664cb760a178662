"""Converse ``metadata.usage`` → ``Usage`` under the one convention (DESIGN.md).

Bedrock's ``inputTokens`` leaves out cache reads and writes (``totalTokens`` =
``inputTokens + outputTokens + cacheReadInputTokens + cacheWriteInputTokens``, as the recorded
streams show), so ``input_tokens`` adds them; a report whose ``totalTokens`` already equals
``inputTokens + outputTokens`` counted them inside and is taken as is. Older spellings
``cacheReadInputTokenCount`` / ``cacheWriteInputTokenCount`` are read too. Converse reports no
reasoning tokens apart (they are in ``outputTokens``).
"""

from __future__ import annotations

from typing import Any

from ...events import Usage

__all__ = ["read_usage"]


def _int(report: dict[str, Any], *names: str) -> int:
    for name in names:
        value = report.get(name)
        if type(value) is int and value >= 0:
            return value
    return 0


def read_usage(report: Any) -> Usage | None:
    if not isinstance(report, dict):
        return None
    given = _int(report, "inputTokens")
    output = _int(report, "outputTokens")
    read = _int(report, "cacheReadInputTokens", "cacheReadInputTokenCount")
    write = _int(report, "cacheWriteInputTokens", "cacheWriteInputTokenCount")
    total = report.get("totalTokens")
    inclusive = (read or write) and type(total) is int and total == given + output
    return Usage(
        input_tokens=given if inclusive else given + read + write,
        output_tokens=output,
        cached_input_tokens=read,
        cache_write_tokens=write,
    )
