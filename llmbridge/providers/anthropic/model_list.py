"""``GET /v1/models`` → ``ModelInfo`` rows, page by page.

Follows https://platform.claude.com/docs/en/api/models-list and the SDK's ``ModelInfo``
(``id``, ``display_name``, ``created_at`` as RFC 3339, ``max_input_tokens``, ``max_tokens``)
and its page (``data``, ``has_more``, ``last_id``; the next page is asked with
``after_id=<last_id>``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ...model_info import ModelInfo, positive_int

__all__ = ["PAGE_SIZE", "parse_model_list"]

PAGE_SIZE = 1000
"""The API's largest page."""


def _seconds(value: Any) -> int | None:
    if not isinstance(value, str):
        return None
    try:
        return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp())
    except ValueError:
        return None


def parse_model_list(data: Any, *, provider: str) -> tuple[list[ModelInfo], str | None]:
    """One page's models and the ``after_id`` of the next page (``None``: the last page)."""
    if not isinstance(data, dict):
        return [], None
    entries = data.get("data")
    models = [
        ModelInfo(
            id=entry["id"],
            provider=provider,
            display_name=entry.get("display_name") or None,
            context_window=positive_int(entry.get("max_input_tokens")),
            max_output_tokens=positive_int(entry.get("max_tokens")),
            created=_seconds(entry.get("created_at")),
            raw=entry,
        )
        for entry in (entries if isinstance(entries, list) else [])
        if isinstance(entry, dict) and isinstance(entry.get("id"), str)
    ]
    last = data.get("last_id")
    more = data.get("has_more") is True and isinstance(last, str) and last
    return models, last if more else None
