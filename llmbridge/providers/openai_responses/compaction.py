"""Responses server-side compaction: the request entry and the item to send back (pure).

Follows https://developers.openai.com/api/docs/guides/compaction and the openai SDK's
``response_create_params.ContextManagement`` / ``ResponseCompactionItemParamParam``. Rules:

* ``Compaction`` → ``context_management: [{"type": "compaction", "compact_threshold": n}]``
  (no threshold: the API's default); ``provider_options["openai-responses"]`` is merged into
  the entry last. ``instructions`` and ``pause_after`` have no Responses field: dropped, with
  a warning each (``compaction_warnings``).
* The ``compaction`` item comes back in the stream up to three times, re-encrypted each time
  (``output_item.added``, ``output_item.done``, ``response.completed``); ``final_item`` picks
  the form in the completed response's ``output`` with the same id, else the done one.
  The item goes back verbatim as a ``RawPart`` (``messages.py``), only to this provider.
"""

from __future__ import annotations

from typing import Any

from ...compaction import Compaction

__all__ = ["compaction_entry", "compaction_warnings", "final_item"]

PROVIDER_NAME = "openai-responses"


def compaction_entry(spec: Compaction) -> dict[str, Any]:
    """The ``context_management`` entry asking for server-side compaction."""
    entry: dict[str, Any] = {"type": "compaction"}
    if spec.trigger_tokens is not None:
        entry["compact_threshold"] = spec.trigger_tokens
    entry.update(spec.provider_options.get(PROVIDER_NAME, {}))
    return entry


def compaction_warnings(spec: Compaction | None) -> list[str]:
    """The options of ``spec`` the Responses API has no field for (dropped)."""
    if spec is None:
        return []
    out = []
    if spec.instructions is not None:
        out.append(
            "Compaction instructions: the Responses API summarises with its own prompt; dropped"
        )
    if spec.pause_after:
        out.append(
            "Compaction pause_after: the Responses API does not pause after compacting; dropped"
        )
    return out


def final_item(held: dict[str, Any], response: Any) -> dict[str, Any]:
    """``held`` (a done ``compaction`` item) in its final form: the item with the same id in
    ``response["output"]`` (``response.completed``) when there is one, else ``held``."""
    output = response.get("output") if isinstance(response, dict) else None
    for item in output if isinstance(output, list) else ():
        if (
            isinstance(item, dict)
            and item.get("type") == "compaction"
            and item.get("id") == held.get("id")
            and isinstance(item.get("encrypted_content"), str)
        ):
            return item
    return held
