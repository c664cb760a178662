"""``GET /v1/models?endpoint=chat`` → ``ModelInfo`` (paged by ``next_page_token``).

Follows ``ListModelsResponse`` of the ``cohere`` SDK: ``{"models": [{"name", "endpoints",
"context_length", "features", "finetuned", …}], "next_page_token"}``. Only models that serve
the chat endpoint are asked for; ``context_window`` is ``context_length``.
"""

from __future__ import annotations

from typing import Any

from ...errors import MalformedStreamError
from ...model_info import ModelInfo, positive_int

__all__ = ["PAGE_SIZE", "parse_model_list"]

PAGE_SIZE = 1000


def parse_model_list(data: Any, *, provider: str) -> tuple[list[ModelInfo], str | None]:
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, list):
        raise MalformedStreamError(
            f"the model list has no 'models': {str(data)[:200]}", provider=provider
        )
    out: list[ModelInfo] = []
    for item in models:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        length = item.get("context_length")
        out.append(
            ModelInfo(
                id=item["name"],
                provider=provider,
                context_window=positive_int(int(length) if isinstance(length, float) else length),
                raw=item,
            )
        )
    token = data.get("next_page_token")
    return out, token if isinstance(token, str) and token else None
