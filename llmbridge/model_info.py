"""What a provider says about one of its models: the rows of ``Client.list_models``.

Rules: ``id`` is what goes after ``provider:`` in a model string (Gemini's ``models/`` prefix
removed); the other fields are ``None`` where the provider does not say; ``created`` is Unix
seconds whatever the wire's format; ``raw`` keeps the provider's whole entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ModelInfo", "positive_int"]


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """One model a provider lists."""

    id: str
    provider: str
    display_name: str | None = None
    context_window: int | None = None
    """Input tokens the model (or the serving server) takes, where the provider says."""
    max_output_tokens: int | None = None
    created: int | None = None
    """When the model was published, Unix seconds."""
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def model(self) -> str:
        """The model string for ``stream`` / ``complete``: ``provider:id``."""
        return f"{self.provider}:{self.id}"


def positive_int(value: Any) -> int | None:
    """``value`` if it is a positive int (a count or limit a provider reported), else ``None``."""
    return value if type(value) is int and value > 0 else None
