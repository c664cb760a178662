"""Anthropic server-side compaction: the context-management edit, its beta flag, and the usage
of compaction iterations (pure).

Follows https://platform.claude.com/docs/en/build-with-claude/compaction and the anthropic
SDK's beta types (``BetaCompact20260112EditParam``, ``BetaCompactionBlockParam``,
``BetaCompactionIterationUsage``). Rules:

* ``Compaction`` → ``context_management: {"edits": [{"type": "compact_20260112", ...}]}``:
  ``trigger_tokens`` → ``trigger: {"type": "input_tokens", "value": n}``, ``instructions``,
  ``pause_after`` → ``pause_after_compaction``; ``provider_options["anthropic"]`` (or the
  cloud provider's name) merged into the edit last.
* The beta flag ``compact-2026-01-12`` goes in ``anthropic-beta`` whenever compaction is asked
  for or a ``compaction`` block is sent back (``needs_beta``), on the Claude API and on the
  clouds (which share the header code).
* ``compaction`` blocks (``compaction_delta`` appends to ``content``) are kept by
  ``blocks.py`` as any provider-run block: a ``RawPart`` sent back verbatim, this provider only.
* Usage (``compaction_usage``): ``usage.iterations`` lists each model call of the request. The
  top-level counts already cover the ``message`` iterations and, as the API documents,
  leave the ``compaction`` iterations out; those are separate calls, billed too. So
  ``Usage`` = the last top-level snapshot (as always) **plus** every ``compaction`` iteration
  (its input with cache reads and writes, its output). Iterations are read from the last
  report that lists them (each report repeats the whole list: never summed twice).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...compaction import Compaction
from ...messages import ChatMessage
from ...parts import RawPart
from ...request import ChatRequest

__all__ = [
    "COMPACTION_BETA",
    "compaction_betas",
    "compaction_edit",
    "compaction_usage",
    "needs_beta",
]

COMPACTION_BETA = "compact-2026-01-12"


def compaction_edit(spec: Compaction, *, provider_name: str) -> dict[str, Any]:
    """The ``context_management.edits`` entry asking for server-side compaction."""
    edit: dict[str, Any] = {"type": "compact_20260112"}
    if spec.trigger_tokens is not None:
        edit["trigger"] = {"type": "input_tokens", "value": spec.trigger_tokens}
    if spec.instructions is not None:
        edit["instructions"] = spec.instructions
    if spec.pause_after:
        edit["pause_after_compaction"] = True
    edit.update(
        spec.provider_options.get(provider_name) or spec.provider_options.get("anthropic", {})
    )
    return edit


def needs_beta(
    compaction: Compaction | None, messages: Iterable[ChatMessage], *, provider_name: str
) -> bool:
    """Whether the request asks for compaction or sends a compaction block back."""
    if compaction is not None:
        return True
    return any(
        isinstance(part, RawPart) and part.provider == provider_name and part.is_compaction
        for message in messages
        if message.role == "assistant"
        for part in message.content
    )


def compaction_betas(request: ChatRequest, *, provider_name: str) -> list[str]:
    """``[COMPACTION_BETA]`` when ``request`` needs it (``needs_beta``), else ``[]``."""
    if needs_beta(request.compaction, request.messages, provider_name=provider_name):
        return [COMPACTION_BETA]
    return []


def _int(value: Any) -> int:
    return value if type(value) is int else 0


def compaction_usage(iterations: Any) -> tuple[int, int, int, int]:
    """``(input incl. cache, output, cache reads, cache writes)`` of the ``compaction``
    entries of ``usage.iterations``."""
    total_in = total_out = reads = writes = 0
    for entry in iterations if isinstance(iterations, list) else ():
        if not isinstance(entry, dict) or entry.get("type") != "compaction":
            continue
        read = _int(entry.get("cache_read_input_tokens"))
        write = _int(entry.get("cache_creation_input_tokens"))
        total_in += _int(entry.get("input_tokens")) + read + write
        total_out += _int(entry.get("output_tokens"))
        reads += read
        writes += write
    return total_in, total_out, reads, writes
