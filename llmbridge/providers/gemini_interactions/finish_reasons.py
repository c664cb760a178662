"""An interaction's ``status`` (and its last step) → ``Finish.reason`` (pure).

Follows ``google.genai`` Interactions ``Interaction.status``. Rules: ``Finish.raw_reason`` is the
status as sent; ``requires_action`` (the model waits for function results), or ``completed``
after a function-call step, is ``tool_calls``; ``incomplete`` / ``budget_exceeded`` are
``length``; ``failed`` is ``error``; anything else (``cancelled``, statuses newer than this
code) is ``other``.
"""

from __future__ import annotations

from ...events import FinishReason
from ..decoding import tool_aware_mapper

__all__ = ["map_finish_reason"]

_REASONS: dict[str, FinishReason] = {
    "completed": "stop",
    "requires_action": "tool_calls",
    "incomplete": "length",
    "budget_exceeded": "length",
    "failed": "error",
    "cancelled": "other",
}


map_finish_reason = tool_aware_mapper(_REASONS)
