"""``GET {base}/models`` (OpenAI and every OpenAI-compatible server) → ``ModelInfo`` rows.

Follows https://platform.openai.com/docs/api-reference/models/list (``{"object": "list",
"data": [{"id", "created", "object": "model", "owned_by"}]}``, one page). Servers add what they
know and OpenAI does not say: the context window is read from the first of ``context_length``
(OpenRouter, Together), ``context_window`` (Groq), ``max_model_len`` (vLLM) and
``meta.n_ctx`` (llama.cpp's server: the context it was started with); ``name`` is the display
name where a server gives one. Entries without an ``id`` are skipped.
"""

from __future__ import annotations

from typing import Any

from ...model_info import ModelInfo, positive_int

__all__ = ["parse_model_list"]

_WINDOW_KEYS = ("context_length", "context_window", "max_model_len")


def _window(entry: dict[str, Any]) -> int | None:
    for key in _WINDOW_KEYS:
        if (found := positive_int(entry.get(key))) is not None:
            return found
    meta = entry.get("meta")
    return positive_int(meta.get("n_ctx")) if isinstance(meta, dict) else None


def parse_model_list(data: Any, *, provider: str) -> tuple[list[ModelInfo], str | None]:
    """The models of a ``/models`` answer (never paged: no next cursor)."""
    entries = data.get("data") if isinstance(data, dict) else None
    models = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            continue
        name = entry.get("name")
        models.append(
            ModelInfo(
                id=entry["id"],
                provider=provider,
                display_name=name if isinstance(name, str) and name else None,
                context_window=_window(entry),
                created=positive_int(entry.get("created")),
                raw=entry,
            )
        )
    return models, None
