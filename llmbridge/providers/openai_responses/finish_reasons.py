"""Terminal response status → ``FinishReason``.

Follows https://platform.openai.com/docs/api-reference/responses-streaming (``response.completed``
and ``response.incomplete``).

Rules: a completed response is ``tool_calls`` when it left work for the app (function calls, a
client-executed tool search), else ``stop``. An incomplete response maps ``incomplete_details.reason``: ``max_output_tokens`` →
``length``, ``content_filter`` → ``content_filter``, anything else → ``other`` (the raw reason is
always kept).
"""

from __future__ import annotations

from ...events import FinishReason

__all__ = ["INCOMPLETE_REASONS", "map_finish_reason"]

INCOMPLETE_REASONS: dict[str, FinishReason] = {
    "max_output_tokens": "length",
    "content_filter": "content_filter",
}


def map_finish_reason(raw: str, *, had_tool_calls: bool) -> FinishReason:
    """``raw`` is ``"completed"`` (or the response's own status) for a completed response, else
    the ``incomplete_details.reason`` of an incomplete one."""
    if raw == "completed":
        return "tool_calls" if had_tool_calls else "stop"
    return INCOMPLETE_REASONS.get(raw, "other")
