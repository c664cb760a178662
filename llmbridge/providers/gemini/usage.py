"""Gemini ``usageMetadata`` → ``Usage`` (our one convention, see ``llmbridge/events.py``).

Follows ``google.genai.types.GenerateContentResponseUsageMetadata``. Rules: the metadata is
cumulative, so the decoder keeps only the last one; ``promptTokenCount`` is all input and
already includes ``cachedContentTokenCount``; ``toolUsePromptTokenCount`` (server tool
results fed back to the model) is input too; thoughts are reported apart from candidates, so
output is ``candidatesTokenCount + thoughtsTokenCount`` and thoughts are the reasoning part.
"""

from __future__ import annotations

from typing import Any

from ...events import Usage

__all__ = ["convert_usage"]


def _int(data: dict[str, Any], key: str) -> int:
    value = data.get(key)
    return value if isinstance(value, int) else 0


def convert_usage(data: dict[str, Any]) -> Usage:
    thoughts = _int(data, "thoughtsTokenCount")
    return Usage(
        input_tokens=_int(data, "promptTokenCount") + _int(data, "toolUsePromptTokenCount"),
        output_tokens=_int(data, "candidatesTokenCount") + thoughts,
        cached_input_tokens=_int(data, "cachedContentTokenCount"),
        reasoning_tokens=thoughts,
    )
