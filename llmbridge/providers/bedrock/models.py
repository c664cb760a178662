"""What each Bedrock model family takes beyond the Converse fields (pure tables).

Model ids come as AWS gives them (``providers.hosts.aws.base_id``: foundation ids, cross-region
inference profiles, ARNs); the family is read from the foundation id (an application inference
profile ARN names no family, so it gets the Converse fields only and a warning for anything
family-specific). Rules:

* ``top_k`` goes in ``additionalModelRequestFields`` under the family's own name (Claude
  ``top_k``, Nova ``inferenceConfig.topK``, Mistral ``top_k``, Cohere ``k``); other families
  have none (a warning).
* reasoning: Claude → ``thinking`` (a budget, at least 1024; an effort becomes a budget from
  ``_EFFORT_BUDGETS``), Nova 2 → ``reasoningConfig`` (``maxReasoningEffort``), gpt-oss →
  ``reasoning_effort``; DeepSeek R1 and Kimi K2 Thinking always reason (nothing to send);
  others: a warning.
* structured output (``outputConfig.textFormat``): the families AWS lists for it (Claude 4.5
  and later, Qwen, DeepSeek, Mistral, Gemma, Nemotron, MiniMax, Kimi, gpt-oss); the option
  ``structured_output`` (true/false) overrides. Elsewhere the prompt fallback is used.
"""

from __future__ import annotations

import re
from typing import Any

from ..hosts.aws import base_id

__all__ = ["family", "native_structured_output", "reasoning_fields", "top_k_fields"]

_CLAUDE_STRUCTURED = re.compile(
    r"claude-(?:(?:sonnet|opus|haiku)-4-[5-9]|(?:sonnet|opus|haiku)-[5-9])"
)
_STRUCTURED_FAMILIES = ("qwen", "deepseek", "mistral", "google", "nvidia", "minimax", "moonshot")
_EFFORT_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 24576}
MIN_THINKING_BUDGET = 1024


def family(model: str) -> str:
    """The vendor part of the id: ``anthropic``, ``amazon``, ``meta``, ``mistral``…"""
    return base_id(model).split(".", 1)[0]


def top_k_fields(model: str, top_k: int) -> dict[str, Any] | None:
    vendor, name = family(model), base_id(model)
    if vendor == "anthropic":
        return {"top_k": top_k}
    if vendor == "amazon" and "nova" in name:
        return {"inferenceConfig": {"topK": top_k}}
    if vendor == "mistral":
        return {"top_k": top_k}
    if vendor == "cohere":
        return {"k": top_k}
    return None


def reasoning_fields(
    model: str, *, effort: str | None, budget: int | None
) -> tuple[dict[str, Any] | None, int]:
    """(``additionalModelRequestFields`` for reasoning or None if the family has no switch,
    the thinking budget in tokens that ``maxTokens`` must leave room for)."""
    vendor, name = family(model), base_id(model)
    if vendor == "anthropic":
        tokens = budget if budget is not None else _EFFORT_BUDGETS[effort or "medium"]
        tokens = max(tokens, MIN_THINKING_BUDGET)
        return {"thinking": {"type": "enabled", "budget_tokens": tokens}}, tokens
    if vendor == "amazon" and "nova-2" in name:
        level = {"minimal": "low"}.get(effort or "medium", effort or "medium")
        return {"reasoningConfig": {"type": "enabled", "maxReasoningEffort": level}}, 0
    if vendor == "openai" and "gpt-oss" in name:
        return {"reasoning_effort": {"minimal": "low"}.get(effort or "medium", effort)}, 0
    if (vendor == "deepseek" and "r1" in name) or (vendor == "moonshot" and "thinking" in name):
        return {}, 0
    return None, 0


def native_structured_output(model: str, override: bool | None) -> bool:
    if override is not None:
        return override
    vendor, name = family(model), base_id(model)
    if vendor == "anthropic":
        return bool(_CLAUDE_STRUCTURED.search(name))
    if vendor == "openai":
        return "gpt-oss" in name
    return vendor in _STRUCTURED_FAMILIES
