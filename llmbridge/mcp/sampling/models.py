"""Which of the app's models answers an MCP sampling request: ``modelPreferences`` applied.

A server may say what it wants (``modelPreferences``: name ``hints`` in order, and
``costPriority`` / ``speedPriority`` / ``intelligencePriority`` between 0 and 1); the client
picks. The app gives ``sampling_models=[...]``, **ordered from the cheapest and fastest to the
most capable** (any model references ``Client`` takes; a fallback chain counts as one), and
optionally ``sampling_model=`` (the default).

The rule (``choose_model``), first that applies:

1. **Hints**, in the server's order: the first hint whose name occurs in a model's name
   (case-insensitive; the name is the model string, ``provider:model``) picks the first such
   model of the list. ``claude-3-sonnet`` matches ``anthropic:claude-3-sonnet-20240229``.
2. **Priorities**, when the server gave any: ``lean = intelligence - max(cost, speed)``
   (a missing priority counts as 0), between -1 and 1, picks the model at that point of the
   list: index ``(lean + 1) / 2 * (n - 1)``, rounded half up. All intelligence → the last model; all
   cost or speed → the first; balanced → the middle.
3. Otherwise ``sampling_model`` (or, without one, the list's first model).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...model_refs import first_model, is_chain
from ..content import field_of

__all__ = ["choose_model", "model_label"]


def model_label(model: Any) -> str:
    """How approvals and answers name ``model`` (a fallback chain: by its first model)."""
    if is_chain(model):
        model = first_model(model)
    if isinstance(model, str):
        return model
    if isinstance(model, tuple):
        return str(model[1])
    return str(getattr(model, "model", None) or getattr(model, "name", None) or model)


def _priority(preferences: Any, *names: str) -> float | None:
    value = field_of(preferences, *names)
    if value is None:
        return None
    return min(max(float(value), 0.0), 1.0)


def choose_model(
    preferences: Any, *, models: Sequence[Any] = (), default: Any = None
) -> tuple[Any, str]:
    """The model for one request and why (``"hint 'x'"``, ``"priorities"``, ``"default"``)."""
    if not models:
        return default, "default"
    if preferences is not None:
        for hint in field_of(preferences, "hints") or []:
            name = str(field_of(hint, "name") or "").lower()
            if not name:
                continue
            for model in models:
                if name in model_label(model).lower() or (
                    isinstance(model, str) and name in model.lower()
                ):
                    return model, f"hint {name!r}"
        cost = _priority(preferences, "costPriority", "cost_priority")
        speed = _priority(preferences, "speedPriority", "speed_priority")
        smart = _priority(preferences, "intelligencePriority", "intelligence_priority")
        if (cost, speed, smart) != (None, None, None):
            lean = (smart or 0.0) - max(cost or 0.0, speed or 0.0)
            index = int((lean + 1) / 2 * (len(models) - 1) + 0.5)  # half up
            return models[index], "priorities"
    return (default if default is not None else models[0]), "default"
