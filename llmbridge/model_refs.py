"""What names a model: ``"provider:model"``, a provider object, ``(provider, model)``, a
``ModelOption``, or a list of them (a fallback chain, ``llmbridge.client.model_chain``).

Rules: plain values, no IO; it stands on the provider protocol and the errors only, so the
client, the chain and MCP sampling (which asks the app's model through the client it was
given) all read it without importing each other. ``ModelOption`` is re-exported by
``llmbridge`` and ``llmbridge.client.model_chain``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

from .errors import UsageError
from .providers.base import Provider

__all__ = ["ModelOption", "ModelRef", "Models", "first_model", "is_chain"]

ModelRef = str | Provider | tuple[Provider, str]
"""``"provider:model"``, a provider object with a ``model`` attribute, or ``(provider, model)``."""


class ModelOption:
    """A model of a fallback chain with options for it alone:
    ``ModelOption("openai:gpt-4.1-mini", max_tokens=512)``."""

    __slots__ = ("model", "options")

    def __init__(self, model: ModelRef, **options: Any) -> None:
        if isinstance(model, ModelOption | list):
            raise UsageError("ModelOption takes one model, not a ModelOption or a list")
        self.model = model
        self.options: dict[str, Any] = options

    def __repr__(self) -> str:
        opts = "".join(f", {k}={v!r}" for k, v in self.options.items())
        return f"ModelOption({self.model!r}{opts})"


Models: TypeAlias = "ModelRef | ModelOption | Sequence[ModelRef | ModelOption]"
"""One model, or a fallback chain: a list of them (``ModelOption`` adds options for one)."""


def is_chain(model: Any) -> bool:
    """Whether ``model`` is a fallback chain (or one ``ModelOption``), not one model."""
    if isinstance(model, ModelOption | list):
        return True
    if isinstance(model, tuple):  # (provider, "model") is one model; anything else a chain
        return not (
            len(model) == 2 and isinstance(model[1], str) and isinstance(model[0], Provider)
        )
    return False


def first_model(models: Any) -> ModelRef:
    """The first model of a chain (whose provider a tool loop starts with)."""
    items = [models] if isinstance(models, ModelOption) else list(models)
    if not items:
        raise UsageError("a fallback chain needs at least one model")
    first = items[0]
    return first.model if isinstance(first, ModelOption) else first
