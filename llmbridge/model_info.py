"""What a provider says about one of its models: the rows of ``Client.list_models``.

Rules: ``id`` is what goes after ``provider:`` in a model string (Gemini's ``models/`` prefix
removed); the other fields are ``None`` where the provider does not say; ``created`` is Unix
seconds whatever the wire's format; ``raw`` keeps the provider's whole entry, from which
``kind`` (chat, embeddings, rerank) is read where the provider says.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["ModelInfo", "model_kind", "positive_int"]


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

    @property
    def kind(self) -> Literal["chat", "embeddings", "rerank"] | None:
        """What the model is for, where the provider's row says (``None`` where it does not):
        Gemini's ``supportedGenerationMethods``, Bedrock's ``outputModalities``, Cohere's
        ``endpoints``."""
        return model_kind(self.raw)


def model_kind(raw: dict[str, Any]) -> Literal["chat", "embeddings", "rerank"] | None:
    """``ModelInfo.kind`` from a provider's own model row."""
    said = raw.get("supportedGenerationMethods") or raw.get("endpoints") or []
    modalities = raw.get("outputModalities") or []
    if not isinstance(said, list) or not isinstance(modalities, list):
        return None
    if "rerank" in said or "rerank" in str(raw.get("modelId", "")):
        return "rerank"
    if {"embedContent", "batchEmbedContents", "embed"} & set(said) or "EMBEDDING" in modalities:
        return "embeddings"
    if {"generateContent", "chat"} & set(said) or "TEXT" in modalities:
        return "chat"
    return None


def positive_int(value: Any) -> int | None:
    """``value`` if it is a positive int (a count or limit a provider reported), else ``None``."""
    return value if type(value) is int and value > 0 else None
