"""Server-side compaction, asked for neutrally: ``compaction=lb.Compaction(...)`` (or ``True``).

Rules this module keeps (docs/long-running.md, "Compaction"):

* The spec says *when* to compact and *how to summarise*, never how one provider spells it.
  Each provider that has server-side compaction maps it in its request encoder:
  OpenAI Responses → ``context_management: [{"type": "compaction", "compact_threshold": n}]``;
  Anthropic (and Claude on the clouds) → ``context_management.edits`` with a
  ``compact_20260112`` edit (``trigger`` ``input_tokens``, ``instructions``,
  ``pause_after_compaction``) and the ``compact-2026-01-12`` beta flag.
* A provider without server-side compaction is a ``ConfigurationError`` before anything is
  sent, naming the providers that have it (``COMPACTS_ON``, ``unsupported_compaction``).
  An option a provider has no field for (Responses: ``instructions``, ``pause_after``) is
  dropped with a warning, since it only shapes the summary or the turn, never what is kept.
* ``provider_options`` is the escape hatch: ``{"<provider>": {...}}`` merged last into that
  provider's entry (the Responses ``context_management`` entry, the Anthropic edit).
* What compaction returns (a Responses ``compaction`` item, an Anthropic ``compaction``
  block) stays in the assistant message as a ``RawPart`` of its provider and goes back to
  that provider only (``ChatMessage.compactions`` lists them; ``providers/history.py`` drops
  them elsewhere with a warning).
* Plain data on the ground floor: imports ``llmbridge.messages`` and ``llmbridge.errors`` only.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from .errors import ConfigurationError
from .parts import _Model

__all__ = ["COMPACTS_ON", "Compaction", "unsupported_compaction"]

COMPACTS_ON = (
    "openai-responses",
    "anthropic",
    "anthropic-bedrock",
    "anthropic-vertex",
    "anthropic-foundry",
    "anthropic-aws",
    "anthropic-google-cloud",
    "anthropic-bedrock-mantle",
)
"""Which built-in providers compact server-side (for error messages and docs)."""


class Compaction(_Model):
    """Ask the provider to compact the context server-side once it grows past a threshold."""

    trigger_tokens: int | None = Field(default=None, gt=0)
    """Input tokens at which compaction runs (``None``: the provider's default; Anthropic's is
    150,000 and its minimum 50,000)."""
    instructions: str | None = None
    """Replaces the provider's summarisation prompt (Anthropic; dropped with a warning on
    Responses, which has no such field)."""
    pause_after: bool = False
    """Stop the turn right after compacting (Anthropic ``pause_after_compaction``: the response
    holds only the compaction block, finish reason ``other`` with raw reason
    ``compaction``); the app then sends the conversation again to continue."""
    provider_options: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """``{"<provider>": {...}}`` merged last into that provider's entry, as given."""

    @classmethod
    def of(cls, value: Compaction | bool | None) -> Compaction | None:
        """``True`` → ``Compaction()``; ``False`` / ``None`` → ``None``; a spec as is."""
        if value is True:
            return cls()
        if value is False or value is None:
            return None
        return value


def unsupported_compaction(*, provider: str, model: str | None = None) -> ConfigurationError:
    """The error for a provider (or model) with no server-side compaction."""
    where = f"{provider}:{model}" if model else provider
    return ConfigurationError(
        f"compaction= asks for server-side compaction, which {where} does not have. "
        f"Providers that compact: {', '.join(COMPACTS_ON)}",
        provider=provider,
    )
