"""Safe readers for the JSON shapes of Responses stream events (never raise on odd input).

Rules: an item is keyed by its ``output_index`` (stable even where Azure and GitHub Copilot
rotate item ids mid-stream), else by ``item_id``, else by the item's own ``id``. Readers return
``None`` / ``[]`` for anything that is not the documented type.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Key", "item_key", "str_or_none", "texts"]

Key = int | str


def item_key(obj: dict[str, Any]) -> Key:
    index = obj.get("output_index")
    if isinstance(index, int):
        return index
    item_id = obj.get("item_id")
    if isinstance(item_id, str):
        return item_id
    item = obj.get("item")
    return str(item.get("id")) if isinstance(item, dict) else ""


def str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def texts(parts: Any, kinds: tuple[str, ...], *, field: str = "text") -> list[str]:
    """The ``field`` of every part in ``parts`` whose ``type`` is one of ``kinds``."""
    if not isinstance(parts, list):
        return []
    return [
        p[field]
        for p in parts
        if isinstance(p, dict) and p.get("type") in kinds and isinstance(p.get(field), str)
    ]
