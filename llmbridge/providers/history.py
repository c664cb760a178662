"""Any history, any provider: a conversation made on one provider, made sendable to another.

Every encoder runs ``adapt_history`` over ``ChatRequest.messages`` before it writes its wire
format, so a conversation whose assistant turns came from any provider (reasoning with
signatures or encrypted content, tool calls, tool results, provider-run items) is accepted by
the next one. Pure: no IO, the same messages give the same result. Rules:

* **Reasoning** travels only back to the provider format that made it
  (``ReasoningPart.provider`` equal to the target's ``provider``): a signature, an encrypted
  blob or a redacted block is only ever verified by its maker. Reasoning of another provider
  (or with no provider: made by the app) is dropped, with one warning per request. It is not
  turned into visible text: a model shown "its own" earlier thoughts that it never had reasons
  from them as if they were its answers. Provider encoders still decide how (and whether)
  their *own* reasoning goes back (unsigned Anthropic thinking, Responses items without
  ``encrypted_content``...).
* **Provider items** (``RawPart``: server tool use and results, built-in tool items, code
  execution, the decoders' ``ProviderItem`` events) go back only to their own provider; the
  others are left out, with one warning per request. A server-run tool's result the next model
  needs must be restated by the app as text (the guide shows how).
* **Compactions** (``RawPart.is_compaction``: a Responses ``compaction`` item, an Anthropic
  ``compaction`` block) are provider items too, opaque or signed, so they go back only to their
  maker; elsewhere they are left out with one warning per request, like foreign reasoning. The
  messages the compaction summarised stay in the app's history and are sent as they are.
* **Tool-call ids** are rewritten when the target does not accept them (``IdRule``): the same
  id always maps to the same new id, in the call and in every result that answers it, so the
  pairs stay matched; ids the target accepts are left as they are (a provider's own history is
  sent unchanged). New ids are derived from a hash of the old one, so a conversation sent again
  (the next turn) maps the same way and a provider's prompt cache still hits.
* Provider data on tool calls (Gemini ``thoughtSignature``, OpenAI-compatible
  ``extra_content``, Responses item ids) stays on the part: each encoder sends only its own
  (the data is tagged with the provider that made it, or is read only by that provider).
* Gemini 3 (https://ai.google.dev/gemini-api/docs/thought-signatures) validates a thought
  signature on the first function call of every model step of the *current turn* (the steps
  since the last user message with ordinary content, ``current_turn_start``); a call it did not
  sign gets ``PLACEHOLDER_SIGNATURE``, the value Google documents for calls transferred from
  another model or injected by the client. Models named ``gemini-1*`` / ``gemini-2*`` do not
  validate (``validates_thought_signatures``). Both Gemini wires use these: the native API
  (``thoughtSignature``) and the OpenAI endpoint (``extra_content.google.thought_signature``).

Id rules, each from the provider's documentation or its API's error messages:

* OpenAI Chat Completions: ``tool_calls[].id`` at most 40 characters (the API's "string too
  long. Expected a string with maximum length 40");
* OpenAI Responses: ``call_id`` at most 64 characters;
* Anthropic: ``tool_use.id`` matches ``^[a-zA-Z0-9_-]+$`` (the Messages API's 400 names the
  pattern); we also keep new ones within 64 characters (no documented limit; its own ids are
  about 30);
* Mistral: exactly 9 characters of ``a-z``, ``A-Z``, ``0-9`` (its 400: "Tool call id was ...
  but must be a-z, A-Z, 0-9, with a length of 9").
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from ..messages import ChatMessage
from ..parts import ContentPart, RawPart, ReasoningPart, ToolCallPart, ToolResultPart
from ..tool_calls import unique_id

__all__ = [
    "ANTHROPIC_IDS",
    "ANY_IDS",
    "CHAT_COMPLETIONS_IDS",
    "MISTRAL_IDS",
    "PLACEHOLDER_SIGNATURE",
    "RESPONSES_IDS",
    "AdaptedHistory",
    "IdRule",
    "adapt_history",
    "current_turn_start",
    "validates_thought_signatures",
]

PLACEHOLDER_SIGNATURE = "skip_thought_signature_validator"
"""The thought signature Google documents for function calls Gemini did not sign."""

_ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True, slots=True)
class IdRule:
    """The tool-call ids a provider accepts."""

    name: str
    invalid_chars: str | None = None
    """A regex character class of characters the provider refuses (``None``: any)."""
    max_length: int | None = None
    length: int | None = None
    """An exact length (Mistral); new ids are then ``length`` alphanumerics."""

    def accepts(self, call_id: str) -> bool:
        if not call_id:
            return False
        if self.length is not None and len(call_id) != self.length:
            return False
        if self.max_length is not None and len(call_id) > self.max_length:
            return False
        return self.invalid_chars is None or not re.search(self.invalid_chars, call_id)

    def rewrite(self, call_id: str, attempt: int) -> str:
        """A new id for ``call_id`` this rule accepts (``attempt`` > 0 after a collision)."""
        seed = call_id if attempt == 0 else f"{call_id}#{attempt}"
        digest = int.from_bytes(hashlib.sha256(seed.encode()).digest()[:16], "big")
        if self.length is not None:
            return _base62(digest, self.length)
        clean = re.sub(self.invalid_chars, "_", call_id) if self.invalid_chars else call_id
        if attempt == 0 and clean and self.accepts(clean):
            return clean
        suffix = "_" + _base62(digest, 10)
        keep = (self.max_length or len(clean) + len(suffix)) - len(suffix)
        return (clean[: max(keep, 0)] or "call") + suffix


def _base62(number: int, length: int) -> str:
    chars = []
    for _ in range(length):
        number, rest = divmod(number, 62)
        chars.append(_ALNUM[rest])
    return "".join(chars)


ANY_IDS = IdRule("any")
CHAT_COMPLETIONS_IDS = IdRule("chat-completions", max_length=40)
RESPONSES_IDS = IdRule("responses", max_length=64)
ANTHROPIC_IDS = IdRule("anthropic", invalid_chars=r"[^a-zA-Z0-9_-]", max_length=64)
MISTRAL_IDS = IdRule("mistral", invalid_chars=r"[^a-zA-Z0-9]", length=9)


@dataclass(slots=True)
class AdaptedHistory:
    """The messages to encode, and what was left out (for ``StreamStart.warnings``)."""

    messages: list[ChatMessage]
    warnings: list[str]
    ids: dict[str, str]
    """Tool-call ids that were rewritten: old id → new id."""


def adapt_history(
    messages: Sequence[ChatMessage], *, provider: str, ids: IdRule = ANY_IDS
) -> AdaptedHistory:
    """``messages`` as ``provider`` can take them (see module docstring)."""
    id_map = _map_ids(messages, ids)
    foreign_reasoning: dict[str, int] = {}
    foreign_items: dict[str, int] = {}
    foreign_compactions: dict[str, int] = {}
    out: list[ChatMessage] = []
    for message in messages:
        content: list[ContentPart] = []
        changed = False
        for part in message.content:
            if isinstance(part, ReasoningPart) and part.provider != provider:
                changed = True
                if part.text or part.signature or part.provider_data:
                    maker = part.provider or "the app"
                    foreign_reasoning[maker] = foreign_reasoning.get(maker, 0) + 1
                continue
            if isinstance(part, RawPart) and part.provider != provider:
                changed = True
                tally = foreign_compactions if part.is_compaction else foreign_items
                tally[part.provider] = tally.get(part.provider, 0) + 1
                continue
            if isinstance(part, ToolCallPart) and part.id in id_map:
                part = part.model_copy(update={"id": id_map[part.id]})
                changed = True
            elif isinstance(part, ToolResultPart) and part.tool_call_id in id_map:
                part = part.model_copy(update={"tool_call_id": id_map[part.tool_call_id]})
                changed = True
            content.append(part)
        out.append(message.model_copy(update={"content": content}) if changed else message)
    warnings = [
        f"history: {count} reasoning part(s) from {maker} were left out: {provider} cannot read "
        "another provider's reasoning (nor verify its signature)"
        for maker, count in foreign_reasoning.items()
    ]
    warnings.extend(
        f"history: {count} {maker} provider item(s) (server-run tools and their results) were "
        f"left out: {provider} cannot read them"
        for maker, count in foreign_items.items()
    )
    warnings.extend(
        f"history: {count} compaction(s) from {maker} were left out: {provider} cannot read "
        "another provider's compacted context (the messages before it are sent as they are)"
        for maker, count in foreign_compactions.items()
    )
    return AdaptedHistory(out, warnings, id_map)


def _map_ids(messages: Sequence[ChatMessage], rule: IdRule) -> dict[str, str]:
    """Old id → new id for every tool-call id ``rule`` refuses, one-to-one."""
    seen: list[str] = []
    for message in messages:
        for part in message.content:
            if isinstance(part, ToolCallPart):
                seen.append(part.id)
            elif isinstance(part, ToolResultPart):
                seen.append(part.tool_call_id)
    kept = {i for i in seen if rule.accepts(i)}
    taken = set(kept)
    mapping: dict[str, str] = {}
    for old in dict.fromkeys(seen):
        if old in kept:
            continue
        new = unique_id(partial(rule.rewrite, old), taken)
        taken.add(new)
        mapping[old] = new
    return mapping


def current_turn_start(messages: Sequence[ChatMessage]) -> int:
    """Index of the last user message with ordinary content (not only tool results); -1 if
    none: every message after it is in the current turn."""
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if message.role == "user" and any(
            not isinstance(p, ToolResultPart) for p in message.content
        ):
            return i
    return -1


def validates_thought_signatures(model: str) -> bool:
    """Whether a Gemini model checks thought signatures on function calls (Gemini 3 on)."""
    name = model.rpartition("/")[2]
    return not name.startswith(("gemini-1", "gemini-2"))
