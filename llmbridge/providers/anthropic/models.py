"""What the encoder needs to know about Claude models: output caps and thinking styles.

Rules: look-ups go by model-name prefix, newest rules first; an unknown (newer) model gets
the modern defaults (64k output, adaptive thinking), since Anthropic only ever raises them.
Sources: the model overview (https://platform.claude.com/docs/en/about-claude/models/overview)
and the thinking guides (extended / adaptive thinking).
"""

from __future__ import annotations

__all__ = [
    "MIN_THINKING_BUDGET",
    "base_model_name",
    "default_max_tokens",
    "effort_budget",
    "supports_adaptive",
]

MIN_THINKING_BUDGET = 1024
"""``thinking.budget_tokens`` must be at least this (API rule)."""

_MAX_OUTPUT: tuple[tuple[str, int], ...] = (
    ("claude-3-7", 64_000),
    ("claude-3-5", 8_192),
    ("claude-3", 4_096),
    ("claude-opus-4-0", 32_000),
    ("claude-opus-4-1", 32_000),
    ("claude-opus-4-2025", 32_000),
    ("claude-4-opus", 32_000),
    ("claude-2", 4_096),
    ("claude-instant", 4_096),
)
_MODERN_MAX_OUTPUT = 64_000

# Models that take only manual thinking (``{"type": "enabled", "budget_tokens": n}``).
_MANUAL_THINKING_ONLY = (
    "claude-3",
    "claude-4-",
    "claude-opus-4-0",
    "claude-opus-4-1",
    "claude-opus-4-2025",
    "claude-opus-4-5",
    "claude-sonnet-4-0",
    "claude-sonnet-4-2025",
    "claude-sonnet-4-5",
    "claude-haiku-4-5",
)

_EFFORT_BUDGETS = {"minimal": 1_024, "low": 2_048, "medium": 8_192, "high": 16_384}


def base_model_name(model: str) -> str:
    """The Claude name inside a cloud's model id: Bedrock's ``anthropic.`` and inference-profile
    prefixes (``us.anthropic.claude-…``, ``global.anthropic.claude-…``) are skipped."""
    _, sep, tail = model.rpartition("anthropic.")
    return tail if sep and tail.startswith("claude") else model


def default_max_tokens(model: str) -> int:
    """``max_tokens`` to send when the caller gave none: the model's output cap."""
    model = base_model_name(model)
    for prefix, cap in _MAX_OUTPUT:
        if model.startswith(prefix):
            return cap
    return _MODERN_MAX_OUTPUT


def supports_adaptive(model: str) -> bool:
    """Whether ``thinking: {"type": "adaptive"}`` (with ``output_config.effort``) applies."""
    return not base_model_name(model).startswith(_MANUAL_THINKING_ONLY)


def effort_budget(effort: str) -> int:
    """A ``budget_tokens`` for an effort level, for models with manual thinking only."""
    return _EFFORT_BUDGETS.get(effort, _EFFORT_BUDGETS["medium"])
