"""Terminal response status → ``FinishReason``.

Follows https://platform.openai.com/docs/api-reference/responses-streaming (``response.completed``
and ``response.incomplete``).

Rules: a completed response is ``tool_calls`` when it emitted function calls for the app, else
``stop``. An incomplete response maps ``incomplete_details.reason``: ``max_output_tokens`` →
``length``, ``content_filter`` → ``content_filter``, anything else → ``other`` (the raw reason is
always kept).
"""

from __future__ import annotations

from ...events import FinishReason

__all__ = ["INCOMPLETE_REASONS", "completed_reason", "incomplete_reason"]

INCOMPLETE_REASONS: dict[str, FinishReason] = {
    "max_output_tokens": "length",
    "content_filter": "content_filter",
}


def completed_reason(*, had_tool_calls: bool) -> FinishReason:
    return "tool_calls" if had_tool_calls else "stop"


def incomplete_reason(raw: str | None) -> FinishReason:
    return INCOMPLETE_REASONS.get(raw or "", "other")
