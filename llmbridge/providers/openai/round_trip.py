"""What OpenAI-compatible servers need back on the next turn, kept on decode and re-sent.

Two extensions of Chat Completions carry reasoning state that a tool loop must send back (a
400 on turn 2 otherwise):

* **OpenRouter ``reasoning_details``** (https://openrouter.ai/docs/use-cases/reasoning-tokens,
  "Preserving reasoning blocks"): ``delta.reasoning_details[]`` items of type
  ``reasoning.text`` (text, then a ``signature``), ``reasoning.summary`` or
  ``reasoning.encrypted`` (``data``), each with an ``index`` and a ``format`` naming the model
  family (``anthropic-claude-v1``, ``openai-responses-v1``, ``google-gemini-v1``,
  ``xai-responses-v1``). ``DetailCollector`` merges the streamed pieces per ``index`` (text
  joined, other fields kept) and the decoder emits them once, when the reasoning run ends, as
  ``ReasoningDelta("", provider_data={"reasoning_details": [...]})``. The encoder sends them back
  whole, as ``reasoning_details`` on the assistant message, to the provider that made them, and
  only to a model of the same family (a ``format`` of another vendor than the model's
  ``vendor/`` prefix is left out with a warning: an Anthropic signature means nothing to an
  OpenAI model). Items without a known format go back as they came.
* **Gemini's OpenAI endpoint ``extra_content``**
  (https://ai.google.dev/gemini-api/docs/thought-signatures, OpenAI compatibility): a tool call
  carries ``extra_content: {"google": {"thought_signature": ...}}``. The tool-call tracker keeps
  it in ``ToolCallPart.provider_data["extra_content"]`` tagged with the provider name, and the
  encoder puts it back on the same call, for that provider only. A Gemini 3 model validates
  the signature on the first call of each step of the current turn: a call it did not sign
  (made by another provider) gets the documented placeholder (``sign_first_call``, the rule in
  ``providers/history.py``).
"""

from __future__ import annotations

from typing import Any

from ...messages import ChatMessage
from ...parts import ReasoningPart, ToolCallPart
from ..history import PLACEHOLDER_SIGNATURE

__all__ = [
    "DETAILS",
    "EXTRA_CONTENT",
    "DetailCollector",
    "call_extra",
    "foreign_family_details",
    "reasoning_details",
    "sign_first_call",
]

DETAILS = "reasoning_details"
EXTRA_CONTENT = "extra_content"

_FAMILIES = {
    "anthropic-claude-v1": "anthropic/",
    "openai-responses-v1": "openai/",
    "google-gemini-v1": "google/",
    "xai-responses-v1": "x-ai/",
}
"""OpenRouter ``format`` → the model-id prefix of the family that can read it."""

_TEXT_FIELDS = ("text", "summary")


class DetailCollector:
    """Streamed ``reasoning_details`` pieces merged per ``index`` until the run ends."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        """The merged pieces so far (read by the decoder's hot path: a plain list)."""

    def __bool__(self) -> bool:
        return bool(self.items)

    def add(self, pieces: list[Any]) -> None:
        for piece in pieces:
            if not isinstance(piece, dict):
                continue
            same = self._find(piece)
            if same is None:
                self.items.append({k: v for k, v in piece.items() if v is not None})
                continue
            for key, value in piece.items():
                if value is None:
                    continue
                before = same.get(key)
                if key in _TEXT_FIELDS and isinstance(value, str) and isinstance(before, str):
                    same[key] = before + value  # streamed text: joined
                else:  # anything else (a mangled earlier value included): the latest wins
                    same[key] = value

    def _find(self, piece: dict[str, Any]) -> dict[str, Any] | None:
        index = piece.get("index")
        if not isinstance(index, int):
            return None
        for item in self.items:
            if item.get("index") == index and item.get("type") == piece.get("type"):
                return item
        return None

    def take(self) -> list[dict[str, Any]]:
        items = self.items.copy()
        self.items.clear()  # in place: the decoder holds this list
        return items


def _same_family(detail: dict[str, Any], model: str) -> bool:
    vendor = _FAMILIES.get(str(detail.get("format")))
    return vendor is None or model.lstrip("~").startswith(vendor)


def reasoning_details(message: ChatMessage, *, provider: str, model: str) -> list[dict[str, Any]]:
    """The ``reasoning_details`` to send back on ``message`` (own, same family)."""
    out: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, ReasoningPart) and part.provider == provider:
            details = (part.provider_data or {}).get(DETAILS)
            if isinstance(details, list):
                out.extend(d for d in details if isinstance(d, dict) and _same_family(d, model))
    return out


def foreign_family_details(messages: list[ChatMessage], *, provider: str, model: str) -> int:
    """How many own ``reasoning_details`` items ``reasoning_details`` leaves out."""
    count = 0
    for message in messages:
        if message.role != "assistant":
            continue
        for part in message.content:
            if isinstance(part, ReasoningPart) and part.provider == provider:
                details = (part.provider_data or {}).get(DETAILS)
                if isinstance(details, list):
                    count += sum(
                        isinstance(d, dict) and not _same_family(d, model) for d in details
                    )
    return count


def call_extra(part: ToolCallPart, *, provider: str) -> dict[str, Any] | None:
    """The call's ``extra_content``, when this provider sent it."""
    data = part.provider_data or {}
    extra = data.get(EXTRA_CONTENT)
    if data.get("provider") == provider and isinstance(extra, dict):
        return extra
    return None


def sign_first_call(message: dict[str, Any]) -> None:
    """Give the first tool call of an encoded assistant message Google's placeholder
    signature when it has none."""
    calls = message.get("tool_calls")
    if not calls:
        return
    extra = dict(calls[0].get(EXTRA_CONTENT) or {})  # copies: never the history's own dicts
    google = dict(extra.get("google") or {})
    if not google.get("thought_signature"):
        google["thought_signature"] = PLACEHOLDER_SIGNATURE
        calls[0][EXTRA_CONTENT] = {**extra, "google": google}
