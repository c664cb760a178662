"""``GET /api/tags`` → ``ModelInfo`` (the models pulled on this Ollama server, one page).

Follows https://github.com/ollama/ollama/blob/main/docs/api.md#list-local-models:
``{"models": [{"name", "model", "modified_at", "size", "digest", "details": {"family",
"parameter_size", "quantization_level", …}}]}``. ``id`` is ``model`` (else ``name``), as a model
string takes it. The context length is not in this list: it is in ``POST /api/show``'s
``model_info["<arch>.context_length"]``, one request per model, which ``list_models`` does not
make (a server with many models would be asked as many times); ``context_window`` is ``None``.
``created`` is ``modified_at`` (when the model was pulled), as Unix seconds.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ...errors import MalformedStreamError
from ...model_info import ModelInfo

__all__ = ["parse_model_list"]


def _seconds(value: Any) -> int | None:
    if not isinstance(value, str):
        return None
    text = value.replace("Z", "+00:00")
    if "." in text:  # Go writes nanoseconds; Python 3.10 reads at most microseconds
        head, _, tail = text.partition(".")
        digits = len(tail) - len(tail.lstrip("0123456789"))
        text = f"{head}.{tail[: min(digits, 6)]}{tail[digits:]}"
    try:
        return int(datetime.fromisoformat(text).timestamp())
    except ValueError:
        return None


def parse_model_list(data: Any, *, provider: str) -> tuple[list[ModelInfo], str | None]:
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, list):
        raise MalformedStreamError(
            f"the model list has no 'models': {str(data)[:200]}", provider=provider
        )
    out: list[ModelInfo] = []
    for item in models:
        if not isinstance(item, dict):
            continue
        model_id = item.get("model") or item.get("name")
        if not isinstance(model_id, str) or not model_id:
            continue
        name = item.get("name")
        out.append(
            ModelInfo(
                id=model_id,
                provider=provider,
                display_name=name if isinstance(name, str) else None,
                created=_seconds(item.get("modified_at")),
                raw=item,
            )
        )
    return out, None
