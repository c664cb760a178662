"""``GET /{version}/models`` (Gemini API) → ``ModelInfo`` rows, page by page.

Follows https://ai.google.dev/api/models#method:-models.list: ``{"models": [{"name":
"models/gemini-2.5-flash", "displayName", "inputTokenLimit", "outputTokenLimit", ...}],
"nextPageToken"}``; the next page is asked with ``pageToken``. The ``models/`` prefix is
removed from ``id`` (model strings leave it out).
"""

from __future__ import annotations

from typing import Any

from ...model_info import ModelInfo, positive_int

__all__ = ["PAGE_SIZE", "parse_model_list"]

PAGE_SIZE = 1000
"""The API's largest page."""


def parse_model_list(data: Any, *, provider: str) -> tuple[list[ModelInfo], str | None]:
    """One page's models and the token of the next page (``None``: the last page)."""
    if not isinstance(data, dict):
        return [], None
    entries = data.get("models")
    models = [
        ModelInfo(
            id=entry["name"].removeprefix("models/"),
            provider=provider,
            display_name=entry.get("displayName") or None,
            context_window=positive_int(entry.get("inputTokenLimit")),
            max_output_tokens=positive_int(entry.get("outputTokenLimit")),
            raw=entry,
        )
        for entry in (entries if isinstance(entries, list) else [])
        if isinstance(entry, dict) and isinstance(entry.get("name"), str)
    ]
    token = data.get("nextPageToken")
    return models, token if isinstance(token, str) and token else None
